// gpu_ubench_maxflops: two clock64-timed throughput microbenchmarks in the
// style of public GPU microbenchmark suites (Accel-Sim's gpu-microbenchmarks,
// GPU-benches). The first has every thread run a long unrolled chain of
// independent FP32 FMAs in registers (eight accumulators); the second has
// every thread read conflict-free shared memory in a loop. Each warp records
// clock64() at its start and end and the SM it ran on (%smid); the host groups
// the warps by SM and reports FLOP per clock per SM and shared-memory bytes per
// clock per SM. The self-check is only that both rates are finite and positive
// and that the kernels' results are what the arithmetic says.
#include <cmath>
#include <cstdint>
#include <map>
#include <utility>
#include <vector>

#include "suite.h"

constexpr int kThreads = 1024;    // per block, one block per SM
constexpr int kFmaIters = 128;    // outer iterations of the FMA chain
constexpr int kAccs = 8;          // independent accumulators per thread
constexpr int kShmWords = 8192;   // 32 KiB of shared memory
constexpr int kShmIters = 256;    // shared loads per thread

__device__ __forceinline__ unsigned sm_id() {
  unsigned id;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(id));
  return id;
}

// Per warp: start clock, stop clock, SM id (lane 0 writes).
__global__ void max_flops(float* out, long long* start, long long* stop, unsigned* sm, float mul, float add) {
  float acc[kAccs];
#pragma unroll
  for (int r = 0; r < kAccs; ++r) acc[r] = float(threadIdx.x + r);
  __syncthreads();
  long long t0 = clock64();
#pragma unroll 16
  for (int it = 0; it < kFmaIters; ++it) {
#pragma unroll
    for (int r = 0; r < kAccs; ++r) acc[r] = fmaf(acc[r], mul, add);
  }
  __syncthreads();
  long long t1 = clock64();
  float s = 0.0f;
#pragma unroll
  for (int r = 0; r < kAccs; ++r) s += acc[r];
  int gtid = blockIdx.x * blockDim.x + threadIdx.x;
  out[gtid] = s;
  if ((threadIdx.x & 31) == 0) {
    int w = gtid / 32;
    start[w] = t0;
    stop[w] = t1;
    sm[w] = sm_id();
  }
}

__global__ void shared_bw(unsigned* out, long long* start, long long* stop, unsigned* sm) {
  __shared__ unsigned buf[kShmWords];
  for (int i = threadIdx.x; i < kShmWords; i += blockDim.x) buf[i] = i * 3u + 1u;
  __syncthreads();
  unsigned lane = threadIdx.x & 31;
  unsigned sum0 = 0, sum1 = 0;
  long long t0 = clock64();
  // Fully unrolled: each load is one LDS with an immediate offset, lane l of
  // every warp reading bank l (conflict-free, no broadcast).
#pragma unroll
  for (int it = 0; it < kShmIters; it += 2) {
    sum0 += buf[lane + 32 * it];
    sum1 += buf[lane + 32 * (it + 1)];
  }
  __syncthreads();
  long long t1 = clock64();
  int gtid = blockIdx.x * blockDim.x + threadIdx.x;
  out[gtid] = sum0 + sum1;
  if (lane == 0) {
    int w = gtid / 32;
    start[w] = t0;
    stop[w] = t1;
    sm[w] = sm_id();
  }
}

// Units of work per clock per SM: warps grouped by SM, each SM's span from its
// earliest start to its latest stop, work per warp times its warps over that.
double rate_per_sm(const std::vector<long long>& start, const std::vector<long long>& stop,
                   const std::vector<unsigned>& sm, double work_per_warp, long long* max_span) {
  std::map<unsigned, std::pair<long long, long long>> span;
  std::map<unsigned, int> warps;
  for (size_t w = 0; w < sm.size(); ++w) {
    auto it = span.find(sm[w]);
    if (it == span.end())
      span[sm[w]] = {start[w], stop[w]};
    else {
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
    total += cycles > 0 ? work_per_warp * warps[id] / double(cycles) : NAN;
  }
  std::printf("  SMs used: %zu, warps: %zu\n", span.size(), sm.size());
  return total / span.size();
}

int main() {
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  const int blocks = prop.multiProcessorCount;
  const int warps = blocks * kThreads / 32;
  std::printf("device: %s, %d SMs\n", prop.name, blocks);

  float* dout = device_alloc<float>(size_t(blocks) * kThreads);
  unsigned* dsum = device_alloc<unsigned>(size_t(blocks) * kThreads);
  long long *dstart = device_alloc<long long>(warps), *dstop = device_alloc<long long>(warps);
  unsigned* dsm = device_alloc<unsigned>(warps);
  const float mul = 0.999f, add = 0.001f;

  EventTimer timer;
  timer.start();
  max_flops<<<blocks, kThreads>>>(dout, dstart, dstop, dsm, mul, add);
  CHECK(cudaGetLastError());
  float ms = timer.stop_ms();
  CHECK(cudaDeviceSynchronize());
  std::vector<long long> start = to_host(dstart, warps), stop = to_host(dstop, warps);
  std::vector<unsigned> sm = to_host(dsm, warps);
  std::vector<float> out = to_host(dout, size_t(blocks) * kThreads);
  long long span_f;
  double flops = rate_per_sm(start, stop, sm, 32.0 * kFmaIters * kAccs * 2.0, &span_f);
  std::printf("max_flops: %.2f FLOP/clk/SM (FP32 FMA lanes/SM = %.2f), longest SM span %lld clk\n", flops,
              flops / 2, span_f);

  long bad = 0;
  for (int t = 0; t < blocks * kThreads; t += 97) {
    double want = 0.0;
    for (int r = 0; r < kAccs; ++r) {
      float x = float((t % kThreads) + r);
      for (int it = 0; it < kFmaIters; ++it) x = std::fma(x, mul, add);
      want += x;
    }
    bad += !close_enough(out[t], want, 1e-5);
  }

  EventTimer timer2;
  timer2.start();
  shared_bw<<<blocks, kThreads>>>(dsum, dstart, dstop, dsm);
  CHECK(cudaGetLastError());
  float ms2 = timer2.stop_ms();
  CHECK(cudaDeviceSynchronize());
  start = to_host(dstart, warps);
  stop = to_host(dstop, warps);
  sm = to_host(dsm, warps);
  std::vector<unsigned> sums = to_host(dsum, size_t(blocks) * kThreads);
  long long span_s;
  double bw = rate_per_sm(start, stop, sm, 32.0 * kShmIters * 4.0, &span_s);
  std::printf("shared_bw: %.2f B/clk/SM, longest SM span %lld clk\n", bw, span_s);
  for (int t = 0; t < blocks * kThreads; t += 89) {
    unsigned want = 0;
    for (int it = 0; it < kShmIters; ++it) want += (t % 32 + 32 * it) * 3u + 1u;
    bad += sums[t] != want;
  }

  bool ok = std::isfinite(flops) && flops > 0 && std::isfinite(bw) && bw > 0;
  bad += !ok;
  device_free(dout, dsum, dstart, dstop, dsm);
  print_timing(ms + ms2, 2);
  return verdict("gpu_ubench_maxflops", bad);
}
