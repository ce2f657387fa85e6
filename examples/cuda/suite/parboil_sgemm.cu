// parboil_sgemm: C = alpha A B^T + beta C in single precision, Parboil
// style: all matrices column-major (A is M x K, B is N x K, C is M x N), the
// "NT" case of a BLAS sgemm. Register-tiled kernel: a CTA of kRowsPerCta
// threads owns a kRowsPerCta x kColsPerCta block of C; each thread keeps one
// row strip of kColsPerCta outputs in registers. Per step of kKStep values
// of k the CTA stages a kKStep x kColsPerCta tile of B in shared memory (one
// element per thread) while every thread streams its own row of A straight
// from global memory (coalesced: consecutive threads, consecutive rows of a
// column-major A) and broadcasts the B tile out of shared memory.
#include <vector>

#include "suite.h"

constexpr int kM = 512, kN = 512, kK = 384;
constexpr int kColsPerCta = 16;                      // strip width held in registers
constexpr int kKStep = 8;                            // rows of the staged B tile
constexpr int kRowsPerCta = kColsPerCta * kKStep;    // 128 threads, one B element each
constexpr int kIters = 2;
constexpr float kAlpha = 0.75f, kBeta = 1.25f;

__global__ void sgemm_nt(const float* __restrict__ a, int lda, const float* __restrict__ b, int ldb,
                         float* __restrict__ c, int ldc, int k_total, float alpha, float beta) {
  __shared__ float b_tile[kKStep][kColsPerCta];
  const int row = blockIdx.x * kRowsPerCta + threadIdx.x;
  const int col0 = blockIdx.y * kColsPerCta;
  // The B element this thread stages: column (of C) tid % 16, k offset tid / 16.
  const int stage_col = threadIdx.x % kColsPerCta;
  const int stage_k = threadIdx.x / kColsPerCta;

  float acc[kColsPerCta];
#pragma unroll
  for (int j = 0; j < kColsPerCta; ++j) acc[j] = 0.0f;

  const float* a_row = a + row;
  for (int k0 = 0; k0 < k_total; k0 += kKStep) {
    b_tile[stage_k][stage_col] = b[(col0 + stage_col) + (k0 + stage_k) * ldb];
    __syncthreads();
#pragma unroll
    for (int kk = 0; kk < kKStep; ++kk) {
      float a_val = a_row[(k0 + kk) * lda];
#pragma unroll
      for (int j = 0; j < kColsPerCta; ++j) acc[j] += a_val * b_tile[kk][j];
    }
    __syncthreads();
  }

  float* c_out = c + row + col0 * ldc;
#pragma unroll
  for (int j = 0; j < kColsPerCta; ++j) c_out[j * ldc] = alpha * acc[j] + beta * c_out[j * ldc];
}

int main() {
  static_assert(kM % kRowsPerCta == 0 && kN % kColsPerCta == 0 && kK % kKStep == 0, "tile sizes");
  std::vector<float> a(size_t(kM) * kK), b(size_t(kN) * kK), c(size_t(kM) * kN), got(size_t(kM) * kN);
  Lcg rng{2024};
  for (float& v : a) v = rng.uniform() - 0.5f;
  for (float& v : b) v = rng.uniform() - 0.5f;
  for (float& v : c) v = rng.uniform();
  float *da = to_device(a), *db = to_device(b), *dc = to_device(c);

  dim3 grid(kM / kRowsPerCta, kN / kColsPerCta), block(kRowsPerCta);
  EventTimer timer;
  timer.start();
  // Each pass accumulates into C again (C_{i+1} = alpha A B^T + beta C_i).
  for (int it = 0; it < kIters; ++it) sgemm_nt<<<grid, block>>>(da, kM, db, kN, dc, kM, kK, kAlpha, kBeta);
  CHECK(cudaGetLastError());
  float ms = timer.stop_ms();
  CHECK_LAUNCH();
  copy_to_host(got, dc);

  // Host reference in double: P = A B^T, then C applied kIters times.
  std::vector<double> p(size_t(kM) * kN, 0.0);
  for (int n = 0; n < kN; ++n)
    for (int k = 0; k < kK; ++k) {
      double bv = b[n + size_t(k) * kN];
      const float* acol = &a[size_t(k) * kM];
      double* pcol = &p[size_t(n) * kM];
      for (int m = 0; m < kM; ++m) pcol[m] += double(acol[m]) * bv;
    }
  long bad = 0;
  double max_err = 0;
  for (size_t i = 0; i < p.size(); ++i) {
    double want = c[i];
    for (int it = 0; it < kIters; ++it) want = kAlpha * p[i] + kBeta * want;
    double err = std::fabs(got[i] - want);
    if (err > max_err) max_err = err;
    // Products of values in [-0.5, 0.5): the sum's magnitude is ~sqrt(K)/12.
    bad += !close_enough(got[i], want, 1e-4, 1e-4);
  }
  std::printf("M=%d N=%d K=%d, %d passes, max abs error %.3g\n", kM, kN, kK, kIters, max_err);
  double gflops = ms > 0 ? 2.0 * kM * kN * kK * kIters / (ms * 1e-3) / 1e9 : 0.0;
  std::printf("%.1f GFLOP/s\n", gflops);
  device_free(da, db, dc);
  print_timing(ms, kIters);
  return verdict("parboil_sgemm", bad);
}
