// Shared by the CUDA test programs: error checks and the PASS/FAIL verdict.
#pragma once
#include <cuda_runtime.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>

#define CHECK(call)                                                                              \
  do {                                                                                           \
    cudaError_t err_ = (call);                                                                   \
    if (err_ != cudaSuccess) {                                                                   \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(err_)); \
      std::printf("FAIL\n");                                                                     \
      std::exit(1);                                                                              \
    }                                                                                            \
  } while (0)

// After a launch: configuration errors, then faults during the kernel.
#define CHECK_LAUNCH()                  \
  do {                                  \
    CHECK(cudaGetLastError());          \
    CHECK(cudaDeviceSynchronize());     \
  } while (0)

inline bool close_enough(double got, double want, double rel, double abs_tol = 0) {
  return std::fabs(got - want) <= abs_tol + rel * std::fabs(want);
}

// Milliseconds between two recorded events, after `stop` completed; both destroyed.
inline float elapsed_ms_and_destroy(cudaEvent_t start, cudaEvent_t stop) {
  CHECK(cudaEventSynchronize(stop));
  float ms = 0;
  CHECK(cudaEventElapsedTime(&ms, start, stop));
  CHECK(cudaEventDestroy(start));
  CHECK(cudaEventDestroy(stop));
  return ms;
}

// Prints the verdict; the process exit status is non-zero on mismatches.
inline int verdict(const char* test, long mismatches) {
  if (mismatches == 0) {
    std::printf("%s: PASS\n", test);
    return 0;
  }
  std::printf("%s: FAIL (%ld mismatches)\n", test, mismatches);
  return 1;
}
