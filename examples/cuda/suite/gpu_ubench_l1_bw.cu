// gpu_ubench_l1_bw: L1 data-cache load bandwidth in the style of the public
// GPU microbenchmark suites (their l1_bw_32f, l1_bw_64f and l1_bw_128 in one
// program). One block of 1024 threads per SM reads a small array with
// ld.global.ca, 32-bit (f32), 64-bit (v2.f32) or 128-bit (v4.f32) per thread:
// a warp's load covers 128, 256 or 512 contiguous bytes, and the kLoads loads
// of a round are kThreads elements apart, so the array is 16, 32 or 64 KB and
// stays in the L1. One untimed round brings it in; then kRounds rounds are
// timed. Each warp records clock64() after a barrier at the start and after
// a barrier at the end, and %smid; the host takes each SM's span and reports
// the bytes it loaded over that span (B/clk/SM, averaged over the SMs). The
// self-check is every thread's sum of the loaded values against the host's.
#include <cmath>
#include <cstdint>
#include <map>
#include <utility>
#include <vector>

#include "suite.h"

constexpr int kThreads = 1024;  // per block, one block per SM
constexpr int kLoads = 4;       // loads per round, kThreads elements apart (the asm below has 4)
constexpr int kRounds = 64;     // timed rounds

__device__ __forceinline__ unsigned sm_id() {
  unsigned id;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(id));
  return id;
}

// One round: kLoads (4) cached loads of 1, 2 or 4 floats in one volatile asm
// block, so that all four are issued before any value is used (a sum right
// after each load would stall the warp on every load) and the rounds are not
// merged or hoisted (the same addresses every round); then their sum.
__device__ __forceinline__ void round_of_loads(const float* const* p, float& acc) {
  float a, b, c, d;
  asm volatile(
      "ld.global.ca.f32 %0, [%4];\n\t"
      "ld.global.ca.f32 %1, [%5];\n\t"
      "ld.global.ca.f32 %2, [%6];\n\t"
      "ld.global.ca.f32 %3, [%7];"
      : "=f"(a), "=f"(b), "=f"(c), "=f"(d)
      : "l"(p[0]), "l"(p[1]), "l"(p[2]), "l"(p[3])
      : "memory");
  acc += (a + b) + (c + d);
}
__device__ __forceinline__ void round_of_loads(const float2* const* p, float& acc) {
  float v[8];
  asm volatile(
      "ld.global.ca.v2.f32 {%0, %1}, [%8];\n\t"
      "ld.global.ca.v2.f32 {%2, %3}, [%9];\n\t"
      "ld.global.ca.v2.f32 {%4, %5}, [%10];\n\t"
      "ld.global.ca.v2.f32 {%6, %7}, [%11];"
      : "=f"(v[0]), "=f"(v[1]), "=f"(v[2]), "=f"(v[3]), "=f"(v[4]), "=f"(v[5]), "=f"(v[6]), "=f"(v[7])
      : "l"(p[0]), "l"(p[1]), "l"(p[2]), "l"(p[3])
      : "memory");
  acc += ((v[0] + v[1]) + (v[2] + v[3])) + ((v[4] + v[5]) + (v[6] + v[7]));
}
__device__ __forceinline__ void round_of_loads(const float4* const* p, float& acc) {
  float v[16];
  asm volatile(
      "ld.global.ca.v4.f32 {%0, %1, %2, %3}, [%16];\n\t"
      "ld.global.ca.v4.f32 {%4, %5, %6, %7}, [%17];\n\t"
      "ld.global.ca.v4.f32 {%8, %9, %10, %11}, [%18];\n\t"
      "ld.global.ca.v4.f32 {%12, %13, %14, %15}, [%19];"
      : "=f"(v[0]), "=f"(v[1]), "=f"(v[2]), "=f"(v[3]), "=f"(v[4]), "=f"(v[5]), "=f"(v[6]), "=f"(v[7]),
        "=f"(v[8]), "=f"(v[9]), "=f"(v[10]), "=f"(v[11]), "=f"(v[12]), "=f"(v[13]), "=f"(v[14]), "=f"(v[15])
      : "l"(p[0]), "l"(p[1]), "l"(p[2]), "l"(p[3])
      : "memory");
  float s = 0.0f;
#pragma unroll
  for (int i = 0; i < 16; ++i) s += v[i];
  acc += s;
}

