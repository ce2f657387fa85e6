// gpu_ubench_shfl_sync: warp shuffle throughput and latency, and the cost of
// a CTA barrier, in the style of the public GPU microbenchmark suites.
//  - shuffle throughput: one block of 1024 threads per SM; every thread runs
//    four independent chains of shfl.sync.bfly (volatile asm, eight per
//    chain per round, so each warp always has shuffles ready to issue);
//    each SM's span (earliest start to latest stop, clock64() after
//    barriers) over its warp shuffles: warp shuffles per clock per SM. The
//    CUDA programming guide's throughput table gives 32 shuffle results per
//    clock per SM for compute capability 7.x: one warp shuffle a clock.
//  - shuffle latency: one warp, one dependent chain: cycles per shuffle.
//  - barrier: one block of 1, 4, 16 or 32 warps runs kBarriers bar.sync in a
//    row with nothing between them: cycles per barrier (warp 0's span).
// The self-check: each chain's final value against the lane the butterfly
// pattern predicts (the values are lane numbers, so the result is exact).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <utility>
#include <vector>

#include "suite.h"

constexpr int kThreads = 1024;
constexpr int kRounds = 16;      // throughput: rounds of 4 chains x 8 shuffles
constexpr int kChain = 512;      // latency: dependent shuffles
constexpr int kBarriers = 256;   // barrier test: bar.sync per warp
constexpr int kBarrierWarps[] = {1, 4, 16, 32};

__device__ __forceinline__ unsigned sm_id() {
  unsigned id;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(id));
  return id;
}

// Eight butterfly shuffles of v with lane masks 1, 2, 4, 8, 16, 1, 2, 4: the
// value ends at lane ^ (1^2^4^8^16^1^2^4) = lane ^ 24.
__device__ __forceinline__ void eight_shuffles(unsigned& v) {
  asm volatile(
      "shfl.sync.bfly.b32 %0, %0, 1, 0x1f, -1;\n\t"
      "shfl.sync.bfly.b32 %0, %0, 2, 0x1f, -1;\n\t"
      "shfl.sync.bfly.b32 %0, %0, 4, 0x1f, -1;\n\t"
      "shfl.sync.bfly.b32 %0, %0, 8, 0x1f, -1;\n\t"
      "shfl.sync.bfly.b32 %0, %0, 16, 0x1f, -1;\n\t"
      "shfl.sync.bfly.b32 %0, %0, 1, 0x1f, -1;\n\t"
      "shfl.sync.bfly.b32 %0, %0, 2, 0x1f, -1;\n\t"
      "shfl.sync.bfly.b32 %0, %0, 4, 0x1f, -1;"
      : "+r"(v)
      :
      : "memory");
}

