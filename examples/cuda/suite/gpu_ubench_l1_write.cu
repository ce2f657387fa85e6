// gpu_ubench_l1_write: global store bandwidth per SM and a store-then-load
// latency, in the style of the public GPU microbenchmark suites.
//  - bandwidth: blocks of 1024 threads, one per SM; every thread issues
//    kRounds rounds of four st.global (volatile asm, 32-bit or 128-bit per
//    lane, a warp's store covering 128 or 512 contiguous bytes) into its
//    block's own region (16 or 64 KB; all blocks together well inside the
//    L2, so the stores end as L2 write hits). The L1 writes through: every
//    stored sector travels to the L2. Each SM's span (clock64() after a
//    barrier at the start and one at the end) over the bytes its warps
//    stored: B/clk/SM, averaged over the SMs; with one block (one SM alone)
//    and with one block per SM (all SMs at once, also as GB/s for the GPU).
//    In the model an SM sends at most one 32 B sector a clock towards the
//    L2 (32 B/clk/SM); with every SM storing, the L2's 64 slices taking a
//    sector a clock each bound the GPU at 2048 B/clk (25.6 B/clk/SM).
//  - latency: one thread, three chains of kSteps steps each: ld.global.ca of
//    a word in the L1 whose value is the next address (the L1 hit latency);
//    the same with ld.global.cg (from the L2); and st.global of a counter to
//    one word then ld.global.ca of that word, plus one (a store followed by
//    a load of what it wrote): cycles per step.
// The self-check: every stored word against the last round's value, each
// chain's end against the host's.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <utility>
#include <vector>

#include "suite.h"

constexpr int kThreads = 1024;
constexpr int kStores = 4;      // per round (the asm blocks below have 4)
constexpr int kRounds = 16;     // timed rounds
constexpr int kSteps = 256;     // latency chains
constexpr int kRing = 32;       // ring words, 128 B apart (4 KB)

__device__ __forceinline__ unsigned sm_id() {
  unsigned id;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(id));
  return id;
}

__device__ __forceinline__ void store_round(unsigned* const* p, unsigned x, uint1) {
  asm volatile(
      "st.global.u32 [%0], %4;\n\t"
      "st.global.u32 [%1], %4;\n\t"
      "st.global.u32 [%2], %4;\n\t"
      "st.global.u32 [%3], %4;" ::"l"(p[0]),
      "l"(p[1]), "l"(p[2]), "l"(p[3]), "r"(x)
      : "memory");
}
__device__ __forceinline__ void store_round(unsigned* const* p, unsigned x, uint4) {
  asm volatile(
      "st.global.v4.u32 [%0], {%4, %4, %4, %4};\n\t"
      "st.global.v4.u32 [%1], {%4, %4, %4, %4};\n\t"
      "st.global.v4.u32 [%2], {%4, %4, %4, %4};\n\t"
      "st.global.v4.u32 [%3], {%4, %4, %4, %4};" ::"l"(p[0]),
      "l"(p[1]), "l"(p[2]), "l"(p[3]), "r"(x)
      : "memory");
}

// T: uint1 or uint4. Block b stores into words [b * kStores * kThreads * W, ...).
template <typename T>
__global__ void __launch_bounds__(kThreads) store_bw(unsigned* buf, int rounds, long long* start, long long* stop,
                                                     unsigned* sm) {
  constexpr int kWords = sizeof(T) / 4;
  unsigned* p[kStores];
#pragma unroll
  for (int k = 0; k < kStores; ++k)
    p[k] = buf + (size_t(blockIdx.x) * kStores * kThreads + k * kThreads + threadIdx.x) * kWords;
  __syncthreads();
  long long t0 = clock64();
#pragma unroll 1
  for (int r = 0; r < rounds; ++r) store_round(p, unsigned(r + 1), T{});
  __syncthreads();
  long long t1 = clock64();
  if ((threadIdx.x & 31) == 0) {
    int w = (blockIdx.x * kThreads + threadIdx.x) / 32;
    start[w] = t0;
    stop[w] = t1;
    sm[w] = sm_id();
  }
}

// ring: kRing words 128 B apart in buf, word k holding the address of word k+1.
__global__ void load_chains(unsigned long long* ring, unsigned* counter, int steps, unsigned long long* ends,
                            long long* cycles) {
  unsigned long long a = reinterpret_cast<unsigned long long>(ring);
#pragma unroll 1
  for (int i = 0; i < kRing; ++i)  // untimed lap: the ring into the L1
    asm volatile("ld.global.ca.u64 %0, [%0];" : "+l"(a)::"memory");
  long long t0 = clock64();
#pragma unroll 16
  for (int i = 0; i < steps; ++i) asm volatile("ld.global.ca.u64 %0, [%0];" : "+l"(a)::"memory");
  long long t1 = clock64();
  ends[0] = a;
  cycles[0] = t1 - t0;

  long long t2 = clock64();
#pragma unroll 16
  for (int i = 0; i < steps; ++i) asm volatile("ld.global.cg.u64 %0, [%0];" : "+l"(a)::"memory");
  long long t3 = clock64();
  ends[1] = a;
  cycles[1] = t3 - t2;

  unsigned v = 0;
  asm volatile("st.global.u32 [%0], %1;" ::"l"(counter), "r"(v) : "memory");
  asm volatile("ld.global.ca.u32 %0, [%1];" : "=r"(v) : "l"(counter) : "memory");
  long long t4 = clock64();
#pragma unroll 16
  for (int i = 0; i < steps; ++i) {
    asm volatile("st.global.u32 [%0], %1;" ::"l"(counter), "r"(v + 1u) : "memory");
    asm volatile("ld.global.ca.u32 %0, [%1];" : "=r"(v) : "l"(counter) : "memory");
  }
  long long t5 = clock64();
  ends[2] = v;
  cycles[2] = t5 - t4;
}

