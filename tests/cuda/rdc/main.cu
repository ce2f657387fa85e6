// Separate compilation (-rdc=true): kernels here call a __device__ function
// and read a __device__ variable defined in another translation unit, and
// both units print with device printf (each has its own format strings).
#include <cstdio>

#include "../check.h"

extern __device__ float affine(float x);
extern __device__ int calls;

__global__ void apply(const float* in, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    out[i] = affine(in[i]);
    atomicAdd(&calls, 1);
  }
  if (i == 0) printf("main unit: n=%d\n", n);
}

int main() {
  const int n = 300;
  float h[n], r[n];
  for (int i = 0; i < n; ++i) h[i] = 0.25f * i;
  float *in, *out;
  CHECK(cudaMalloc(&in, sizeof h));
  CHECK(cudaMalloc(&out, sizeof r));
  CHECK(cudaMemcpy(in, h, sizeof h, cudaMemcpyHostToDevice));
  apply<<<(n + 127) / 128, 128>>>(in, out, n);
  CHECK_LAUNCH();
  CHECK(cudaMemcpy(r, out, sizeof r, cudaMemcpyDeviceToHost));
  int counted = 0;
  CHECK(cudaMemcpyFromSymbol(&counted, calls, sizeof counted));
  long bad = counted != n;
  for (int i = 0; i < n; ++i)
    if (r[i] != 2.0f * h[i] - 1.0f) ++bad;
  return verdict("separate_compilation", bad);
}
