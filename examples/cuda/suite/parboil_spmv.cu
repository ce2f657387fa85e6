// parboil_spmv: y = A x for a 65536 x 65536 sparse matrix stored in the
// jagged diagonal (JDS) format, Parboil style. The rows are sorted by their
// number of non-zeros, longest first (perm maps a sorted row to its original
// row), and the k-th non-zero of every row forms "diagonal" k, stored
// contiguously so one thread per sorted row walks the diagonals with
// coalesced loads of values and column indices. Diagonals are padded to whole
// warps of rows (zero values) so all lanes of a warp run the same number of
// diagonals, kept per warp in warp_ndiag; the start of every diagonal lives
// in __constant__ memory (read with a warp-uniform index). The dense vector
// x is gathered through a texture object (tex1Dfetch on a linear buffer) in
// one kernel and through __ldg in the other; each runs kIters times (Parboil
// repeats the product 50 times). Row lengths vary from 1 to about 330; checked against a host CSR product.
#include <algorithm>
#include <numeric>
#include <vector>

#include "suite.h"

constexpr int kRows = 65536;
constexpr int kMaxDiag = 1024;  // longest row allowed (constant-memory table)
constexpr int kBlock = 128;
constexpr int kIters = 4;

__constant__ int c_diag_start[kMaxDiag + 1];

__global__ void spmv_jds_tex(float* __restrict__ y, const float* __restrict__ values, const int* __restrict__ cols,
                             const int* __restrict__ perm, const int* __restrict__ warp_ndiag,
                             cudaTextureObject_t x_tex, int rows) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  int ndiag = warp_ndiag[r / 32];
  float sum = 0.0f;
  for (int d = 0; d < ndiag; ++d) {
    int at = c_diag_start[d] + r;
    sum += values[at] * tex1Dfetch<float>(x_tex, cols[at]);
  }
  y[perm[r]] = sum;
}

__global__ void spmv_jds_ldg(float* __restrict__ y, const float* __restrict__ values, const int* __restrict__ cols,
                             const int* __restrict__ perm, const int* __restrict__ warp_ndiag,
                             const float* __restrict__ x, int rows) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  int ndiag = warp_ndiag[r / 32];
  float sum = 0.0f;
  // Two diagonals per step, as the Parboil kernel unrolls its loop.
  int d = 0;
  for (; d + 1 < ndiag; d += 2) {
    int at0 = c_diag_start[d] + r, at1 = c_diag_start[d + 1] + r;
    float v0 = values[at0], v1 = values[at1];
    int c0 = cols[at0], c1 = cols[at1];
    sum += v0 * __ldg(x + c0);
    sum += v1 * __ldg(x + c1);
  }
  if (d < ndiag) {
    int at = c_diag_start[d] + r;
    sum += values[at] * __ldg(x + cols[at]);
  }
  y[perm[r]] = sum;
}

