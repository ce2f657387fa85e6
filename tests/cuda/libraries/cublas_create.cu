// A program linked to cuBLAS: cublasCreate reaches the CUDA driver through
// cuBLAS's own copy of the runtime. Under warpsim it cannot run: the test
// checks that the program is told why, naming libcublas.
#include <cublas_v2.h>

#include <cstdio>

int main() {
  cublasHandle_t handle;
  cublasStatus_t s = cublasCreate(&handle);
  std::printf("cublasCreate returned %d\n", static_cast<int>(s));
  if (s != CUBLAS_STATUS_SUCCESS) return 1;
  cublasDestroy(handle);
  return 0;
}
