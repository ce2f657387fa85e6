// gpu_ubench_l2_bw: L2 load bandwidth of the whole GPU in the style of the
// public GPU microbenchmark suites (their l2_bw_32f, l2_bw_64f and l2_bw_128
// in one program). One block per SM; every thread reads with ld.global.cg
// (cached in the L2 only, so every load goes to the L2), 32-bit, 64-bit or
// 128-bit wide, a warp's load covering 128, 256 or 512 contiguous bytes. Each
// block owns a 32 KB region of kSlots slots (512, 256 or 128 threads times
// the width: 2 KB), 2.5 MB in all with 80 SMs: beyond any L1, well inside a
// 6 MB L2. An iteration reads all kSlots slots once (the offsets are
// constants), so no address is read twice among the loads a warp has in
// flight: ptxas (and the simulator, which schedules PTX as ptxas does) issues
// a block's loads ahead of the sums, and two loads of one sector in flight
// from one SM are merged by the L1's miss handling into one L2 request, which
// would overstate the L2's bandwidth. One untimed iteration brings the region
// into the L2; kIters iterations are timed. Each warp records clock64() after
// a barrier at its block's start and end; the figure is all the bytes loaded
// over the span from the earliest start to the latest stop on the GPU (B/clk),
// and in GB/s at the SM clock. The self-check is every thread's sum of the
// loaded values against the host's.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "suite.h"

constexpr int kSlots = 16;         // loads per iteration, one per slot
constexpr int kSlotBytes = 2048;   // per block: threads x load width
constexpr int kIters = 16;         // timed iterations

// One cached-in-L2 load of 1, 2 or 4 floats, returned as their sum; volatile
// so that the iterations are not merged or hoisted (the same addresses each).
__device__ __forceinline__ float load_cg(const float* p) {
  float a;
  asm volatile("ld.global.cg.f32 %0, [%1];" : "=f"(a) : "l"(p) : "memory");
  return a;
}
__device__ __forceinline__ float load_cg(const float2* p) {
  float a, b;
  asm volatile("ld.global.cg.v2.f32 {%0, %1}, [%2];" : "=f"(a), "=f"(b) : "l"(p) : "memory");
  return a + b;
}
__device__ __forceinline__ float load_cg(const float4* p) {
  float a, b, c, d;
  asm volatile("ld.global.cg.v4.f32 {%0, %1, %2, %3}, [%4];" : "=f"(a), "=f"(b), "=f"(c), "=f"(d) : "l"(p) : "memory");
  return (a + b) + (c + d);
}

template <typename T, int kThreads>
__device__ __forceinline__ float one_iteration(const T* p) {
  float v[kSlots];
#pragma unroll
  for (int j = 0; j < kSlots; ++j) v[j] = load_cg(p + j * kThreads);
  float s = 0.0f;
#pragma unroll
  for (int j = 0; j < kSlots; ++j) s += v[j];
  return s;
}

template <typename T, int kThreads>
__global__ void __launch_bounds__(kThreads) l2_bw(const T* buf, int iters, float* out, long long* start,
                                                  long long* stop) {
  const T* p = buf + size_t(blockIdx.x) * kSlots * kThreads + threadIdx.x;
  float acc = one_iteration<T, kThreads>(p);  // untimed: the region into the L2
  __syncthreads();
  long long t0 = clock64();
#pragma unroll 1
  for (int i = 0; i < iters; ++i) acc += one_iteration<T, kThreads>(p);
  __syncthreads();
  long long t1 = clock64();
  const int gtid = blockIdx.x * kThreads + threadIdx.x;
  out[gtid] = acc;
  if ((threadIdx.x & 31) == 0) {
    start[gtid / 32] = t0;
    stop[gtid / 32] = t1;
  }
}

template <typename T>
long run(const char* name, int blocks, double clock_ghz, float* total_ms) {
  constexpr int kComps = sizeof(T) / sizeof(float);
  constexpr int kThreads = kSlotBytes / sizeof(T);
  const size_t threads = size_t(blocks) * kThreads;
  const size_t elems = threads * kSlots;
  const int warps = int(threads / 32);
  std::vector<float> h(elems * kComps);
  for (size_t i = 0; i < h.size(); ++i) h[i] = float(i % 11);  // small integers: exact sums
  T* dbuf = to_device(reinterpret_cast<const T*>(h.data()), elems);
  float* dout = device_alloc<float>(threads);
  long long *dstart = device_alloc<long long>(warps), *dstop = device_alloc<long long>(warps);

  EventTimer timer;
  timer.start();
  l2_bw<T, kThreads><<<blocks, kThreads>>>(dbuf, kIters, dout, dstart, dstop);
  CHECK(cudaGetLastError());
  *total_ms += timer.stop_ms();
  CHECK(cudaDeviceSynchronize());

  std::vector<long long> start = to_host(dstart, warps), stop = to_host(dstop, warps);
  std::vector<float> out = to_host(dout, threads);
  const long long span = *std::max_element(stop.begin(), stop.end()) - *std::min_element(start.begin(), start.end());
  const double bytes = double(elems) * sizeof(T) * kIters;
  const double bpc = span > 0 ? bytes / double(span) : NAN;
  std::printf("%s_footprint_bytes=%zu\n", name, elems * sizeof(T));
  std::printf("%s_span_cycles=%lld\n", name, span);
  std::printf("%s_bytes_per_clk=%.1f\n", name, bpc);
  std::printf("%s_gbps=%.1f\n", name, bpc * clock_ghz);

  long bad = !(std::isfinite(bpc) && bpc > 0);
  for (size_t t = 0; t < threads; ++t) {
    const size_t block = t / kThreads, tid = t % kThreads;
    double want = 0.0;
    for (int j = 0; j < kSlots; ++j)
      for (int c = 0; c < kComps; ++c) want += h[((block * kSlots + j) * kThreads + tid) * kComps + c];
    bad += out[t] != float(want * (kIters + 1));
  }
  device_free(dbuf, dout, dstart, dstop);
  return bad;
}

int main() {
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  int clock_khz = 0;
  CHECK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, 0));
  const int blocks = prop.multiProcessorCount;
  const double ghz = clock_khz * 1e-6;
  std::printf("blocks=%d\n", blocks);
  std::printf("l2_bytes=%d\n", prop.l2CacheSize);
  float ms = 0.0f;
  long bad = run<float>("l2_bw_32f", blocks, ghz, &ms);
  bad += run<float2>("l2_bw_64f", blocks, ghz, &ms);
  bad += run<float4>("l2_bw_128", blocks, ghz, &ms);
  print_timing(ms, 3);
  return verdict("gpu_ubench_l2_bw", bad);
}
