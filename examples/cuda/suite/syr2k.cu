// syr2k: C = alpha A B^T + alpha B A^T + beta C for 256 x 256 float A, B and
// C, styled after PolyBench/GPU SYR2K: one thread per element of C in 32 x 8
// blocks, a naive loop over the inner dimension with four direct global loads
// per step (two broadcast rows i, two rows j that are a row apart per lane).
#include <vector>

#include "suite.h"

constexpr int kN = 256, kM = 256;
constexpr float kAlpha = 0.75f, kBeta = 1.25f;

__global__ void syr2k(const float* a, const float* b, float* c, float alpha, float beta, int n, int m) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  int i = blockIdx.y * blockDim.y + threadIdx.y;
  if (i >= n || j >= n) return;
  float acc = c[i * n + j] * beta;
  for (int k = 0; k < m; ++k) acc += alpha * a[i * m + k] * b[j * m + k] + alpha * b[i * m + k] * a[j * m + k];
  c[i * n + j] = acc;
}

int main() {
  std::vector<float> a(kN * kM), b(kN * kM), c(kN * kN), got(kN * kN);
  fill_lcg(a, 41);
  fill_lcg(b, 42);
  fill_lcg(c, 43);
  float *da = to_device(a), *db = to_device(b), *dc = to_device(c);

  dim3 block(32, 8), grid((kN + 31) / 32, (kN + 7) / 8);
  EventTimer timer;
  timer.start();
  syr2k<<<grid, block>>>(da, db, dc, kAlpha, kBeta, kN, kM);
  CHECK(cudaGetLastError());
  float ms = timer.stop_ms();
  CHECK(cudaDeviceSynchronize());

  copy_to_host(got, dc);
  long bad = 0;
  for (int i = 0; i < kN; ++i)
    for (int j = 0; j < kN; ++j) {
      double sum = 0.0;
      for (int k = 0; k < kM; ++k)
        sum += double(a[i * kM + k]) * b[j * kM + k] + double(b[i * kM + k]) * a[j * kM + k];
      bad += !close_enough(got[i * kN + j], kAlpha * sum + kBeta * double(c[i * kN + j]), 1e-4);
    }
  device_free(da, db, dc);
  print_timing(ms, 1);
  return verdict("syr2k", bad);
}
