// syrk: C = alpha A A^T + beta C for a 256 x 256 float A (N x M) and the full
// 256 x 256 C, PolyBench/GPU style: one thread per element of C in 32 x 8
// blocks, looping over M with direct global loads. Both operands are rows of
// A: a warp reads one broadcast element of row i and 32 elements a row apart
// (row j of each lane), so the second stream is uncoalesced.
#include <vector>

#include "suite.h"

constexpr int kN = 256, kM = 256;
constexpr float kAlpha = 1.5f, kBeta = 0.5f;

__global__ void syrk(const float* a, float* c, float alpha, float beta, int n, int m) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  int i = blockIdx.y * blockDim.y + threadIdx.y;
  if (i >= n || j >= n) return;
  float sum = 0.0f;
  for (int k = 0; k < m; ++k) sum += a[i * m + k] * a[j * m + k];
  c[i * n + j] = alpha * sum + beta * c[i * n + j];
}

int main() {
  std::vector<float> a(kN * kM), c(kN * kN), got(kN * kN);
  fill_lcg(a, 6);
  fill_lcg(c, 21);
  float *da = to_device(a), *dc = to_device(c);

  dim3 block(32, 8), grid((kN + 31) / 32, (kN + 7) / 8);
  EventTimer timer;
  timer.start();
  syrk<<<grid, block>>>(da, dc, kAlpha, kBeta, kN, kM);
  CHECK(cudaGetLastError());
  float ms = timer.stop_ms();
  CHECK(cudaDeviceSynchronize());

  copy_to_host(got, dc);
  long bad = 0;
  for (int i = 0; i < kN; ++i)
    for (int j = 0; j < kN; ++j) {
      double sum = 0.0;
      for (int k = 0; k < kM; ++k) sum += double(a[i * kM + k]) * a[j * kM + k];
      bad += !close_enough(got[i * kN + j], kAlpha * sum + kBeta * double(c[i * kN + j]), 1e-4);
    }
  device_free(da, dc);
  print_timing(ms, 1);
  return verdict("syrk", bad);
}