// The four chains interleaved one shuffle at a time, so consecutive
// instructions of a warp are independent.
__device__ __forceinline__ void four_chains(unsigned& a, unsigned& b, unsigned& c, unsigned& d) {
  asm volatile(
      "shfl.sync.bfly.b32 %0, %0, 1, 0x1f, -1;\n\t"
      "shfl.sync.bfly.b32 %1, %1, 1, 0x1f, -1;\n\t"
      "shfl.sync.bfly.b32 %2, %2, 1, 0x1f, -1;\n\t"
      "shfl.sync.bfly.b32 %3, %3, 1, 0x1f, -1;\n\t"
      "shfl.sync.bfly.b32 %0, %0, 2, 0x1f, -1;\n\t"
      "shfl.sync.bfly.b32 %1, %1, 2, 0x1f, -1;\n\t"
      "shfl.sync.bfly.b32 %2, %2, 2, 0x1f, -1;\n\t"
      "shfl.sync.bfly.b32 %3, %3, 2, 0x1f, -1;\n\t"
      "shfl.sync.bfly.b32 %0, %0, 4, 0x1f, -1;\n\t"
      "shfl.sync.bfly.b32 %1, %1, 4, 0x1f, -1;\n\t"
      "shfl.sync.bfly.b32 %2, %2, 4, 0x1f, -1;\n\t"
      "shfl.sync.bfly.b32 %3, %3, 4, 0x1f, -1;\n\t"
      "shfl.sync.bfly.b32 %0, %0, 8, 0x1f, -1;\n\t"
      "shfl.sync.bfly.b32 %1, %1, 8, 0x1f, -1;\n\t"
      "shfl.sync.bfly.b32 %2, %2, 8, 0x1f, -1;\n\t"
      "shfl.sync.bfly.b32 %3, %3, 8, 0x1f, -1;\n\t"
      "shfl.sync.bfly.b32 %0, %0, 16, 0x1f, -1;\n\t"
      "shfl.sync.bfly.b32 %1, %1, 16, 0x1f, -1;\n\t"
      "shfl.sync.bfly.b32 %2, %2, 16, 0x1f, -1;\n\t"
      "shfl.sync.bfly.b32 %3, %3, 16, 0x1f, -1;\n\t"
      "shfl.sync.bfly.b32 %0, %0, 1, 0x1f, -1;\n\t"
      "shfl.sync.bfly.b32 %1, %1, 1, 0x1f, -1;\n\t"
      "shfl.sync.bfly.b32 %2, %2, 1, 0x1f, -1;\n\t"
      "shfl.sync.bfly.b32 %3, %3, 1, 0x1f, -1;\n\t"
      "shfl.sync.bfly.b32 %0, %0, 2, 0x1f, -1;\n\t"
      "shfl.sync.bfly.b32 %1, %1, 2, 0x1f, -1;\n\t"
      "shfl.sync.bfly.b32 %2, %2, 2, 0x1f, -1;\n\t"
      "shfl.sync.bfly.b32 %3, %3, 2, 0x1f, -1;\n\t"
      "shfl.sync.bfly.b32 %0, %0, 4, 0x1f, -1;\n\t"
      "shfl.sync.bfly.b32 %1, %1, 4, 0x1f, -1;\n\t"
      "shfl.sync.bfly.b32 %2, %2, 4, 0x1f, -1;\n\t"
      "shfl.sync.bfly.b32 %3, %3, 4, 0x1f, -1;"
      : "+r"(a), "+r"(b), "+r"(c), "+r"(d)
      :
      : "memory");
}

__global__ void __launch_bounds__(kThreads) shfl_throughput(int rounds, unsigned* out, long long* start,
                                                            long long* stop, unsigned* sm) {
  const unsigned lane = threadIdx.x & 31;
  unsigned a = lane, b = lane, c = lane, d = lane;
  __syncthreads();
  long long t0 = clock64();
#pragma unroll 1
  for (int r = 0; r < rounds; ++r) four_chains(a, b, c, d);
  __syncthreads();
  long long t1 = clock64();
  out[blockIdx.x * kThreads + threadIdx.x] = a + b + c + d;
  if (lane == 0) {
    int w = (blockIdx.x * kThreads + threadIdx.x) / 32;
    start[w] = t0;
    stop[w] = t1;
    sm[w] = sm_id();
  }
}

__global__ void shfl_latency(unsigned* out, long long* cycles) {
  unsigned v = threadIdx.x;
  eight_shuffles(v);  // untimed warm-up
  long long t0 = clock64();
#pragma unroll 1
  for (int i = 0; i < kChain / 8; ++i) eight_shuffles(v);
  long long t1 = clock64();
  out[threadIdx.x] = v;
  if (threadIdx.x == 0) cycles[0] = t1 - t0;
}

__global__ void barrier_cost(long long* cycles) {
  __syncthreads();
  long long t0 = clock64();
#pragma unroll 1
  for (int i = 0; i < kBarriers / 8; ++i) {
    asm volatile(
        "bar.sync 0;\n\t"
        "bar.sync 0;\n\t"
        "bar.sync 0;\n\t"
        "bar.sync 0;\n\t"
        "bar.sync 0;\n\t"
        "bar.sync 0;\n\t"
        "bar.sync 0;\n\t"
        "bar.sync 0;" ::
            : "memory");
  }
  long long t1 = clock64();
  if (threadIdx.x == 0) cycles[0] = t1 - t0;
}

