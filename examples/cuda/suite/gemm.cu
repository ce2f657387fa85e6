// gemm: C = alpha A B + beta C for 256 x 256 float matrices, PolyBench/GPU
// style: one thread per element of C in 32 x 8 blocks, each looping over k
// with direct global loads (no shared-memory tiling): a warp reads one
// broadcast element of A and a coalesced row segment of B per step.
#include <algorithm>
#include <vector>

#include "suite.h"

constexpr int kNI = 256, kNJ = 256, kNK = 256;
constexpr float kAlpha = 1.5f, kBeta = 0.5f;

__global__ void gemm(const float* a, const float* b, float* c, float alpha, float beta, int ni, int nj, int nk) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  int i = blockIdx.y * blockDim.y + threadIdx.y;
  if (i >= ni || j >= nj) return;
  float sum = 0.0f;
  for (int k = 0; k < nk; ++k) sum += a[i * nk + k] * b[k * nj + j];
  c[i * nj + j] = alpha * sum + beta * c[i * nj + j];
}

int main() {
  std::vector<float> a(kNI * kNK), b(kNK * kNJ), c(kNI * kNJ), got(kNI * kNJ);
  fill_lcg(a, 2);
  fill_lcg(b, 13);
  fill_lcg(c, 37);
  float *da = to_device(a), *db = to_device(b), *dc = to_device(c);

  dim3 block(32, 8), grid((kNJ + 31) / 32, (kNI + 7) / 8);
  EventTimer timer;
  timer.start();
  gemm<<<grid, block>>>(da, db, dc, kAlpha, kBeta, kNI, kNJ, kNK);
  CHECK(cudaGetLastError());
  float ms = timer.stop_ms();
  CHECK(cudaDeviceSynchronize());

  copy_to_host(got, dc);
  long bad = 0;
  std::vector<double> row(kNJ);
  for (int i = 0; i < kNI; ++i) {
    std::fill(row.begin(), row.end(), 0.0);
    for (int k = 0; k < kNK; ++k)
      for (int j = 0; j < kNJ; ++j) row[j] += double(a[i * kNK + k]) * b[k * kNJ + j];
    for (int j = 0; j < kNJ; ++j)
      bad += !close_enough(got[i * kNJ + j], kAlpha * row[j] + kBeta * double(c[i * kNJ + j]), 1e-4);
  }
  device_free(da, db, dc);
  print_timing(ms, 1);
  return verdict("gemm", bad);
}
