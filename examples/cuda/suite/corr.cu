// corr: the correlation matrix of the columns of a 256 x 256 float data
// matrix, styled after PolyBench/GPU's correlation: corr_mean and corr_std
// give each thread a column and loop down it (coalesced across the warp),
// corr_std takes sqrtf and clamps a near-zero deviation to 1, corr_reduce
// centres and scales every element (one thread each, 32 x 8 blocks), and
// corr_symmat gives each thread a row j1 of the result and loops j2 > j1,
// each inner dot product walking two columns of data, writing both halves of
// the symmetric matrix (the work per thread shrinks with j1: a triangular,
// badly load-balanced launch). Checked against a double host reference.
#include <cmath>
#include <vector>

#include "suite.h"

constexpr int kN = 256;  // rows (observations)
constexpr int kM = 256;  // columns (variables)
constexpr float kEps = 0.1f;
constexpr int kBlock1D = 256;

__global__ void corr_mean(const float* data, float* mean, int n, int m, float float_n) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= m) return;
  mean[j] = 0.0f;
  for (int i = 0; i < n; ++i) mean[j] += data[i * m + j];
  mean[j] /= float_n;
}

__global__ void corr_std(const float* data, const float* mean, float* stddev, int n, int m, float float_n,
                         float eps) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= m) return;
  stddev[j] = 0.0f;
  for (int i = 0; i < n; ++i) {
    float d = data[i * m + j] - mean[j];
    stddev[j] += d * d;
  }
  stddev[j] /= float_n;
  stddev[j] = sqrtf(stddev[j]);
  if (stddev[j] <= eps) stddev[j] = 1.0f;
}

__global__ void corr_reduce(float* data, const float* mean, const float* stddev, int n, int m, float float_n) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  int i = blockIdx.y * blockDim.y + threadIdx.y;
  if (i >= n || j >= m) return;
  data[i * m + j] -= mean[j];
  data[i * m + j] /= sqrtf(float_n) * stddev[j];
}

__global__ void corr_symmat(const float* data, float* symmat, int n, int m) {
  int j1 = blockIdx.x * blockDim.x + threadIdx.x;
  if (j1 >= m - 1) return;
  symmat[j1 * m + j1] = 1.0f;
  for (int j2 = j1 + 1; j2 < m; ++j2) {
    symmat[j1 * m + j2] = 0.0f;
    for (int i = 0; i < n; ++i) symmat[j1 * m + j2] += data[i * m + j1] * data[i * m + j2];
    symmat[j2 * m + j1] = symmat[j1 * m + j2];
  }
}

static std::vector<double> host_corr(const std::vector<float>& data) {
  std::vector<double> mean(kM, 0.0), sd(kM, 0.0), x(data.begin(), data.end()), sym(kM * kM, 0.0);
  for (int j = 0; j < kM; ++j) {
    for (int i = 0; i < kN; ++i) mean[j] += x[i * kM + j];
    mean[j] /= kN;
    for (int i = 0; i < kN; ++i) sd[j] += (x[i * kM + j] - mean[j]) * (x[i * kM + j] - mean[j]);
    sd[j] = std::sqrt(sd[j] / kN);
    if (sd[j] <= kEps) sd[j] = 1.0;
  }
  for (int i = 0; i < kN; ++i)
    for (int j = 0; j < kM; ++j) x[i * kM + j] = (x[i * kM + j] - mean[j]) / (std::sqrt(double(kN)) * sd[j]);
  for (int j1 = 0; j1 < kM; ++j1) {
    sym[j1 * kM + j1] = 1.0;
    for (int j2 = j1 + 1; j2 < kM; ++j2) {
      double s = 0.0;
      for (int i = 0; i < kN; ++i) s += x[i * kM + j1] * x[i * kM + j2];
      sym[j1 * kM + j2] = sym[j2 * kM + j1] = s;
    }
  }
  return sym;
}

int main() {
  std::vector<float> data(kN * kM), sym(kM * kM);
  fill_lcg(data, 83);
  // Give some columns a shared component so that not every correlation is ~0.
  for (int i = 0; i < kN; ++i)
    for (int j = 0; j < kM; j += 3) data[i * kM + j] += 0.5f * data[i * kM];
  float* ddata = to_device(data);
  float *dmean = device_alloc<float>(kM), *dstd = device_alloc<float>(kM);
  float* dsym = device_zeros<float>(kM * kM);

  int grid1d = (kM + kBlock1D - 1) / kBlock1D;
  dim3 block2d(32, 8), grid2d((kM + 31) / 32, (kN + 7) / 8);
  EventTimer timer;
  timer.start();
  corr_mean<<<grid1d, kBlock1D>>>(ddata, dmean, kN, kM, float(kN));
  CHECK(cudaGetLastError());
  corr_std<<<grid1d, kBlock1D>>>(ddata, dmean, dstd, kN, kM, float(kN), kEps);
  CHECK(cudaGetLastError());
  corr_reduce<<<grid2d, block2d>>>(ddata, dmean, dstd, kN, kM, float(kN));
  CHECK(cudaGetLastError());
  corr_symmat<<<grid1d, kBlock1D>>>(ddata, dsym, kN, kM);
  CHECK(cudaGetLastError());
  float ms = timer.stop_ms();
  CHECK(cudaDeviceSynchronize());

  copy_to_host(sym, dsym);
  sym[(kM - 1) * kM + (kM - 1)] = 1.0f;  // the last diagonal entry is set on the host, as PolyBench does
  std::vector<double> want = host_corr(data);
  long bad = 0;
  for (int i = 0; i < kM * kM; ++i) bad += !close_enough(sym[i], want[i], 1e-3, 1e-4);
  device_free(ddata, dmean, dstd, dsym);
  print_timing(ms, 4);
  return verdict("corr", bad);
}