// Bytes per clock per SM: warps grouped by SM, each SM's span from its
// earliest start to its latest stop; the mean over the SMs. gpu_span: the
// span from the earliest start to the latest stop of all.
double per_sm_rate(const std::vector<long long>& start, const std::vector<long long>& stop,
                   const std::vector<unsigned>& sm, double bytes_per_warp, long long* gpu_span) {
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
  for (auto& [id, s] : span) total += bytes_per_warp * warps[id] / double(s.second - s.first);
  *gpu_span = *std::max_element(stop.begin(), stop.end()) - *std::min_element(start.begin(), start.end());
  return total / double(span.size());
}

template <typename T>
long run(const char* name, int blocks, double clock_ghz, float* ms) {
  constexpr int kWords = sizeof(T) / 4;
  const size_t words = size_t(blocks) * kStores * kThreads * kWords;
  const int warps = blocks * kThreads / 32;
  unsigned* dbuf = device_zeros<unsigned>(words);
  long long *dstart = device_alloc<long long>(warps), *dstop = device_alloc<long long>(warps);
  unsigned* dsm = device_alloc<unsigned>(warps);
  EventTimer timer;
  timer.start();
  store_bw<T><<<blocks, kThreads>>>(dbuf, kRounds, dstart, dstop, dsm);
  CHECK(cudaGetLastError());
  *ms += timer.stop_ms();
  CHECK(cudaDeviceSynchronize());
  std::vector<long long> start = to_host(dstart, warps), stop = to_host(dstop, warps);
  std::vector<unsigned> sm = to_host(dsm, warps), out = to_host(dbuf, words);
  long long gpu_span;
  const double bytes_per_warp = 32.0 * sizeof(T) * kStores * kRounds;
  const double bw = per_sm_rate(start, stop, sm, bytes_per_warp, &gpu_span);
  const double gpu_bpc = bytes_per_warp * warps / double(gpu_span);
  std::printf("%s_blocks=%d\n", name, blocks);
  std::printf("%s_bytes_per_clk_per_sm=%.2f\n", name, bw);
  std::printf("%s_gpu_bytes_per_clk=%.1f\n", name, gpu_bpc);
  std::printf("%s_gpu_gbps=%.1f\n", name, gpu_bpc * clock_ghz);
  long bad = !(std::isfinite(bw) && bw > 0);
  for (unsigned v : out) bad += v != unsigned(kRounds);
  device_free(dbuf, dstart, dstop, dsm);
  return bad;
}

int main() {
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  const int sms = prop.multiProcessorCount;
  int khz = 0;
  CHECK(cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, 0));
  const double clock_ghz = khz / 1e6;
  std::printf("sms=%d\n", sms);
  std::printf("threads_per_block=%d\n", kThreads);
  std::printf("rounds=%d\n", kRounds);
  float ms = 0.0f;
  int launches = 0;
  long bad = 0;
  bad += run<uint1>("store_32_one_sm", 1, clock_ghz, &ms);
  bad += run<uint4>("store_128_one_sm", 1, clock_ghz, &ms);
  bad += run<uint1>("store_32_all_sms", sms, clock_ghz, &ms);
  bad += run<uint4>("store_128_all_sms", sms, clock_ghz, &ms);
  launches += 4;

  // The ring: word k (at k * 128 B) holds the address of word k + 1.
  const int stride = 128 / 8;
  unsigned long long* dring = device_zeros<unsigned long long>(size_t(kRing) * stride);
  unsigned* dcounter = device_zeros<unsigned>(1);
  std::vector<unsigned long long> ring(size_t(kRing) * stride, 0);
  const unsigned long long base = reinterpret_cast<unsigned long long>(dring);
  for (int k = 0; k < kRing; ++k) ring[size_t(k) * stride] = base + ((k + 1) % kRing) * 128ull;
  copy_to_device(dring, ring);
  unsigned long long* dends = device_alloc<unsigned long long>(3);
  long long* dcyc = device_alloc<long long>(3);
  EventTimer timer;
  timer.start();
  load_chains<<<1, 1>>>(dring, dcounter, kSteps, dends, dcyc);
  CHECK(cudaGetLastError());
  ms += timer.stop_ms();
  ++launches;
  CHECK(cudaDeviceSynchronize());
  std::vector<unsigned long long> ends = to_host(dends, 3);
  std::vector<long long> cyc = to_host(dcyc, 3);
  bad += ends[0] != base + ((kRing + kSteps) % kRing) * 128ull;
  bad += ends[1] != base + ((kRing + 2 * kSteps) % kRing) * 128ull;
  bad += ends[2] != unsigned(kSteps);
  std::printf("l1_hit_latency_cycles=%.2f\n", double(cyc[0]) / kSteps);
  std::printf("l2_hit_latency_cycles=%.2f\n", double(cyc[1]) / kSteps);
  std::printf("store_then_load_cycles=%.2f\n", double(cyc[2]) / kSteps);
  for (long long c : cyc) bad += !(c > 0);
  device_free(dring, dcounter, dends, dcyc);
  print_timing(ms, launches);
  return verdict("gpu_ubench_l1_write", bad);
}
