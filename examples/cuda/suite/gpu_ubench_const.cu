// gpu_ubench_const: constant-memory loads in the style of the public GPU
// microbenchmark suites: one address for the whole warp (a broadcast) against
// 2, 4, 8 and 32 distinct addresses per warp load, which the constant cache
// serves one address at a time. Lane l uses address group l mod n (n = 1, 2,
// 4, 8, 32), the groups one 32-bit word apart; all the data (1 KB) stays in
// the SM's 2 KB constant cache after an untimed pass.
//  - throughput: one block of 1024 threads per SM; every thread issues
//    kRounds rounds of 8 ld.const (one volatile asm block, immediate offsets
//    128 B apart from its group's base); each SM's span (earliest start to
//    latest stop, clock64() after barriers) over its warp loads: cycles per
//    warp load, and per distinct address;
//  - latency: one warp follows a ring, ld.const of the word whose byte offset
//    the previous load returned (the offset plus the table's constant-space
//    base: one add per step), every group at its own place in the ring, so a
//    step has n distinct addresses: cycles per step.
// The self-check: every thread's sum against the host's, every lane's place
// in the ring after the chase.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <utility>
#include <vector>

#include "suite.h"

constexpr int kWords = 256;      // 1 KB table
constexpr int kThreads = 1024;
constexpr int kRounds = 32;      // timed rounds of 8 loads, throughput test
constexpr int kSteps = 256;      // timed ring steps, latency test
constexpr int kRingStep = 17;    // word w holds the byte offset of word (w + 17) mod 256
constexpr int kWays[] = {1, 2, 4, 8, 32};

__constant__ unsigned ctab[kWords];

__device__ __forceinline__ unsigned sm_id() {
  unsigned id;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(id));
  return id;
}

// The constant-space address of a word of ctab.
__device__ __forceinline__ unsigned long long const_addr(const unsigned* p) {
  unsigned long long a;
  asm("cvta.to.const.u64 %0, %1;" : "=l"(a) : "l"(p));
  return a;
}

// Eight loads 128 B (32 words) apart from a; their sum.
__device__ __forceinline__ unsigned eight_loads(unsigned long long a) {
  unsigned v[8];
  asm volatile(
      "ld.const.u32 %0, [%8];\n\t"
      "ld.const.u32 %1, [%8+128];\n\t"
      "ld.const.u32 %2, [%8+256];\n\t"
      "ld.const.u32 %3, [%8+384];\n\t"
      "ld.const.u32 %4, [%8+512];\n\t"
      "ld.const.u32 %5, [%8+640];\n\t"
      "ld.const.u32 %6, [%8+768];\n\t"
      "ld.const.u32 %7, [%8+896];"
      : "=r"(v[0]), "=r"(v[1]), "=r"(v[2]), "=r"(v[3]), "=r"(v[4]), "=r"(v[5]), "=r"(v[6]), "=r"(v[7])
      : "l"(a)
      : "memory");
  return ((v[0] + v[1]) + (v[2] + v[3])) + ((v[4] + v[5]) + (v[6] + v[7]));
}

__global__ void __launch_bounds__(kThreads) const_throughput(int ways, int rounds, unsigned* out, long long* start,
                                                             long long* stop, unsigned* sm) {
  const unsigned group = (threadIdx.x & 31) % ways;
  const unsigned long long a = const_addr(ctab + group);
  unsigned acc = eight_loads(a);  // untimed: the lines into the constant cache
  __syncthreads();
  long long t0 = clock64();
#pragma unroll 1
  for (int r = 0; r < rounds; ++r) acc += eight_loads(a);
  __syncthreads();
  long long t1 = clock64();
  out[blockIdx.x * kThreads + threadIdx.x] = acc;
  if ((threadIdx.x & 31) == 0) {
    int w = (blockIdx.x * kThreads + threadIdx.x) / 32;
    start[w] = t0;
    stop[w] = t1;
    sm[w] = sm_id();
  }
}

