// gpu_ubench_mem_bw: DRAM bandwidth in the style of the public GPU
// microbenchmark suites: a streaming read of a 64 MB array (every thread sums
// 16-byte words grid-stride, four loads in flight per step) and a streaming
// copy of it into a second 64 MB array, both far larger than a 6 MB L2. The
// grid fills every SM (two blocks of 1024 threads each). Each kernel is timed
// by a pair of events (GB/s, including the launch) and by clock64() on every
// warp (bytes per clock over the span from the earliest start to the latest
// stop, and that in GB/s at the SM clock). The copy counts its bytes read plus
// written. The self-check is the read's checksum (the sum of all words modulo
// 2^32) against the host's and the copy against the source.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "suite.h"

constexpr size_t kBytes = size_t(64) << 20;  // per array
constexpr int kThreads = 1024;
constexpr int kBlocksPerSm = 2;

__device__ __forceinline__ unsigned word_sum(uint4 v) { return (v.x + v.y) + (v.z + v.w); }

__device__ __forceinline__ void record(long long t0, long long t1, long long* start, long long* stop) {
  if ((threadIdx.x & 31) == 0) {
    int w = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    start[w] = t0;
    stop[w] = t1;
  }
}

__global__ void stream_read(const uint4* src, size_t n, unsigned* sums, long long* start, long long* stop) {
  const size_t step = size_t(gridDim.x) * blockDim.x;
  size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  unsigned acc = 0;
  long long t0 = clock64();
  for (; i + 3 * step < n; i += 4 * step) {
    uint4 a = src[i], b = src[i + step], c = src[i + 2 * step], d = src[i + 3 * step];
    acc += (word_sum(a) + word_sum(b)) + (word_sum(c) + word_sum(d));
  }
  for (; i < n; i += step) acc += word_sum(src[i]);
  long long t1 = clock64();
  sums[blockIdx.x * blockDim.x + threadIdx.x] = acc;
  record(t0, t1, start, stop);
}

__global__ void stream_copy(const uint4* src, uint4* dst, size_t n, long long* start, long long* stop) {
  const size_t step = size_t(gridDim.x) * blockDim.x;
  size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  long long t0 = clock64();
  for (; i + 3 * step < n; i += 4 * step) {
    uint4 a = src[i], b = src[i + step], c = src[i + 2 * step], d = src[i + 3 * step];
    dst[i] = a;
    dst[i + step] = b;
    dst[i + 2 * step] = c;
    dst[i + 3 * step] = d;
  }
  for (; i < n; i += step) dst[i] = src[i];
  long long t1 = clock64();
  record(t0, t1, start, stop);
}

long long span_of(const long long* dstart, const long long* dstop, int warps) {
  std::vector<long long> start = to_host(dstart, warps), stop = to_host(dstop, warps);
  return *std::max_element(stop.begin(), stop.end()) - *std::min_element(start.begin(), start.end());
}

void report(const char* name, double bytes, float ms, long long span, double ghz) {
  std::printf("%s_bytes=%.0f\n", name, bytes);
  std::printf("%s_event_gbps=%.1f\n", name, bytes / (ms * 1e-3) * 1e-9);
  std::printf("%s_span_cycles=%lld\n", name, span);
  std::printf("%s_bytes_per_clk=%.1f\n", name, bytes / double(span));
  std::printf("%s_clock_gbps=%.1f\n", name, bytes / double(span) * ghz);
}

int main() {
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  int clock_khz = 0;
  CHECK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, 0));
  const double ghz = clock_khz * 1e-6;
  const int blocks = prop.multiProcessorCount * kBlocksPerSm;
  const int warps = blocks * kThreads / 32;
  const size_t n = kBytes / sizeof(uint4);

  std::vector<uint32_t> h(kBytes / 4);
  XorShift32 rng(2024);
  uint32_t want_sum = 0;
  for (uint32_t& v : h) {
    v = rng.next();
    want_sum += v;
  }
  uint4* dsrc = device_alloc<uint4>(n);
  CHECK(cudaMemcpy(dsrc, h.data(), kBytes, cudaMemcpyHostToDevice));
  uint4* ddst = device_zeros<uint4>(n);
  unsigned* dsums = device_alloc<unsigned>(size_t(blocks) * kThreads);
  long long *dstart = device_alloc<long long>(warps), *dstop = device_alloc<long long>(warps);
  std::printf("blocks=%d\n", blocks);
  std::printf("threads_per_block=%d\n", kThreads);

  EventTimer t_read;
  t_read.start();
  stream_read<<<blocks, kThreads>>>(dsrc, n, dsums, dstart, dstop);
  CHECK(cudaGetLastError());
  float ms_read = t_read.stop_ms();
  CHECK(cudaDeviceSynchronize());
  long long span_read = span_of(dstart, dstop, warps);
  std::vector<unsigned> sums = to_host(dsums, size_t(blocks) * kThreads);
  uint32_t got_sum = 0;
  for (unsigned s : sums) got_sum += s;

  EventTimer t_copy;
  t_copy.start();
  stream_copy<<<blocks, kThreads>>>(dsrc, ddst, n, dstart, dstop);
  CHECK(cudaGetLastError());
  float ms_copy = t_copy.stop_ms();
  CHECK(cudaDeviceSynchronize());
  long long span_copy = span_of(dstart, dstop, warps);
  std::vector<uint32_t> back(kBytes / 4);
  CHECK(cudaMemcpy(back.data(), ddst, kBytes, cudaMemcpyDeviceToHost));

  long bad = got_sum != want_sum;
  bad += std::memcmp(back.data(), h.data(), kBytes) != 0;
  bad += span_read <= 0 || span_copy <= 0;
  report("mem_read", double(kBytes), ms_read, span_read, ghz);
  report("mem_copy", 2.0 * double(kBytes), ms_copy, span_copy, ghz);
  device_free(dsrc, ddst, dsums, dstart, dstop);
  print_timing(ms_read + ms_copy, 2);
  return verdict("gpu_ubench_mem_bw", bad);
}
