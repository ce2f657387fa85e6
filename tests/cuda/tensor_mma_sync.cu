// Tensor cores through inline PTX: ldmatrix feeds mma.sync.m16n8k16 (f16 in,
// f32 accumulate) for a 16x8x32 tile on one warp. B is read twice: from a
// column-major copy with ldmatrix, and from a row-major copy with
// ldmatrix.trans; both results must equal the host product exactly (inputs
// are multiples of 1/8, so every sum is exact in f32).
#include <cuda_fp16.h>

#include <cstdint>
#include <vector>

#include "check.h"

constexpr int kM = 16, kN = 8, kK = 32;

__device__ unsigned smem_addr(const void* p) { return static_cast<unsigned>(__cvta_generic_to_shared(p)); }

__global__ void tile(const __half* a, const __half* b_cols, const __half* b_rows, float* d_cols, float* d_rows) {
  __shared__ __align__(16) __half sa[kM * kK], sbc[kN * kK], sbr[kK * kN];
  int lane = threadIdx.x;
  for (int i = lane; i < kM * kK; i += 32) sa[i] = a[i];
  for (int i = lane; i < kN * kK; i += 32) sbc[i] = b_cols[i], sbr[i] = b_rows[i];
  __syncthreads();
  float acc[2][4] = {};
  for (int k0 = 0; k0 < kK; k0 += 16) {
    // A: matrices (rows 0-7 | 8-15) x (columns k0..k0+7 | k0+8..); lane 8q + r gives row r of matrix q.
    int q = lane / 8, r = lane % 8;
    unsigned a0, a1, a2, a3, b0, b1, t0, t1;
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
                 : "=r"(a0), "=r"(a1), "=r"(a2), "=r"(a3)
                 : "r"(smem_addr(&sa[(r + 8 * (q % 2)) * kK + k0 + 8 * (q / 2)])));
    // B column-major (row n of sbc is column n of B): two matrices along K.
    asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0, %1}, [%2];"
                 : "=r"(b0), "=r"(b1)
                 : "r"(smem_addr(&sbc[r * kK + k0 + 8 * (q % 2)])));
    // B row-major: rows k0.. of B, transposed on the way in.
    asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0, %1}, [%2];"
                 : "=r"(t0), "=r"(t1)
                 : "r"(smem_addr(&sbr[(k0 + lane % 16) * kN])));
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
                 "{%0, %1, %2, %3};"
                 : "+f"(acc[0][0]), "+f"(acc[0][1]), "+f"(acc[0][2]), "+f"(acc[0][3])
                 : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
                 "{%0, %1, %2, %3};"
                 : "+f"(acc[1][0]), "+f"(acc[1][1]), "+f"(acc[1][2]), "+f"(acc[1][3])
                 : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(t0), "r"(t1));
  }
  // D fragment: c0, c1 at (g, 2t), (g, 2t+1); c2, c3 at (g+8, ...).
  int g = lane / 4, t = lane % 4;
  for (int i = 0; i < 4; ++i) {
    int row = g + 8 * (i / 2), col = 2 * t + i % 2;
    d_cols[row * kN + col] = acc[0][i];
    d_rows[row * kN + col] = acc[1][i];
  }
}

int main() {
  std::vector<float> A(kM * kK), B(kK * kN);
  std::vector<__half> a(kM * kK), bc(kN * kK), br(kK * kN);
  for (int i = 0; i < kM; ++i)
    for (int k = 0; k < kK; ++k) A[i * kK + k] = ((i * 13 + k * 7) % 31 - 15) / 8.0f;
  for (int k = 0; k < kK; ++k)
    for (int j = 0; j < kN; ++j) B[k * kN + j] = ((k * 5 + j * 11) % 27 - 13) / 8.0f;
  for (int i = 0; i < kM * kK; ++i) a[i] = __float2half(A[i]);
  for (int k = 0; k < kK; ++k)
    for (int j = 0; j < kN; ++j) bc[j * kK + k] = br[k * kN + j] = __float2half(B[k * kN + j]);
  __half *da, *dbc, *dbr;
  float *ddc, *ddr;
  CHECK(cudaMalloc(&da, a.size() * sizeof(__half)));
  CHECK(cudaMalloc(&dbc, bc.size() * sizeof(__half)));
  CHECK(cudaMalloc(&dbr, br.size() * sizeof(__half)));
  CHECK(cudaMalloc(&ddc, kM * kN * sizeof(float)));
  CHECK(cudaMalloc(&ddr, kM * kN * sizeof(float)));
  CHECK(cudaMemcpy(da, a.data(), a.size() * sizeof(__half), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dbc, bc.data(), bc.size() * sizeof(__half), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dbr, br.data(), br.size() * sizeof(__half), cudaMemcpyHostToDevice));
  tile<<<1, 32>>>(da, dbc, dbr, ddc, ddr);
  CHECK_LAUNCH();
  std::vector<float> dc(kM * kN), dr(kM * kN);
  CHECK(cudaMemcpy(dc.data(), ddc, dc.size() * sizeof(float), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(dr.data(), ddr, dr.size() * sizeof(float), cudaMemcpyDeviceToHost));
  long bad = 0;
  for (int i = 0; i < kM; ++i)
    for (int j = 0; j < kN; ++j) {
      double ref = 0;
      for (int k = 0; k < kK; ++k) ref += double(A[i * kK + k]) * B[k * kN + j];
      if (dc[i * kN + j] != float(ref) && bad++ < 5) std::printf("D(%d,%d) = %g, want %g\n", i, j, dc[i * kN + j], ref);
      if (dr[i * kN + j] != float(ref) && bad++ < 5) std::printf("D.trans(%d,%d) = %g, want %g\n", i, j, dr[i * kN + j], ref);
    }
  return verdict("tensor_mma_sync", bad);
}
