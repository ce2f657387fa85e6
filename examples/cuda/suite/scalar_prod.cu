// scalar_prod: 256 dot products of float vector pairs of 4096 elements,
// styled after the CUDA samples' scalarProd. 128 CTAs of 256 threads; CTA b
// takes the pairs b, b + 128 (a grid-stride loop over pairs). For a pair,
// the CTA keeps kAccumN = 1024 partial sums in shared memory: each thread
// fills four of them (accumulator i sums the products at positions
// i, i + 1024, i + 2048, i + 3072 of the pair: coalesced loads), then a
// shared-memory tree reduction (stride 512 down to 1, a __syncthreads per
// level, all 256 threads while the stride allows, fewer after) leaves the
// dot product in accumulator 0, which thread 0 stores. The kernel runs
// kIters times. Checked against double-precision host sums with a relative
// tolerance.
#include <cmath>
#include <vector>

#include "suite.h"

constexpr int kVectorN = 256;
constexpr int kElementN = 4096;
constexpr int kAccumN = 1024;
constexpr int kThreads = 256;
constexpr int kBlocks = 128;
constexpr int kIters = 4;
static_assert(kElementN % kAccumN == 0 && kAccumN % kThreads == 0, "whole strides");

__global__ void __launch_bounds__(kThreads)
    scalar_prod_kernel(float* __restrict__ d_c, const float* __restrict__ d_a, const float* __restrict__ d_b,
                       int vector_n, int element_n) {
  __shared__ float s_accum[kAccumN];

  for (int vec = blockIdx.x; vec < vector_n; vec += gridDim.x) {
    const int begin = vec * element_n, end = begin + element_n;

    // Every accumulator sums the products kAccumN elements apart.
    for (int i = threadIdx.x; i < kAccumN; i += blockDim.x) {
      float sum = 0;
      for (int pos = begin + i; pos < end; pos += kAccumN) sum += d_a[pos] * d_b[pos];
      s_accum[i] = sum;
    }

    // Tree reduction of the accumulators.
    for (int stride = kAccumN / 2; stride > 0; stride >>= 1) {
      __syncthreads();
      for (int i = threadIdx.x; i < stride; i += blockDim.x) s_accum[i] += s_accum[stride + i];
    }

    __syncthreads();
    if (threadIdx.x == 0) d_c[vec] = s_accum[0];
    __syncthreads();  // s_accum is refilled for the next pair
  }
}

int main() {
  const size_t n = size_t(kVectorN) * kElementN;
  std::vector<float> a(n), b(n);
  fill_lcg(a, 5150);
  fill_lcg(b, 6160);
  float *d_a = to_device(a), *d_b = to_device(b);
  float* d_c = device_zeros<float>(kVectorN);

  EventTimer timer;
  timer.start();
  for (int it = 0; it < kIters; ++it) scalar_prod_kernel<<<kBlocks, kThreads>>>(d_c, d_a, d_b, kVectorN, kElementN);
  CHECK(cudaGetLastError());
  float ms = timer.stop_ms();
  CHECK_LAUNCH();

  std::vector<float> c = to_host(d_c, kVectorN);
  long bad = 0;
  double sum_err = 0, sum_ref = 0, max_rel = 0;
  for (int v = 0; v < kVectorN; ++v) {
    double want = 0;
    for (int i = 0; i < kElementN; ++i) want += double(a[size_t(v) * kElementN + i]) * b[size_t(v) * kElementN + i];
    double e = std::fabs(c[v] - want);
    sum_err += e;
    sum_ref += std::fabs(want);
    max_rel = std::fmax(max_rel, e / std::fabs(want));
    // Four-term float sums, then a ten-level pairwise tree: a few ulps.
    bad += !close_enough(c[v], want, 1e-6);
  }
  std::printf("L1 norm %.3e, max rel err %.3e\n", sum_err / sum_ref, max_rel);
  if (sum_err / sum_ref > 1e-7) ++bad;
  double gbs = ms > 0 ? 2.0 * n * sizeof(float) * kIters / (ms * 1e-3) / 1e9 : 0.0;
  std::printf("%.1f GB/s\n", gbs);

  print_timing(ms, kIters);
  device_free(d_a, d_b, d_c);
  return verdict("scalar_prod", bad);
}
