// A program that uses the CUDA driver API directly (linked with -lcuda).
// Under warpsim it cannot run: the test checks that it is told so, naming
// the entry point, and that the call returns CUDA_ERROR_NOT_SUPPORTED.
#include <cuda.h>

#include <cstdio>

int main() {
  CUresult r = cuInit(0);
  const char* name = "?";
  if (r == CUDA_ERROR_NOT_SUPPORTED) name = "CUDA_ERROR_NOT_SUPPORTED";
  std::printf("cuInit returned %d (%s)\n", static_cast<int>(r), name);
  return r == CUDA_SUCCESS ? 0 : 1;
}
