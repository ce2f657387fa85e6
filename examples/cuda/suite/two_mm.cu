// two_mm: D = alpha A B C + beta D for 256 x 256 float matrices as two
// dependent matrix products, PolyBench/GPU style: mm2_first forms
// tmp = alpha A B, then mm2_second forms D = tmp C + beta D, each with one
// thread per output element in 32 x 8 blocks looping over the inner dimension
// with direct global loads. The second launch reads what the first wrote.
#include <algorithm>
#include <vector>

#include "suite.h"

constexpr int kNI = 256, kNJ = 256, kNK = 256, kNL = 256;
constexpr float kAlpha = 1.5f, kBeta = 0.5f;

// tmp (ni x nj) = alpha A (ni x nk) B (nk x nj).
__global__ void mm2_first(const float* a, const float* b, float* tmp, float alpha, int ni, int nj, int nk) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  int i = blockIdx.y * blockDim.y + threadIdx.y;
  if (i >= ni || j >= nj) return;
  float sum = 0.0f;
  for (int k = 0; k < nk; ++k) sum += a[i * nk + k] * b[k * nj + j];
  tmp[i * nj + j] = alpha * sum;
}

// D (ni x nl) = tmp (ni x nj) C (nj x nl) + beta D.
__global__ void mm2_second(const float* tmp, const float* c, float* d, float beta, int ni, int nl, int nj) {
  int l = blockIdx.x * blockDim.x + threadIdx.x;
  int i = blockIdx.y * blockDim.y + threadIdx.y;
  if (i >= ni || l >= nl) return;
  float sum = 0.0f;
  for (int j = 0; j < nj; ++j) sum += tmp[i * nj + j] * c[j * nl + l];
  d[i * nl + l] = sum + beta * d[i * nl + l];
}

// out (n x m) = x (n x p) y (p x m), accumulated in double.
std::vector<double> host_matmul(const std::vector<double>& x, const std::vector<double>& y, int n, int p, int m) {
  std::vector<double> out(size_t(n) * m, 0.0);
  for (int i = 0; i < n; ++i)
    for (int k = 0; k < p; ++k)
      for (int j = 0; j < m; ++j) out[i * m + j] += x[i * p + k] * y[k * m + j];
  return out;
}

int main() {
  std::vector<float> a(kNI * kNK), b(kNK * kNJ), c(kNJ * kNL), d(kNI * kNL), got(kNI * kNL);
  fill_lcg(a, 4);
  fill_lcg(b, 8);
  fill_lcg(c, 15);
  fill_lcg(d, 16);
  float *da = to_device(a), *db = to_device(b), *dc = to_device(c), *dd = to_device(d);
  float* dtmp = device_alloc<float>(kNI * kNJ);

  dim3 block(32, 8);
  EventTimer timer;
  timer.start();
  mm2_first<<<dim3((kNJ + 31) / 32, (kNI + 7) / 8), block>>>(da, db, dtmp, kAlpha, kNI, kNJ, kNK);
  CHECK(cudaGetLastError());
  mm2_second<<<dim3((kNL + 31) / 32, (kNI + 7) / 8), block>>>(dtmp, dc, dd, kBeta, kNI, kNL, kNJ);
  CHECK(cudaGetLastError());
  float ms = timer.stop_ms();
  CHECK(cudaDeviceSynchronize());

  copy_to_host(got, dd);
  auto widen = [](const std::vector<float>& v) { return std::vector<double>(v.begin(), v.end()); };
  std::vector<double> tmp = host_matmul(widen(a), widen(b), kNI, kNK, kNJ);
  for (double& t : tmp) t *= kAlpha;
  std::vector<double> want = host_matmul(tmp, widen(c), kNI, kNJ, kNL);
  long bad = 0;
  for (int i = 0; i < kNI * kNL; ++i) bad += !close_enough(got[i], want[i] + kBeta * double(d[i]), 1e-4);
  device_free(da, db, dc, dd, dtmp);
  print_timing(ms, 2);
  return verdict("two_mm", bad);
}
