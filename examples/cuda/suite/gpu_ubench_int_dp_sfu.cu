// gpu_ubench_int_dp_sfu: instruction throughput of the integer multiply-add,
// FP64 FMA and special-function units in the style of the public GPU
// microbenchmark suites. One block of 1024 threads per SM; every thread runs
// kChains independent chains in registers, kIters steps each:
//  - IMAD: x = x * m + a (mad.lo.u32), m and a kernel arguments;
//  - DFMA: x = fma(x, m, a) in double;
//  - MUFU: x = rsqrt(x) (rsqrt.approx.f32; the chain tends to 1).
// Each warp records clock64() after a barrier at the start and after one at the
// end, and %smid; the host groups the warps by SM and reports operations per
// clock per SM (one operation = one thread's instruction). The self-check is
// every result against the host (IMAD exactly, DFMA exactly: fma is correctly
// rounded, MUFU within 1e-5 of the host's 1/sqrt chain) on sampled threads.
#include <cmath>
#include <cstdint>
#include <map>
#include <utility>
#include <vector>

#include "suite.h"

constexpr int kThreads = 1024;  // per block, one block per SM
constexpr int kChains = 8;      // independent chains per thread
constexpr int kIters = 64;      // steps per chain (IMAD, DFMA)
constexpr int kSfuIters = 32;   // steps per chain (MUFU)

__device__ __forceinline__ unsigned sm_id() {
  unsigned id;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(id));
  return id;
}

__device__ __forceinline__ void record(long long t0, long long t1, long long* start, long long* stop, unsigned* sm) {
  if ((threadIdx.x & 31) == 0) {
    int w = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    start[w] = t0;
    stop[w] = t1;
    sm[w] = sm_id();
  }
}

__global__ void imad_chains(unsigned* out, unsigned m, unsigned a, long long* start, long long* stop, unsigned* sm) {
  unsigned x[kChains];
#pragma unroll
  for (int c = 0; c < kChains; ++c) x[c] = threadIdx.x * kChains + c;
  __syncthreads();
  long long t0 = clock64();
#pragma unroll 8
  for (int i = 0; i < kIters; ++i) {
#pragma unroll
    for (int c = 0; c < kChains; ++c) x[c] = x[c] * m + a;
  }
  __syncthreads();
  long long t1 = clock64();
  unsigned s = 0;
#pragma unroll
  for (int c = 0; c < kChains; ++c) s ^= x[c] * (2 * c + 1);
  out[blockIdx.x * blockDim.x + threadIdx.x] = s;
  record(t0, t1, start, stop, sm);
}

__global__ void dfma_chains(double* out, double m, double a, long long* start, long long* stop, unsigned* sm) {
  double x[kChains];
#pragma unroll
  for (int c = 0; c < kChains; ++c) x[c] = double(threadIdx.x) * 0.001 + c;
  __syncthreads();
  long long t0 = clock64();
#pragma unroll 8
  for (int i = 0; i < kIters; ++i) {
#pragma unroll
    for (int c = 0; c < kChains; ++c) x[c] = fma(x[c], m, a);
  }
  __syncthreads();
  long long t1 = clock64();
  double s = 0.0;
#pragma unroll
  for (int c = 0; c < kChains; ++c) s += x[c];
  out[blockIdx.x * blockDim.x + threadIdx.x] = s;
  record(t0, t1, start, stop, sm);
}

__global__ void mufu_chains(float* out, long long* start, long long* stop, unsigned* sm) {
  float x[kChains];
#pragma unroll
  for (int c = 0; c < kChains; ++c) x[c] = 1.5f + 0.25f * c + 0.0001f * threadIdx.x;
  __syncthreads();
  long long t0 = clock64();
#pragma unroll 8
  for (int i = 0; i < kSfuIters; ++i) {
#pragma unroll
    for (int c = 0; c < kChains; ++c) asm volatile("rsqrt.approx.f32 %0, %0;" : "+f"(x[c]));
  }
  __syncthreads();
  long long t1 = clock64();
  float s = 0.0f;
#pragma unroll
  for (int c = 0; c < kChains; ++c) s += x[c];
  out[blockIdx.x * blockDim.x + threadIdx.x] = s;
  record(t0, t1, start, stop, sm);
}

