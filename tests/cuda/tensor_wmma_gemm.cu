// Tensor cores through WMMA: a 64x64x64 GEMM, f16 inputs with f32
// accumulation, one 16x16 output tile per warp (A row-major, B column-major,
// D stored row-major), and the same tile with f16 accumulators. Inputs are
// multiples of 1/8 below 2 in magnitude: every product and partial sum is
// exact in f32, so the device must equal the host bit for bit.
#include <cuda_fp16.h>
#include <mma.h>

#include <vector>

#include "check.h"

using namespace nvcuda;
constexpr int kN = 64, kT = 16;

__global__ void gemm(const __half* a, const __half* b, float* d) {
  int warp = threadIdx.x / 32, ti = warp / (kN / kT), tj = warp % (kN / kT);
  wmma::fragment<wmma::matrix_a, kT, kT, kT, __half, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, kT, kT, kT, __half, wmma::col_major> fb;
  wmma::fragment<wmma::accumulator, kT, kT, kT, float> acc;
  wmma::fill_fragment(acc, 0.0f);
  for (int k = 0; k < kN; k += kT) {
    wmma::load_matrix_sync(fa, a + ti * kT * kN + k, kN);
    wmma::load_matrix_sync(fb, b + tj * kT * kN + k, kN);  // column j of B starts at b + j * kN
    wmma::mma_sync(acc, fa, fb, acc);
  }
  wmma::store_matrix_sync(d + ti * kT * kN + tj * kT, acc, kN, wmma::mem_row_major);
}

// One tile with f16 accumulators, scaled elementwise through the fragment.
__global__ void tile_f16(const __half* a, const __half* b, __half* d) {
  wmma::fragment<wmma::matrix_a, kT, kT, kT, __half, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, kT, kT, kT, __half, wmma::col_major> fb;
  wmma::fragment<wmma::accumulator, kT, kT, kT, __half> acc;
  wmma::fill_fragment(acc, __float2half(1.0f));
  wmma::load_matrix_sync(fa, a, kN);
  wmma::load_matrix_sync(fb, b, kN);
  wmma::mma_sync(acc, fa, fb, acc);
  for (int e = 0; e < acc.num_elements; ++e) acc.x[e] = __hmul(acc.x[e], __float2half(0.5f));
  wmma::store_matrix_sync(d, acc, kT, wmma::mem_col_major);
}

int main() {
  std::vector<__half> a(kN * kN), b(kN * kN);  // b column-major: b[j * kN + k] = B(k, j)
  std::vector<float> fa(kN * kN), fb(kN * kN);
  for (int i = 0; i < kN * kN; ++i) {
    fa[i] = ((i * 7 + 3) % 29 - 14) / 8.0f;
    fb[i] = ((i * 5 + 1) % 23 - 11) / 8.0f;
    a[i] = __float2half(fa[i]);
    b[i] = __float2half(fb[i]);
  }
  __half *da, *db, *dh;
  float* dd;
  CHECK(cudaMalloc(&da, kN * kN * sizeof(__half)));
  CHECK(cudaMalloc(&db, kN * kN * sizeof(__half)));
  CHECK(cudaMalloc(&dd, kN * kN * sizeof(float)));
  CHECK(cudaMalloc(&dh, kT * kT * sizeof(__half)));
  CHECK(cudaMemcpy(da, a.data(), kN * kN * sizeof(__half), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(db, b.data(), kN * kN * sizeof(__half), cudaMemcpyHostToDevice));
  gemm<<<1, 32 * (kN / kT) * (kN / kT)>>>(da, db, dd);
  CHECK_LAUNCH();
  tile_f16<<<1, 32>>>(da, db, dh);
  CHECK_LAUNCH();
  std::vector<float> d(kN * kN);
  std::vector<__half> h(kT * kT);
  CHECK(cudaMemcpy(d.data(), dd, kN * kN * sizeof(float), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(h.data(), dh, kT * kT * sizeof(__half), cudaMemcpyDeviceToHost));
  long bad = 0;
  for (int i = 0; i < kN; ++i)
    for (int j = 0; j < kN; ++j) {
      double ref = 0;
      for (int k = 0; k < kN; ++k) ref += double(fa[i * kN + k]) * fb[j * kN + k];
      if (d[i * kN + j] != float(ref)) {
        if (bad++ < 5) std::printf("D(%d,%d) = %g, want %g\n", i, j, d[i * kN + j], ref);
      }
    }
  for (int i = 0; i < kT; ++i)
    for (int j = 0; j < kT; ++j) {
      double ref = 1.0;
      for (int k = 0; k < kT; ++k) ref += double(fa[i * kN + k]) * fb[j * kN + k];
      float want = __half2float(__float2half(__half2float(__float2half(float(ref))) * 0.5f));
      float got = __half2float(h[j * kT + i]);  // stored column-major
      if (got != want) {
        if (bad++ < 10) std::printf("f16 tile (%d,%d) = %g, want %g\n", i, j, got, want);
      }
    }
  return verdict("tensor_wmma_gemm", bad);
}
