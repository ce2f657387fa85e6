// gpu_ubench_shared_bw: shared-memory load and store bandwidth per SM in the
// style of the public GPU microbenchmark suites. One block of 1024 threads
// (32 warps) per SM; every thread loads (ld.shared) or stores (st.shared)
// 32, 64 or 128 bits per access, lane l of a warp on the l-th element of a
// contiguous run, so a warp access covers 128, 256 or 512 bytes without bank
// conflicts (one, two or four 128-byte wavefronts). A round is kAccesses
// accesses in one volatile asm block, kThreads elements apart (16, 32 and
// 32 KB of shared memory: the 128-bit rounds use two regions twice), so
// nothing is merged or hoisted; kRounds rounds are timed. Each warp records clock64() after a barrier at the start and
// after one at the end, and %smid; the figure is each SM's bytes over its
// span (earliest start to latest stop), averaged over the SMs, in B/clk/SM.
// A V100 SM's shared memory moves at most 128 B/clk (32 banks x 4 B).
// The self-check: every thread's sum of the loaded values, and every word the
// stores left, against the host's.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <utility>
#include <vector>

#include "suite.h"

constexpr int kThreads = 1024;
constexpr int kAccesses = 4;  // per round (the asm blocks below have 4)
constexpr int kRounds = 32;   // timed rounds
constexpr int kMaxWords = 8192;  // 32 KB of shared memory

// Distinct regions of kThreads elements of T a round touches.
template <typename T>
__host__ __device__ constexpr int regions() {
  return kAccesses * kThreads * int(sizeof(T) / 4) <= kMaxWords ? kAccesses : kMaxWords / (kThreads * int(sizeof(T) / 4));
}

__device__ __forceinline__ unsigned sm_id() {
  unsigned id;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(id));
  return id;
}

// Four loads of 1, 2 or 4 words at shared addresses a[0..3]; their sum.
__device__ __forceinline__ unsigned load_round(const unsigned* a, uint1) {
  unsigned x, y, z, w;
  asm volatile(
      "ld.shared.u32 %0, [%4];\n\t"
      "ld.shared.u32 %1, [%5];\n\t"
      "ld.shared.u32 %2, [%6];\n\t"
      "ld.shared.u32 %3, [%7];"
      : "=r"(x), "=r"(y), "=r"(z), "=r"(w)
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3])
      : "memory");
  return (x + y) + (z + w);
}
__device__ __forceinline__ unsigned load_round(const unsigned* a, uint2) {
  unsigned v[8];
  asm volatile(
      "ld.shared.v2.u32 {%0, %1}, [%8];\n\t"
      "ld.shared.v2.u32 {%2, %3}, [%9];\n\t"
      "ld.shared.v2.u32 {%4, %5}, [%10];\n\t"
      "ld.shared.v2.u32 {%6, %7}, [%11];"
      : "=r"(v[0]), "=r"(v[1]), "=r"(v[2]), "=r"(v[3]), "=r"(v[4]), "=r"(v[5]), "=r"(v[6]), "=r"(v[7])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3])
      : "memory");
  return ((v[0] + v[1]) + (v[2] + v[3])) + ((v[4] + v[5]) + (v[6] + v[7]));
}
__device__ __forceinline__ unsigned load_round(const unsigned* a, uint4) {
  unsigned v[16];
  asm volatile(
      "ld.shared.v4.u32 {%0, %1, %2, %3}, [%16];\n\t"
      "ld.shared.v4.u32 {%4, %5, %6, %7}, [%17];\n\t"
      "ld.shared.v4.u32 {%8, %9, %10, %11}, [%18];\n\t"
      "ld.shared.v4.u32 {%12, %13, %14, %15}, [%19];"
      : "=r"(v[0]), "=r"(v[1]), "=r"(v[2]), "=r"(v[3]), "=r"(v[4]), "=r"(v[5]), "=r"(v[6]), "=r"(v[7]),
        "=r"(v[8]), "=r"(v[9]), "=r"(v[10]), "=r"(v[11]), "=r"(v[12]), "=r"(v[13]), "=r"(v[14]), "=r"(v[15])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3])
      : "memory");
  unsigned s = 0;
#pragma unroll
  for (int i = 0; i < 16; ++i) s += v[i];
  return s;
}

// Four stores of value x in every component.
__device__ __forceinline__ void store_round(const unsigned* a, unsigned x, uint1) {
  asm volatile(
      "st.shared.u32 [%0], %4;\n\t"
      "st.shared.u32 [%1], %4;\n\t"
      "st.shared.u32 [%2], %4;\n\t"
      "st.shared.u32 [%3], %4;" ::"r"(a[0]),
      "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(x)
      : "memory");
}
__device__ __forceinline__ void store_round(const unsigned* a, unsigned x, uint2) {
  asm volatile(
      "st.shared.v2.u32 [%0], {%4, %4};\n\t"
      "st.shared.v2.u32 [%1], {%4, %4};\n\t"
      "st.shared.v2.u32 [%2], {%4, %4};\n\t"
      "st.shared.v2.u32 [%3], {%4, %4};" ::"r"(a[0]),
      "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(x)
      : "memory");
}
__device__ __forceinline__ void store_round(const unsigned* a, unsigned x, uint4) {
  asm volatile(
      "st.shared.v4.u32 [%0], {%4, %4, %4, %4};\n\t"
      "st.shared.v4.u32 [%1], {%4, %4, %4, %4};\n\t"
      "st.shared.v4.u32 [%2], {%4, %4, %4, %4};\n\t"
      "st.shared.v4.u32 [%3], {%4, %4, %4, %4};" ::"r"(a[0]),
      "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(x)
      : "memory");
}