template <typename T>
__global__ void l1_bw(const T* buf, int rounds, float* out, long long* start, long long* stop, unsigned* sm) {
  const T* p[kLoads];
#pragma unroll
  for (int k = 0; k < kLoads; ++k) p[k] = buf + k * kThreads + threadIdx.x;
  float acc = 0.0f;
  round_of_loads(p, acc);  // untimed round: fills the L1
  __syncthreads();
  long long t0 = clock64();
  for (int r = 0; r < rounds; ++r) round_of_loads(p, acc);
  __syncthreads();
  long long t1 = clock64();
  int gtid = blockIdx.x * blockDim.x + threadIdx.x;
  out[gtid] = acc;
  if ((threadIdx.x & 31) == 0) {
    int w = gtid / 32;
    start[w] = t0;
    stop[w] = t1;
    sm[w] = sm_id();
  }
}

// Bytes per clock per SM: warps grouped by SM, each SM's span from its earliest
// start to its latest stop; the mean over the SMs.
double bytes_per_clk_per_sm(const std::vector<long long>& start, const std::vector<long long>& stop,
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

template <typename T>
long run(const char* name, int blocks, float* total_ms) {
  constexpr int kComps = sizeof(T) / sizeof(float);
  const size_t elems = size_t(kLoads) * kThreads;
  const int warps = blocks * kThreads / 32;
  std::vector<float> h(elems * kComps);
  for (size_t i = 0; i < h.size(); ++i) h[i] = float(i % 13);  // small integers: exact sums
  T* dbuf = to_device(reinterpret_cast<const T*>(h.data()), elems);
  float* dout = device_alloc<float>(size_t(blocks) * kThreads);
  long long *dstart = device_alloc<long long>(warps), *dstop = device_alloc<long long>(warps);
  unsigned* dsm = device_alloc<unsigned>(warps);

  EventTimer timer;
  timer.start();
  l1_bw<T><<<blocks, kThreads>>>(dbuf, kRounds, dout, dstart, dstop, dsm);
  CHECK(cudaGetLastError());
  *total_ms += timer.stop_ms();
  CHECK(cudaDeviceSynchronize());

  std::vector<long long> start = to_host(dstart, warps), stop = to_host(dstop, warps);
  std::vector<unsigned> sm = to_host(dsm, warps);
  std::vector<float> out = to_host(dout, size_t(blocks) * kThreads);
  long long span;
  double bw = bytes_per_clk_per_sm(start, stop, sm, 32.0 * sizeof(T) * kLoads * kRounds, &span);
  std::printf("%s_bytes_per_clk_per_sm=%.2f\n", name, bw);
  std::printf("%s_longest_sm_span_cycles=%lld\n", name, span);

  long bad = !(std::isfinite(bw) && bw > 0);
  for (int t = 0; t < blocks * kThreads; ++t) {
    int tid = t % kThreads;
    double want = 0.0;
    for (int k = 0; k < kLoads; ++k)
      for (int c = 0; c < kComps; ++c) want += h[(size_t(k) * kThreads + tid) * kComps + c];
    want *= kRounds + 1;
    bad += out[t] != float(want);
  }
  device_free(dbuf, dout, dstart, dstop, dsm);
  return bad;
}

int main() {
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  const int blocks = prop.multiProcessorCount;
  std::printf("blocks=%d\n", blocks);
  std::printf("threads_per_block=%d\n", kThreads);
  float ms = 0.0f;
  long bad = run<float>("l1_bw_32f", blocks, &ms);
  bad += run<float2>("l1_bw_64f", blocks, &ms);
  bad += run<float4>("l1_bw_128", blocks, &ms);
  print_timing(ms, 3);
  return verdict("gpu_ubench_l1_bw", bad);
}