int main() {
  static_assert(kRows % 32 == 0, "whole warps of rows");
  // ---- a CSR matrix with varied row lengths ----
  XorShift32 rng(4242);
  std::vector<int> row_len(kRows), row_start(kRows + 1, 0), csr_col;
  std::vector<float> csr_val;
  for (int i = 0; i < kRows; ++i) {
    int len = 1 + int(rng.next() % 8);
    uint32_t pick = rng.next() % 256;
    if (pick < 16) len += int(rng.next() % 64);  // 1 row in 16: up to ~70
    if (pick == 0) len += int(rng.next() % 256);  // 1 row in 256: up to ~330
    row_len[i] = std::min(len, kMaxDiag);
    row_start[i + 1] = row_start[i] + row_len[i];
    for (int k = 0; k < row_len[i]; ++k) {
      // Half the entries near the diagonal, the rest anywhere.
      int c = (k & 1) ? int(rng.next() % kRows) : (i + int(rng.next() % 64) - 32 + kRows) % kRows;
      csr_col.push_back(c);
      csr_val.push_back(rng.uniform_pm1());
    }
  }
  std::vector<float> x(kRows);
  for (float& v : x) v = rng.uniform_pm1();

  // ---- JDS: sort rows by length (longest first), pad diagonals to warps ----
  std::vector<int> perm(kRows);
  std::iota(perm.begin(), perm.end(), 0);
  std::stable_sort(perm.begin(), perm.end(), [&](int a, int b) { return row_len[a] > row_len[b]; });
  const int warps = kRows / 32;
  std::vector<int> warp_ndiag(warps);
  for (int w = 0; w < warps; ++w) warp_ndiag[w] = row_len[perm[w * 32]];
  const int ndiag = warp_ndiag[0];
  std::vector<int> diag_start(kMaxDiag + 1, 0);
  for (int d = 0; d < ndiag; ++d) {
    int warps_with_d = 0;  // a prefix of the warps, as their ndiag decreases
    while (warps_with_d < warps && warp_ndiag[warps_with_d] > d) ++warps_with_d;
    diag_start[d + 1] = diag_start[d] + warps_with_d * 32;
  }
  const int padded = diag_start[ndiag];
  for (int d = ndiag + 1; d <= kMaxDiag; ++d) diag_start[d] = padded;
  std::vector<float> jds_val(padded, 0.0f);
  std::vector<int> jds_col(padded, 0);
  for (int r = 0; r < kRows; ++r) {
    int orig = perm[r];
    for (int d = 0; d < row_len[orig]; ++d) {
      jds_val[diag_start[d] + r] = csr_val[row_start[orig] + d];
      jds_col[diag_start[d] + r] = csr_col[row_start[orig] + d];
    }
  }
  std::printf("rows %d, nnz %d, padded %d, diagonals %d\n", kRows, row_start[kRows], padded, ndiag);

  CHECK(cudaMemcpyToSymbol(c_diag_start, diag_start.data(), sizeof(int) * (kMaxDiag + 1)));
  float* d_val = to_device(jds_val);
  int* d_col = to_device(jds_col);
  int* d_perm = to_device(perm);
  int* d_ndiag = to_device(warp_ndiag);
  float* d_x = to_device(x);
  float* d_y_tex = device_zeros<float>(kRows);
  float* d_y_ldg = device_zeros<float>(kRows);

  cudaTextureObject_t x_tex = linear_texture(d_x, kRows);

  const int grid = (kRows + kBlock - 1) / kBlock;
  EventTimer timer;
  timer.start();
  for (int it = 0; it < kIters; ++it) {
    spmv_jds_tex<<<grid, kBlock>>>(d_y_tex, d_val, d_col, d_perm, d_ndiag, x_tex, kRows);
    spmv_jds_ldg<<<grid, kBlock>>>(d_y_ldg, d_val, d_col, d_perm, d_ndiag, d_x, kRows);
  }
  CHECK(cudaGetLastError());
  float ms = timer.stop_ms();
  CHECK_LAUNCH();

  std::vector<float> y_tex = to_host(d_y_tex, kRows), y_ldg = to_host(d_y_ldg, kRows);
  long bad = 0;
  for (int i = 0; i < kRows; ++i) {
    double want = 0, mag = 0;
    for (int k = row_start[i]; k < row_start[i + 1]; ++k) {
      double t = double(csr_val[k]) * x[csr_col[k]];
      want += t;
      mag += std::fabs(t);
    }
    bad += !close_enough(y_tex[i], want, 1e-5, 2e-5 * mag + 1e-7);
    bad += !close_enough(y_ldg[i], want, 1e-5, 2e-5 * mag + 1e-7);
  }
  CHECK(cudaDestroyTextureObject(x_tex));
  device_free(d_val, d_col, d_perm, d_ndiag, d_x, d_y_tex, d_y_ldg);
  print_timing(ms, 2 * kIters);
  return verdict("parboil_spmv", bad);
}
