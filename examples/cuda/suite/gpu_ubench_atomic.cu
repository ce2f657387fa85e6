// gpu_ubench_atomic: atomicAdd throughput in the style of the public GPU
// microbenchmark suites. One block of 1024 threads per SM; every thread does
// atomicAdd(+1) in a loop, the result unused (nvcc writes atom.add; ptxas
// issues it as a reduction, and for one address first sums a warp's lanes into
// one atomic, as the simulator does too), on
//  - global, same address: one counter for the whole GPU;
//  - global, distinct addresses: one counter per thread (a warp's 32 counters
//    are one 128 B line);
//  - shared, distinct addresses: one counter per thread in its block's shared
//    memory (conflict-free: lane l uses bank l);
//  - shared, same address: one counter per block.
// The loops are kept rolled (global) or unrolled 8 times (shared) in the PTX.
// Each warp records clock64() after a barrier at the start and after one at
// the end; global figures are operations per clock for the GPU (all threads'
// operations over the span from the earliest start to the latest stop), the
// shared ones operations per clock per SM (each block's own span, averaged).
// The self-check is every counter's final value against the host's count.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "suite.h"

constexpr int kThreads = 1024;
constexpr int kOps = 16;        // atomics per thread, global tests
constexpr int kSharedOps = 64;  // atomics per thread, shared tests

__device__ __forceinline__ void record(long long t0, long long t1, long long* start, long long* stop) {
  if ((threadIdx.x & 31) == 0) {
    int w = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    start[w] = t0;
    stop[w] = t1;
  }
}

__global__ void global_same(unsigned* counter, long long* start, long long* stop) {
  __syncthreads();
  long long t0 = clock64();
#pragma unroll 1
  for (int i = 0; i < kOps; ++i) atomicAdd(counter, 1u);
  __syncthreads();
  long long t1 = clock64();
  record(t0, t1, start, stop);
}

__global__ void global_distinct(unsigned* counters, long long* start, long long* stop) {
  unsigned* mine = counters + blockIdx.x * blockDim.x + threadIdx.x;
  __syncthreads();
  long long t0 = clock64();
#pragma unroll 1
  for (int i = 0; i < kOps; ++i) atomicAdd(mine, 1u);
  __syncthreads();
  long long t1 = clock64();
  record(t0, t1, start, stop);
}

// same = true: every thread of the block on counter 0; else thread t on t.
template <bool kSame>
__global__ void shared_add(unsigned* out, long long* start, long long* stop) {
  __shared__ unsigned counters[kThreads];
  counters[threadIdx.x] = 0;
  __syncthreads();
  unsigned* mine = counters + (kSame ? 0 : threadIdx.x);
  long long t0 = clock64();
#pragma unroll 8
  for (int i = 0; i < kSharedOps; ++i) atomicAdd(mine, 1u);
  __syncthreads();
  long long t1 = clock64();
  out[blockIdx.x * blockDim.x + threadIdx.x] = counters[threadIdx.x];
  record(t0, t1, start, stop);
}

struct Spans {
  std::vector<long long> start, stop;
};

Spans spans(const long long* dstart, const long long* dstop, int warps) {
  return {to_host(dstart, warps), to_host(dstop, warps)};
}

// All warps: operations over the span from the earliest start to the latest stop.
double gpu_rate(const Spans& s, double ops) {
  long long span = *std::max_element(s.stop.begin(), s.stop.end()) - *std::min_element(s.start.begin(), s.start.end());
  return span > 0 ? ops / double(span) : NAN;
}

// Per block (one per SM): its warps' span, the block's operations over it, averaged.
double per_sm_rate(const Spans& s, int blocks, double ops_per_block) {
  const int wpb = kThreads / 32;
  double total = 0.0;
  for (int b = 0; b < blocks; ++b) {
    auto lo = std::min_element(s.start.begin() + b * wpb, s.start.begin() + (b + 1) * wpb);
    auto hi = std::max_element(s.stop.begin() + b * wpb, s.stop.begin() + (b + 1) * wpb);
    total += *hi > *lo ? ops_per_block / double(*hi - *lo) : NAN;
  }
  return total / blocks;
}

int main() {
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  const int blocks = prop.multiProcessorCount;
  const size_t threads = size_t(blocks) * kThreads;
  const int warps = int(threads / 32);
  unsigned* dcounters = device_zeros<unsigned>(threads);
  unsigned* dout = device_zeros<unsigned>(threads);
  long long *dstart = device_alloc<long long>(warps), *dstop = device_alloc<long long>(warps);
  const double ops = double(threads) * kOps;
  long bad = 0;
  float ms = 0.0f;
  std::printf("blocks=%d\n", blocks);
  std::printf("threads_per_block=%d\n", kThreads);
  std::printf("ops_per_thread_global=%d\n", kOps);
  std::printf("ops_per_thread_shared=%d\n", kSharedOps);

  EventTimer t1;
  t1.start();
  global_same<<<blocks, kThreads>>>(dcounters, dstart, dstop);
  CHECK(cudaGetLastError());
  ms += t1.stop_ms();
  CHECK(cudaDeviceSynchronize());
  double r_same = gpu_rate(spans(dstart, dstop, warps), ops);
  bad += to_host(dcounters, 1)[0] != unsigned(threads * kOps);
  std::printf("atomic_global_same_address_ops_per_clk=%.2f\n", r_same);

  CHECK(cudaMemset(dcounters, 0, threads * sizeof(unsigned)));
  EventTimer t2;
  t2.start();
  global_distinct<<<blocks, kThreads>>>(dcounters, dstart, dstop);
  CHECK(cudaGetLastError());
  ms += t2.stop_ms();
  CHECK(cudaDeviceSynchronize());
  double r_distinct = gpu_rate(spans(dstart, dstop, warps), ops);
  for (unsigned c : to_host(dcounters, threads)) bad += c != unsigned(kOps);
  std::printf("atomic_global_distinct_ops_per_clk=%.2f\n", r_distinct);

  EventTimer t3;
  t3.start();
  shared_add<false><<<blocks, kThreads>>>(dout, dstart, dstop);
  CHECK(cudaGetLastError());
  ms += t3.stop_ms();
  CHECK(cudaDeviceSynchronize());
  double r_sh = per_sm_rate(spans(dstart, dstop, warps), blocks, double(kThreads) * kSharedOps);
  for (unsigned c : to_host(dout, threads)) bad += c != unsigned(kSharedOps);
  std::printf("atomic_shared_distinct_ops_per_clk_per_sm=%.2f\n", r_sh);

  EventTimer t4;
  t4.start();
  shared_add<true><<<blocks, kThreads>>>(dout, dstart, dstop);
  CHECK(cudaGetLastError());
  ms += t4.stop_ms();
  CHECK(cudaDeviceSynchronize());
  double r_sh_same = per_sm_rate(spans(dstart, dstop, warps), blocks, double(kThreads) * kSharedOps);
  std::vector<unsigned> out = to_host(dout, threads);
  for (size_t t = 0; t < threads; ++t) bad += out[t] != (t % kThreads == 0 ? unsigned(kThreads * kSharedOps) : 0u);
  std::printf("atomic_shared_same_address_ops_per_clk_per_sm=%.2f\n", r_sh_same);

  for (double r : {r_same, r_distinct, r_sh, r_sh_same}) bad += !(std::isfinite(r) && r > 0);
  device_free(dcounters, dout, dstart, dstop);
  print_timing(ms, 4);
  return verdict("gpu_ubench_atomic", bad);
}
