// gpu_ubench_local: local-memory bandwidth and latency in the style of the
// public GPU microbenchmark suites. Every thread owns an array of kLocal
// 32-bit words whose address escapes into inline asm, so it lives in local
// memory (the PTX's __local_depot), not in registers.
//  - bandwidth: one block of 1024 threads per SM (64 KB of local data per
//    SM: it fits the L1); every thread loads (ld.local) or stores (st.local)
//    its kLocal words, kRounds times, from volatile asm at constant offsets.
//    Local memory is interleaved by the hardware so that the same word of
//    the 32 threads of a warp is 128 contiguous bytes: a warp access moves
//    128 B, four sectors. A third variant loads with a C++ index computed
//    from kernel arguments ((i * step + off) mod kLocal), as spilled or
//    dynamically indexed arrays are read. Each SM's span (clock64() after a
//    barrier at the start and at the end) over its bytes: B/clk/SM, the mean
//    over the SMs; the L1 moves at most 128 B/clk/SM.
//  - latency: one thread follows a ring through its local array, each
//    64-bit word holding the local address of the next (ld.local.u64 of the
//    address just loaded): cycles per step, which should be the L1 hit
//    latency (28 cycles on a V100, Jia et al. 2018).
// The self-check: every thread's sums and stored words, the ring's end.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <utility>
#include <vector>

#include "suite.h"

constexpr int kThreads = 1024;
constexpr int kLocal = 16;     // words per thread (64 B)
constexpr int kRounds = 16;    // timed passes over the array
constexpr int kRing = 16;      // latency ring: 64-bit words
constexpr int kSteps = 256;

__device__ __forceinline__ unsigned sm_id() {
  unsigned id;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(id));
  return id;
}

__device__ __forceinline__ unsigned long long local_addr(const void* p) {
  unsigned long long a;
  asm("cvta.to.local.u64 %0, %1;" : "=l"(a) : "l"(p));
  return a;
}

// Eight loads of the words at a + 0, 4, ..., 28; their sum.
__device__ __forceinline__ unsigned eight_loads(unsigned long long a) {
  unsigned v[8];
  asm volatile(
      "ld.local.u32 %0, [%8];\n\t"
      "ld.local.u32 %1, [%8+4];\n\t"
      "ld.local.u32 %2, [%8+8];\n\t"
      "ld.local.u32 %3, [%8+12];\n\t"
      "ld.local.u32 %4, [%8+16];\n\t"
      "ld.local.u32 %5, [%8+20];\n\t"
      "ld.local.u32 %6, [%8+24];\n\t"
      "ld.local.u32 %7, [%8+28];"
      : "=r"(v[0]), "=r"(v[1]), "=r"(v[2]), "=r"(v[3]), "=r"(v[4]), "=r"(v[5]), "=r"(v[6]), "=r"(v[7])
      : "l"(a)
      : "memory");
  return ((v[0] + v[1]) + (v[2] + v[3])) + ((v[4] + v[5]) + (v[6] + v[7]));
}

__device__ __forceinline__ void eight_stores(unsigned long long a, unsigned x) {
  asm volatile(
      "st.local.u32 [%0], %1;\n\t"
      "st.local.u32 [%0+4], %1;\n\t"
      "st.local.u32 [%0+8], %1;\n\t"
      "st.local.u32 [%0+12], %1;\n\t"
      "st.local.u32 [%0+16], %1;\n\t"
      "st.local.u32 [%0+20], %1;\n\t"
      "st.local.u32 [%0+24], %1;\n\t"
      "st.local.u32 [%0+28], %1;" ::"l"(a),
      "r"(x)
      : "memory");
}

// mode 0: asm loads; 1: asm stores; 2: C++ indexed loads (step, off from the host).
template <int kMode>
__global__ void __launch_bounds__(kThreads) local_bw(int rounds, int step, int off, unsigned* out, long long* start,
                                                     long long* stop, unsigned* sm) {
  unsigned arr[kLocal];
  const unsigned long long a = local_addr(arr);
#pragma unroll 1
  for (int i = 0; i < kLocal; ++i) arr[(i * step + off) % kLocal] = threadIdx.x + (i * step + off) % kLocal;
  unsigned acc = 0;
  if (kMode != 1) acc += eight_loads(a) + eight_loads(a + 32);  // untimed: the lines into the L1
  __syncthreads();
  long long t0 = clock64();
  if (kMode == 0) {
#pragma unroll 1
    for (int r = 0; r < rounds; ++r) acc += eight_loads(a) + eight_loads(a + 32);
  } else if (kMode == 1) {
#pragma unroll 1
    for (int r = 0; r < rounds; ++r) {
      eight_stores(a, unsigned(r));
      eight_stores(a + 32, unsigned(r));
    }
  } else {
#pragma unroll 1
    for (int r = 0; r < rounds; ++r) {
#pragma unroll
      for (int i = 0; i < kLocal; ++i) acc += arr[(i * step + off + r) % kLocal];
    }
  }
  __syncthreads();
  long long t1 = clock64();
  const int gtid = blockIdx.x * kThreads + threadIdx.x;
  if (kMode == 1) {
#pragma unroll 1
    for (int i = 0; i < kLocal; ++i) out[size_t(i) * gridDim.x * kThreads + gtid] = arr[(i * step + off) % kLocal];
  } else {
    out[gtid] = acc;
  }
  if ((threadIdx.x & 31) == 0) {
    start[gtid / 32] = t0;
    stop[gtid / 32] = t1;
    sm[gtid / 32] = sm_id();
  }
}