// One warp; lane l starts at word l mod ways.
__global__ void const_latency(int ways, int steps, unsigned* end, long long* cycles) {
  const unsigned long long base = const_addr(ctab);
  unsigned off = ((threadIdx.x & 31) % ways) * 4u;
  unsigned long long a = base + off;
#pragma unroll 1
  for (int i = 0; i < kWords; ++i) {  // untimed: one lap through the ring
    asm volatile("ld.const.u32 %0, [%1];" : "=r"(off) : "l"(a) : "memory");
    a = base + off;
  }
  long long t0 = clock64();
#pragma unroll 16
  for (int i = 0; i < steps; ++i) {
    asm volatile("ld.const.u32 %0, [%1];" : "=r"(off) : "l"(a) : "memory");
    a = base + off;
  }
  long long t1 = clock64();
  end[threadIdx.x] = off;
  if (threadIdx.x == 0) cycles[0] = t1 - t0;
}

// Warp loads per clock per SM: warps grouped by SM, each SM's span from its
// earliest start to its latest stop; cycles per warp load, averaged over SMs.
double cycles_per_load(const std::vector<long long>& start, const std::vector<long long>& stop,
                       const std::vector<unsigned>& sm, double loads_per_warp) {
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
  for (auto& [id, s] : span) total += double(s.second - s.first) / (loads_per_warp * warps[id]);
  return total / double(span.size());
}

int main() {
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  const int blocks = prop.multiProcessorCount;
  const int warps = blocks * kThreads / 32;
  std::vector<unsigned> table(kWords);
  for (int w = 0; w < kWords; ++w) table[w] = unsigned(((w + kRingStep) % kWords) * 4);
  CHECK(cudaMemcpyToSymbol(ctab, table.data(), sizeof(unsigned) * kWords));
  unsigned* dout = device_alloc<unsigned>(size_t(blocks) * kThreads);
  unsigned* dend = device_alloc<unsigned>(32);
  long long *dstart = device_alloc<long long>(warps), *dstop = device_alloc<long long>(warps);
  long long* dcyc = device_alloc<long long>(1);
  unsigned* dsm = device_alloc<unsigned>(warps);
  std::printf("blocks=%d\n", blocks);
  std::printf("threads_per_block=%d\n", kThreads);
  long bad = 0;
  float ms = 0.0f;
  int launches = 0;
  double base_tp = 0.0, base_lat = 0.0;
  for (int ways : kWays) {
    EventTimer timer;
    timer.start();
    const_throughput<<<blocks, kThreads>>>(ways, kRounds, dout, dstart, dstop, dsm);
    CHECK(cudaGetLastError());
    const_latency<<<1, 32>>>(ways, kSteps, dend, dcyc);
    CHECK(cudaGetLastError());
    ms += timer.stop_ms();
    launches += 2;
    CHECK(cudaDeviceSynchronize());
    std::vector<long long> start = to_host(dstart, warps), stop = to_host(dstop, warps), cyc = to_host(dcyc, 1);
    std::vector<unsigned> sm = to_host(dsm, warps), out = to_host(dout, size_t(blocks) * kThreads);
    std::vector<unsigned> end = to_host(dend, 32);
    for (int t = 0; t < blocks * kThreads; ++t) {
      const int group = (t & 31) % ways;
      unsigned want = 0;
      for (int k = 0; k < 8; ++k) want += table[group + 32 * k];
      bad += out[t] != want * unsigned(kRounds + 1);
    }
    for (int l = 0; l < 32; ++l) {
      int w = l % ways;
      for (int s = 0; s < kWords + kSteps; ++s) w = int(table[w] / 4);
      bad += end[l] != unsigned(w * 4);
    }
    const double tp = cycles_per_load(start, stop, sm, 8.0 * kRounds);
    const double lat = double(cyc[0]) / kSteps;
    if (ways == 1) base_tp = tp, base_lat = lat;
    std::printf("ways%d_cycles_per_warp_load_per_sm=%.3f\n", ways, tp);
    std::printf("ways%d_cycles_per_address=%.3f\n", ways, tp / ways);
    std::printf("ways%d_throughput_slowdown=%.2f\n", ways, tp / base_tp);
    std::printf("ways%d_latency_cycles=%.2f\n", ways, lat);
    std::printf("ways%d_latency_slowdown=%.2f\n", ways, lat / base_lat);
    bad += !(tp > 0 && lat > 0);
  }
  device_free(dout, dend, dstart, dstop, dcyc, dsm);
  print_timing(ms, launches);
  return verdict("gpu_ubench_const", bad);
}
