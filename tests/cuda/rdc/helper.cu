// The other translation unit of the -rdc=true test.
#include <cstdio>

__device__ int calls = 0;

__device__ float affine(float x) {
  if (x == 0.0f) printf("helper unit: first element\n");
  return 2.0f * x - 1.0f;
}