__global__ void local_latency(int steps, int hop, unsigned long long* end, long long* cycles) {
  unsigned long long ring[kRing];
  const unsigned long long base = local_addr(ring);
#pragma unroll 1
  for (int i = 0; i < kRing; ++i) ring[i] = base + 8ull * ((i + hop) % kRing);
  unsigned long long a = base;
#pragma unroll 1
  for (int i = 0; i < kRing; ++i) asm volatile("ld.local.u64 %0, [%0];" : "+l"(a)::"memory");  // untimed lap
  long long t0 = clock64();
#pragma unroll 16
  for (int i = 0; i < steps; ++i) asm volatile("ld.local.u64 %0, [%0];" : "+l"(a)::"memory");
  long long t1 = clock64();
  end[0] = (a - base) / 8;
  cycles[0] = t1 - t0;
}

double per_sm_rate(const std::vector<long long>& start, const std::vector<long long>& stop,
                   const std::vector<unsigned>& sm, double bytes_per_warp) {
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
  return total / double(span.size());
}

template <int kMode>
long run(const char* name, int blocks, float* ms) {
  const int warps = blocks * kThreads / 32;
  const int threads = blocks * kThreads;
  const int step = 5, off = 3;  // 5 is odd: i * 5 + 3 visits every word mod 16
  const size_t out_n = kMode == 1 ? size_t(threads) * kLocal : size_t(threads);
  unsigned* dout = device_zeros<unsigned>(out_n);
  long long *dstart = device_alloc<long long>(warps), *dstop = device_alloc<long long>(warps);
  unsigned* dsm = device_alloc<unsigned>(warps);
  EventTimer timer;
  timer.start();
  local_bw<kMode><<<blocks, kThreads>>>(kRounds, step, off, dout, dstart, dstop, dsm);
  CHECK(cudaGetLastError());
  *ms += timer.stop_ms();
  CHECK(cudaDeviceSynchronize());
  std::vector<long long> start = to_host(dstart, warps), stop = to_host(dstop, warps);
  std::vector<unsigned> sm = to_host(dsm, warps), out = to_host(dout, out_n);
  const double bw = per_sm_rate(start, stop, sm, 32.0 * 4 * kLocal * kRounds);
  std::printf("%s_bytes_per_clk_per_sm=%.2f\n", name, bw);
  long bad = !(std::isfinite(bw) && bw > 0);
  for (int t = 0; t < threads; ++t) {
    const unsigned tid = unsigned(t % kThreads);
    if (kMode == 1) {
      for (int i = 0; i < kLocal; ++i) bad += out[size_t(i) * threads + t] != unsigned(kRounds - 1);
    } else {
      // every pass reads each word w (= tid + w) once
      const unsigned pass = kLocal * tid + kLocal * (kLocal - 1) / 2;
      const unsigned passes = kRounds + 1;  // the untimed pass too
      bad += out[t] != pass * passes;
    }
  }
  device_free(dout, dstart, dstop, dsm);
  return bad;
}

int main() {
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  const int blocks = prop.multiProcessorCount;
  std::printf("blocks=%d\n", blocks);
  std::printf("threads_per_block=%d\n", kThreads);
  std::printf("local_bytes_per_thread=%d\n", kLocal * 4);
  float ms = 0.0f;
  long bad = 0;
  bad += run<0>("local_load", blocks, &ms);
  bad += run<1>("local_store", blocks, &ms);
  bad += run<2>("local_load_indexed", blocks, &ms);

  unsigned long long* dend = device_alloc<unsigned long long>(1);
  long long* dcyc = device_alloc<long long>(1);
  const int hop = 5;
  EventTimer timer;
  timer.start();
  local_latency<<<1, 1>>>(kSteps, hop, dend, dcyc);
  CHECK(cudaGetLastError());
  ms += timer.stop_ms();
  CHECK(cudaDeviceSynchronize());
  const unsigned long long end = to_host(dend, 1)[0];
  const long long cyc = to_host(dcyc, 1)[0];
  bad += end != (unsigned long long)((size_t(kRing + kSteps) * hop) % kRing) || cyc <= 0;
  std::printf("local_latency_cycles=%.2f\n", double(cyc) / kSteps);
  device_free(dend, dcyc);
  print_timing(ms, 4);
  return verdict("gpu_ubench_local", bad);
}
