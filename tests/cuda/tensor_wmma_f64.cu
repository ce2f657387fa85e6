// Double-precision tensor cores (sm_80 DMMA): wmma fragments of shape
// 8x8x4 with double elements, a 16x16 product from a 2x2 grid of tiles and
// four k-steps, plus the accumulator loaded from memory. Every input is a
// small multiple of 1/4, so the host's sums are exact and the check is exact.
#include <mma.h>

#include <vector>

#include "check.h"

using namespace nvcuda;

constexpr int kM = 16, kN = 16, kK = 16;

// One warp per 8x8 tile of D = A * B + C (A row-major, B column-major, C/D row-major).
__global__ void dgemm(const double* a, const double* b, const double* c, double* d) {
  int tile_m = blockIdx.x / (kN / 8), tile_n = blockIdx.x % (kN / 8);
  wmma::fragment<wmma::matrix_a, 8, 8, 4, double, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 8, 8, 4, double, wmma::col_major> fb;
  wmma::fragment<wmma::accumulator, 8, 8, 4, double> acc;
  wmma::load_matrix_sync(acc, c + tile_m * 8 * kN + tile_n * 8, kN, wmma::mem_row_major);
  for (int k = 0; k < kK; k += 4) {
    wmma::load_matrix_sync(fa, a + tile_m * 8 * kK + k, kK);
    wmma::load_matrix_sync(fb, b + tile_n * 8 * kK + k, kK);
    wmma::mma_sync(acc, fa, fb, acc);
  }
  wmma::store_matrix_sync(d + tile_m * 8 * kN + tile_n * 8, acc, kN, wmma::mem_row_major);
}

int main() {
  std::vector<double> a(kM * kK), b(kK * kN), c(kM * kN), d(kM * kN, -1);
  for (int i = 0; i < kM; ++i)
    for (int k = 0; k < kK; ++k) a[i * kK + k] = ((i * 5 + k * 3) % 13 - 6) / 4.0;
  // b is stored column-major: element (k, j) at j * kK + k.
  for (int k = 0; k < kK; ++k)
    for (int j = 0; j < kN; ++j) b[j * kK + k] = ((k * 7 + j) % 11 - 5) / 4.0;
  for (int i = 0; i < kM * kN; ++i) c[i] = (i % 9 - 4) / 4.0;
  double *da, *db, *dc, *dd;
  CHECK(cudaMalloc(&da, a.size() * sizeof(double)));
  CHECK(cudaMalloc(&db, b.size() * sizeof(double)));
  CHECK(cudaMalloc(&dc, c.size() * sizeof(double)));
  CHECK(cudaMalloc(&dd, d.size() * sizeof(double)));
  CHECK(cudaMemcpy(da, a.data(), a.size() * sizeof(double), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(db, b.data(), b.size() * sizeof(double), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dc, c.data(), c.size() * sizeof(double), cudaMemcpyHostToDevice));
  dgemm<<<(kM / 8) * (kN / 8), 32>>>(da, db, dc, dd);
  CHECK_LAUNCH();
  CHECK(cudaMemcpy(d.data(), dd, d.size() * sizeof(double), cudaMemcpyDeviceToHost));
  long bad = 0;
  for (int i = 0; i < kM; ++i)
    for (int j = 0; j < kN; ++j) {
      double want = c[i * kN + j];
      for (int k = 0; k < kK; ++k) want += a[i * kK + k] * b[j * kK + k];
      bad += d[i * kN + j] != want;
    }
  CHECK(cudaFree(da));
  CHECK(cudaFree(db));
  CHECK(cudaFree(dc));
  CHECK(cudaFree(dd));
  return verdict("tensor_wmma_f64", bad);
}
