// Shared by the sampling validation programs (docs/sampling.md): error
// checks and a deterministic generator (the same data on every run, so
// that a profile, a plan and a timed run see the same launches).
#pragma once
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "../xorshift.h"

#define CHECK(call)                                                                      \
  do {                                                                                   \
    cudaError_t e_ = (call);                                                             \
    if (e_ != cudaSuccess) {                                                             \
      std::printf("FAIL %s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_)); \
      std::exit(1);                                                                      \
    }                                                                                    \
  } while (0)

// The programs' generator (examples/cuda/xorshift.h).
using Rng = XorShift32;

// The sum of `v` over the block's N threads (N a power of two), in shared
// memory `s`; every thread gets it.
template <int N>
__device__ float block_sum(float v, float* s) {
  s[threadIdx.x] = v;
  __syncthreads();
  for (int half = N / 2; half > 0; half /= 2) {
    if (threadIdx.x < half) s[threadIdx.x] += s[threadIdx.x + half];
    __syncthreads();
  }
  return s[0];
}

inline int report(const char* what, bool ok) {
  std::printf("%s: %s\n", what, ok ? "correct" : "FAIL (wrong result)");
  return ok ? 0 : 1;
}