__device__ __forceinline__ void record(long long t0, long long t1, long long* start, long long* stop,
                                       unsigned* sm) {
  if ((threadIdx.x & 31) == 0) {
    int w = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    start[w] = t0;
    stop[w] = t1;
    sm[w] = sm_id();
  }
}

// kStore false: loads of T (uint1, uint2, uint4) from words the block fills
// with their own index; kStore true: stores of the round number, then the
// block's words copied out.
template <typename T, bool kStore>
__global__ void __launch_bounds__(kThreads) shared_bw(int rounds, unsigned* out, long long* start, long long* stop,
                                                      unsigned* sm) {
  constexpr int kWords = sizeof(T) / 4;
  constexpr int kTotal = regions<T>() * kThreads * kWords;
  __shared__ __align__(16) unsigned buf[kMaxWords];
  for (int i = threadIdx.x; i < kTotal; i += kThreads) buf[i] = i;
  __syncthreads();
  unsigned a[kAccesses];
  const unsigned base = static_cast<unsigned>(__cvta_generic_to_shared(buf));
#pragma unroll
  for (int k = 0; k < kAccesses; ++k)
    a[k] = base + unsigned(((k % regions<T>()) * kThreads + threadIdx.x) * sizeof(T));
  unsigned acc = 0;
  __syncthreads();
  long long t0 = clock64();
  if (kStore) {
#pragma unroll 1
    for (int r = 0; r < rounds; ++r) store_round(a, unsigned(r), T{});
  } else {
#pragma unroll 1
    for (int r = 0; r < rounds; ++r) acc += load_round(a, T{});
  }
  __syncthreads();
  long long t1 = clock64();
  record(t0, t1, start, stop, sm);
  if (kStore) {
    for (int i = threadIdx.x; i < kTotal; i += kThreads) out[size_t(blockIdx.x) * kTotal + i] = buf[i];
  } else {
    out[blockIdx.x * kThreads + threadIdx.x] = acc;
  }
}

// Bytes per clock per SM: warps grouped by SM, each SM's span from its
// earliest start to its latest stop; the mean over the SMs.
double per_sm_rate(const std::vector<long long>& start, const std::vector<long long>& stop,
                   const std::vector<unsigned>& sm, double bytes_per_warp, long long* max_span) {
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
  *max_span = 0;
  for (auto& [id, s] : span) {
    long long cycles = s.second - s.first;
    *max_span = std::max(*max_span, cycles);
    total += cycles > 0 ? bytes_per_warp * warps[id] / double(cycles) : NAN;
  }
  return total / double(span.size());
}

template <typename T, bool kStore>
long run(const char* name, int blocks, float* ms) {
  constexpr int kWords = sizeof(T) / 4;
  constexpr int kTotal = regions<T>() * kThreads * kWords;
  const int warps = blocks * kThreads / 32;
  const size_t out_n = kStore ? size_t(blocks) * kTotal : size_t(blocks) * kThreads;
  unsigned* dout = device_zeros<unsigned>(out_n);
  long long *dstart = device_alloc<long long>(warps), *dstop = device_alloc<long long>(warps);
  unsigned* dsm = device_alloc<unsigned>(warps);
  EventTimer timer;
  timer.start();
  shared_bw<T, kStore><<<blocks, kThreads>>>(kRounds, dout, dstart, dstop, dsm);
  CHECK(cudaGetLastError());
  *ms += timer.stop_ms();
  CHECK(cudaDeviceSynchronize());
  std::vector<long long> start = to_host(dstart, warps), stop = to_host(dstop, warps);
  std::vector<unsigned> sm = to_host(dsm, warps), out = to_host(dout, out_n);
  long long span;
  const double bytes_per_warp = 32.0 * sizeof(T) * kAccesses * kRounds;
  double bw = per_sm_rate(start, stop, sm, bytes_per_warp, &span);
  std::printf("%s_bytes_per_clk_per_sm=%.2f\n", name, bw);
  std::printf("%s_longest_sm_span_cycles=%lld\n", name, span);
  long bad = !(std::isfinite(bw) && bw > 0);
  if (kStore) {
    for (size_t i = 0; i < out_n; ++i) bad += out[i] != unsigned(kRounds - 1);
  } else {
    for (int t = 0; t < blocks * kThreads; ++t) {
      const unsigned tid = unsigned(t % kThreads);
      unsigned want = 0;
      for (int k = 0; k < kAccesses; ++k)
        for (int c = 0; c < kWords; ++c) want += unsigned(((k % regions<T>()) * kThreads + tid) * kWords + c);
      bad += out[t] != want * unsigned(kRounds);
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
  std::printf("rounds=%d\n", kRounds);
  float ms = 0.0f;
  long bad = 0;
  bad += run<uint1, false>("shared_load_32", blocks, &ms);
  bad += run<uint2, false>("shared_load_64", blocks, &ms);
  bad += run<uint4, false>("shared_load_128", blocks, &ms);
  bad += run<uint1, true>("shared_store_32", blocks, &ms);
  bad += run<uint2, true>("shared_store_64", blocks, &ms);
  bad += run<uint4, true>("shared_store_128", blocks, &ms);
  print_timing(ms, 6);
  return verdict("gpu_ubench_shared_bw", bad);
}