// Operations per clock per SM: warps grouped by SM, each SM's span from its
// earliest start to its latest stop; the mean over the SMs.
double ops_per_clk_per_sm(const long long* dstart, const long long* dstop, const unsigned* dsm, int warps,
                          double ops_per_warp) {
  std::vector<long long> start = to_host(dstart, warps), stop = to_host(dstop, warps);
  std::vector<unsigned> sm = to_host(dsm, warps);
  std::map<unsigned, std::pair<long long, long long>> span;
  std::map<unsigned, int> count;
  for (int w = 0; w < warps; ++w) {
    auto [it, fresh] = span.try_emplace(sm[w], start[w], stop[w]);
    if (!fresh) {
      it->second.first = std::min(it->second.first, start[w]);
      it->second.second = std::max(it->second.second, stop[w]);
    }
    ++count[sm[w]];
  }
  double total = 0.0;
  for (auto& [id, s] : span) total += s.second > s.first ? ops_per_warp * count[id] / double(s.second - s.first) : NAN;
  return total / double(span.size());
}

int main() {
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  const int blocks = prop.multiProcessorCount;
  const size_t threads = size_t(blocks) * kThreads;
  const int warps = int(threads / 32);
  unsigned* dimad = device_alloc<unsigned>(threads);
  double* ddfma = device_alloc<double>(threads);
  float* dmufu = device_alloc<float>(threads);
  long long *dstart = device_alloc<long long>(warps), *dstop = device_alloc<long long>(warps);
  unsigned* dsm = device_alloc<unsigned>(warps);
  const unsigned im = 1664525u, ia = 1013904223u;
  const double dm = 0.999, da = 0.001;
  long bad = 0;
  float ms = 0.0f;
  std::printf("blocks=%d\n", blocks);
  std::printf("threads_per_block=%d\n", kThreads);

  EventTimer t1;
  t1.start();
  imad_chains<<<blocks, kThreads>>>(dimad, im, ia, dstart, dstop, dsm);
  CHECK(cudaGetLastError());
  ms += t1.stop_ms();
  CHECK(cudaDeviceSynchronize());
  double r_imad = ops_per_clk_per_sm(dstart, dstop, dsm, warps, 32.0 * kChains * kIters);
  std::vector<unsigned> imad = to_host(dimad, threads);

  EventTimer t2;
  t2.start();
  dfma_chains<<<blocks, kThreads>>>(ddfma, dm, da, dstart, dstop, dsm);
  CHECK(cudaGetLastError());
  ms += t2.stop_ms();
  CHECK(cudaDeviceSynchronize());
  double r_dfma = ops_per_clk_per_sm(dstart, dstop, dsm, warps, 32.0 * kChains * kIters);
  std::vector<double> dfma = to_host(ddfma, threads);

  EventTimer t3;
  t3.start();
  mufu_chains<<<blocks, kThreads>>>(dmufu, dstart, dstop, dsm);
  CHECK(cudaGetLastError());
  ms += t3.stop_ms();
  CHECK(cudaDeviceSynchronize());
  double r_mufu = ops_per_clk_per_sm(dstart, dstop, dsm, warps, 32.0 * kChains * kSfuIters);
  std::vector<float> mufu = to_host(dmufu, threads);

  std::printf("imad_ops_per_clk_per_sm=%.2f\n", r_imad);
  std::printf("dfma_ops_per_clk_per_sm=%.2f\n", r_dfma);
  std::printf("dfma_flop_per_clk_per_sm=%.2f\n", 2.0 * r_dfma);
  std::printf("mufu_rsqrt_ops_per_clk_per_sm=%.2f\n", r_mufu);

  for (size_t t = 0; t < threads; t += 61) {
    const unsigned tid = unsigned(t % kThreads);
    unsigned s = 0;
    double d = 0.0;
    float f = 0.0f;
    for (int c = 0; c < kChains; ++c) {
      unsigned x = tid * kChains + c;
      double y = double(tid) * 0.001 + c;
      double z = double(1.5f + 0.25f * c + 0.0001f * tid);
      for (int i = 0; i < kIters; ++i) {
        x = x * im + ia;
        y = std::fma(y, dm, da);
      }
      for (int i = 0; i < kSfuIters; ++i) z = 1.0 / std::sqrt(z);
      s ^= x * (2 * c + 1);
      d += y;
      f += float(z);
    }
    bad += imad[t] != s;
    bad += dfma[t] != d;
    bad += !close_enough(mufu[t], f, 1e-5);
  }
  for (double r : {r_imad, r_dfma, r_mufu}) bad += !(std::isfinite(r) && r > 0);
  device_free(dimad, ddfma, dmufu, dstart, dstop, dsm);
  print_timing(ms, 3);
  return verdict("gpu_ubench_int_dp_sfu", bad);
}
