// gpu_ubench_dram_write: GPU-wide streaming write bandwidth and read+write
// copy bandwidth of device memory, in the style of the public GPU
// microbenchmark suites (a STREAM-like fill and copy).
//  - write: two blocks of 1024 threads per SM store a 64 MB array, 16 B per
//    lane per store (st.global.v4, a warp's store covers 512 contiguous
//    bytes), in a grid-stride loop; every byte written once.
//  - copy: the same grid copies a 64 MB array into another (64 MB read and
//    64 MB written: 128 MB of traffic).
// Both arrays are far larger than the 6 MB L2, so the traffic goes to DRAM;
// at the kernel's end up to the L2's size of written data may still be in
// the L2 (write-back), which the _dram_only figures leave out (bytes less
// 6 MB, an upper estimate of what the L2 held back). Figures: bytes over the
// event-timed kernel (launch latency included) and over the kernel's own
// span (earliest clock64() at a warp's start to the latest at a warp's end,
// as the SM clock runs), in GB/s. The bound is the DRAM's peak, 870 GB/s on
// a Quadro GV100 / V100 (HBM2, 4096 bits at 850 MHz double data rate).
// The self-check: every word of both destination arrays.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "suite.h"

constexpr int kThreads = 1024;
constexpr int kBlocksPerSm = 2;
constexpr size_t kBytes = size_t(64) << 20;
constexpr size_t kVecs = kBytes / 16;
constexpr double kL2Bytes = 6.0 * 1024 * 1024;

__device__ __forceinline__ void record(long long t0, long long t1, long long* start, long long* stop) {
  if ((threadIdx.x & 31) == 0) {
    int w = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    start[w] = t0;
    stop[w] = t1;
  }
}

__global__ void __launch_bounds__(kThreads) fill(uint4* dst, size_t n, long long* start, long long* stop) {
  long long t0 = clock64();
  const size_t stride = size_t(gridDim.x) * blockDim.x;
#pragma unroll 4
  for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    unsigned v = unsigned(i);
    dst[i] = make_uint4(v, v ^ 0x55555555u, v + 7u, ~v);
  }
  long long t1 = clock64();
  record(t0, t1, start, stop);
}

__global__ void __launch_bounds__(kThreads) copy(const uint4* __restrict__ src, uint4* __restrict__ dst, size_t n,
                                                 long long* start, long long* stop) {
  long long t0 = clock64();
  const size_t stride = size_t(gridDim.x) * blockDim.x;
#pragma unroll 4
  for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) dst[i] = src[i];
  long long t1 = clock64();
  record(t0, t1, start, stop);
}

long long span_of(const long long* dstart, const long long* dstop, int warps) {
  std::vector<long long> start = to_host(dstart, warps), stop = to_host(dstop, warps);
  return *std::max_element(stop.begin(), stop.end()) - *std::min_element(start.begin(), start.end());
}

void report(const char* name, double bytes, float ms, long long cycles, double clock_ghz) {
  const double span_s = double(cycles) / (clock_ghz * 1e9);
  std::printf("%s_bytes=%.0f\n", name, bytes);
  std::printf("%s_kernel_us=%.2f\n", name, ms * 1000.0);
  std::printf("%s_span_cycles=%lld\n", name, cycles);
  std::printf("%s_event_gbps=%.1f\n", name, bytes / (ms * 1e-3) / 1e9);
  std::printf("%s_span_gbps=%.1f\n", name, bytes / span_s / 1e9);
  std::printf("%s_span_gbps_dram_only=%.1f\n", name, (bytes - kL2Bytes) / span_s / 1e9);
}

int main() {
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  int khz = 0;
  CHECK(cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, 0));
  const double clock_ghz = khz / 1e6;
  const int blocks = prop.multiProcessorCount * kBlocksPerSm;
  const int warps = blocks * kThreads / 32;
  std::printf("blocks=%d\n", blocks);
  std::printf("threads_per_block=%d\n", kThreads);
  std::printf("array_bytes=%zu\n", kBytes);

  std::vector<uint4> h(kVecs);
  for (size_t i = 0; i < kVecs; ++i) {
    unsigned v = unsigned(i * 2654435761u);
    h[i] = make_uint4(v, v + 1u, v + 2u, v + 3u);
  }
  uint4* dsrc = to_device(h);
  uint4* ddst = device_zeros<uint4>(kVecs);
  uint4* dfill = device_zeros<uint4>(kVecs);
  long long *dstart = device_alloc<long long>(warps), *dstop = device_alloc<long long>(warps);
  float ms = 0.0f;
  long bad = 0;

  EventTimer t1;
  t1.start();
  fill<<<blocks, kThreads>>>(dfill, kVecs, dstart, dstop);
  CHECK(cudaGetLastError());
  float fill_ms = t1.stop_ms();
  CHECK(cudaDeviceSynchronize());
  report("write", double(kBytes), fill_ms, span_of(dstart, dstop, warps), clock_ghz);

  EventTimer t2;
  t2.start();
  copy<<<blocks, kThreads>>>(dsrc, ddst, kVecs, dstart, dstop);
  CHECK(cudaGetLastError());
  float copy_ms = t2.stop_ms();
  CHECK(cudaDeviceSynchronize());
  report("copy", 2.0 * double(kBytes), copy_ms, span_of(dstart, dstop, warps), clock_ghz);
  ms = fill_ms + copy_ms;

  std::vector<uint4> out = to_host(dfill, kVecs);
  for (size_t i = 0; i < kVecs; ++i) {
    unsigned v = unsigned(i);
    bad += out[i].x != v || out[i].y != (v ^ 0x55555555u) || out[i].z != v + 7u || out[i].w != ~v;
  }
  out = to_host(ddst, kVecs);
  for (size_t i = 0; i < kVecs; ++i)
    bad += out[i].x != h[i].x || out[i].y != h[i].y || out[i].z != h[i].z || out[i].w != h[i].w;
  device_free(dsrc, ddst, dfill, dstart, dstop);
  print_timing(ms, 2);
  return verdict("gpu_ubench_dram_write", bad);
}
