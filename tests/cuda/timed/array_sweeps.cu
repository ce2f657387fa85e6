// Run under `warpsim exec --timing` by tests/cuda/check_exec_rss.py: a few
// long-lived CTAs sweep an array many times, so each CTA executes millions
// of instructions, most of them loads with 32 lane addresses. Host memory
// must stay bounded by what is in flight in the timing model, not grow with
// the instructions a CTA has executed (issue 17 item 1).
// Usage: array_sweeps [sweeps] (default 1000).
#include <cstdlib>
#include <vector>

#include "../check.h"

constexpr int kThreads = 256, kBlocks = 4, kElems = 4096;  // a 16 KiB array

// The array is staged in shared memory (shared loads are cheap to time, so
// the test is short) and read through a volatile pointer: the loads are kept
// though their values are unused, and nearly every instruction is one. The
// last sweep sums what it reads, for the result check.
__global__ void sweep(const float* a, int sweeps, float* out) {
  __shared__ float tile[kElems];
  for (int i = threadIdx.x; i < kElems; i += kThreads) tile[i] = a[i];
  __syncthreads();
  const volatile float* t = tile;
  for (int r = 1; r < sweeps; ++r) {
#pragma unroll  // a constant trip count: 16 loads off one base register
    for (int k = 0; k < kElems / kThreads; ++k) (void)t[threadIdx.x + k * kThreads];
  }
  float s = 0;
  for (int i = threadIdx.x; i < kElems; i += kThreads) s += t[i];
  out[blockIdx.x * kThreads + threadIdx.x] = s;
}

int main(int argc, char** argv) {
  int sweeps = argc > 1 ? std::atoi(argv[1]) : 1000;
  std::vector<float> host(kElems, 1.0f);
  float *a = nullptr, *out = nullptr;
  CHECK(cudaMalloc(&a, kElems * sizeof(float)));
  CHECK(cudaMalloc(&out, kBlocks * kThreads * sizeof(float)));
  CHECK(cudaMemcpy(a, host.data(), kElems * sizeof(float), cudaMemcpyHostToDevice));
  sweep<<<kBlocks, kThreads>>>(a, sweeps, out);
  CHECK_LAUNCH();
  std::vector<float> got(kBlocks * kThreads);
  CHECK(cudaMemcpy(got.data(), out, got.size() * sizeof(float), cudaMemcpyDeviceToHost));
  // Each thread adds kElems / kThreads ones in the last sweep.
  const float want = static_cast<float>(kElems / kThreads);
  long wrong = 0;
  for (float v : got) wrong += v != want;
  return verdict("array_sweeps", wrong);
}