// Warp shuffles per clock per SM: each SM's warps' shuffles over its span.
double per_sm_rate(const std::vector<long long>& start, const std::vector<long long>& stop,
                   const std::vector<unsigned>& sm, double per_warp) {
  std::map<unsigned, std::pair<long long, long long>> span;
  std::map<unsigned, int> warps;
  for (size_t w = 0; w < sm.size(); ++w) {
    auto [it, fresh] = span.try_emplace(sm[w], start[w], stop[w]);
    if (!fresh) {
      it->second.first = std::min(it->second.first, start[w]);
      it->second.second = std::max(it->second.second, stop[w]);
    }
    ++warps[sm[w]];
  }
  double total = 0.0;
  for (auto& [id, s] : span) total += per_warp * warps[id] / double(s.second - s.first);
  return total / double(span.size());
}

int main() {
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  const int blocks = prop.multiProcessorCount;
  const int warps = blocks * kThreads / 32;
  unsigned* dout = device_alloc<unsigned>(size_t(blocks) * kThreads);
  long long *dstart = device_alloc<long long>(warps), *dstop = device_alloc<long long>(warps);
  unsigned* dsm = device_alloc<unsigned>(warps);
  long long* dcyc = device_alloc<long long>(1);
  long bad = 0;
  float ms = 0.0f;
  int launches = 0;
  std::printf("blocks=%d\n", blocks);
  std::printf("threads_per_block=%d\n", kThreads);

  {
    EventTimer timer;
    timer.start();
    shfl_throughput<<<blocks, kThreads>>>(kRounds, dout, dstart, dstop, dsm);
    CHECK(cudaGetLastError());
    ms += timer.stop_ms();
    ++launches;
    CHECK(cudaDeviceSynchronize());
    std::vector<long long> start = to_host(dstart, warps), stop = to_host(dstop, warps);
    std::vector<unsigned> sm = to_host(dsm, warps), out = to_host(dout, size_t(blocks) * kThreads);
    // Each round is 8 shuffles per chain, masks 1,2,4,8,16,1,2,4 (net lane ^ 24);
    // an even number of rounds brings every value back to its own lane.
    for (int t = 0; t < blocks * kThreads; ++t) {
      unsigned lane = unsigned(t & 31), want = (kRounds % 2) ? (lane ^ 24u) : lane;
      bad += out[t] != 4u * want;
    }
    const double rate = per_sm_rate(start, stop, sm, 32.0 * kRounds);
    std::printf("shfl_warp_shuffles_per_clk_per_sm=%.3f\n", rate);
    std::printf("shfl_lanes_per_clk_per_sm=%.2f\n", rate * 32.0);
    bad += !(rate > 0);
  }
  {
    EventTimer timer;
    timer.start();
    shfl_latency<<<1, 32>>>(dout, dcyc);
    CHECK(cudaGetLastError());
    ms += timer.stop_ms();
    ++launches;
    CHECK(cudaDeviceSynchronize());
    std::vector<unsigned> out = to_host(dout, 32);
    std::vector<long long> cyc = to_host(dcyc, 1);
    const int groups = 1 + kChain / 8;  // eight_shuffles calls, each lane ^ 24
    for (int l = 0; l < 32; ++l) bad += out[l] != ((groups % 2) ? unsigned(l) ^ 24u : unsigned(l));
    std::printf("shfl_latency_cycles=%.2f\n", double(cyc[0]) / kChain);
    bad += !(cyc[0] > 0);
  }
  for (int w : kBarrierWarps) {
    EventTimer timer;
    timer.start();
    barrier_cost<<<1, 32 * w>>>(dcyc);
    CHECK(cudaGetLastError());
    ms += timer.stop_ms();
    ++launches;
    CHECK(cudaDeviceSynchronize());
    std::vector<long long> cyc = to_host(dcyc, 1);
    std::printf("syncthreads_%dwarps_cycles=%.2f\n", w, double(cyc[0]) / kBarriers);
    bad += !(cyc[0] > 0);
  }
  device_free(dout, dstart, dstop, dsm, dcyc);
  print_timing(ms, launches);
  return verdict("gpu_ubench_shfl_sync", bad);
}
