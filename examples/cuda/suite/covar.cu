// covar: the covariance matrix of the columns of a 256 x 256 float data
// matrix, styled after PolyBench/GPU's covariance: covar_mean gives each
// thread a column and loops down it, covar_reduce subtracts the column means
// (one thread per element, 32 x 8 blocks), and covar_symmat gives each thread
// a row j1 of the result and loops j2 >= j1, accumulating the dot product of
// two data columns straight into global memory and mirroring it (a triangular
// launch: thread 0 does 256 dot products, the last thread one).
#include <vector>

#include "suite.h"

constexpr int kN = 256;  // rows (observations)
constexpr int kM = 256;  // columns (variables)
constexpr int kBlock1D = 256;

__global__ void covar_mean(const float* data, float* mean, int n, int m, float float_n) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= m) return;
  mean[j] = 0.0f;
  for (int i = 0; i < n; ++i) mean[j] += data[i * m + j];
  mean[j] /= float_n;
}

__global__ void covar_reduce(float* data, const float* mean, int n, int m) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  int i = blockIdx.y * blockDim.y + threadIdx.y;
  if (i >= n || j >= m) return;
  data[i * m + j] -= mean[j];
}

__global__ void covar_symmat(const float* data, float* symmat, int n, int m) {
  int j1 = blockIdx.x * blockDim.x + threadIdx.x;
  if (j1 >= m) return;
  for (int j2 = j1; j2 < m; ++j2) {
    symmat[j1 * m + j2] = 0.0f;
    for (int i = 0; i < n; ++i) symmat[j1 * m + j2] += data[i * m + j1] * data[i * m + j2];
    symmat[j2 * m + j1] = symmat[j1 * m + j2];
  }
}

static std::vector<double> host_covar(const std::vector<float>& data) {
  std::vector<double> mean(kM, 0.0), x(data.begin(), data.end()), sym(kM * kM, 0.0);
  for (int j = 0; j < kM; ++j) {
    for (int i = 0; i < kN; ++i) mean[j] += x[i * kM + j];
    mean[j] /= kN;
  }
  for (int i = 0; i < kN; ++i)
    for (int j = 0; j < kM; ++j) x[i * kM + j] -= mean[j];
  for (int j1 = 0; j1 < kM; ++j1)
    for (int j2 = j1; j2 < kM; ++j2) {
      double s = 0.0;
      for (int i = 0; i < kN; ++i) s += x[i * kM + j1] * x[i * kM + j2];
      sym[j1 * kM + j2] = sym[j2 * kM + j1] = s;
    }
  return sym;
}

int main() {
  std::vector<float> data(kN * kM), sym(kM * kM);
  fill_lcg(data, 97);
  for (int i = 0; i < kN; ++i)
    for (int j = 1; j < kM; j += 2) data[i * kM + j] += 0.75f * data[i * kM + j - 1];
  float* ddata = to_device(data);
  float* dmean = device_alloc<float>(kM);
  float* dsym = device_zeros<float>(kM * kM);

  int grid1d = (kM + kBlock1D - 1) / kBlock1D;
  dim3 block2d(32, 8), grid2d((kM + 31) / 32, (kN + 7) / 8);
  EventTimer timer;
  timer.start();
  covar_mean<<<grid1d, kBlock1D>>>(ddata, dmean, kN, kM, float(kN));
  CHECK(cudaGetLastError());
  covar_reduce<<<grid2d, block2d>>>(ddata, dmean, kN, kM);
  CHECK(cudaGetLastError());
  covar_symmat<<<grid1d, kBlock1D>>>(ddata, dsym, kN, kM);
  CHECK(cudaGetLastError());
  float ms = timer.stop_ms();
  CHECK(cudaDeviceSynchronize());

  copy_to_host(sym, dsym);
  std::vector<double> want = host_covar(data);
  // Entries are sums of 256 centred products (~|5|); off-diagonal ones of
  // independent columns are near zero, hence the absolute tolerance.
  long bad = 0;
  for (int i = 0; i < kM * kM; ++i) bad += !close_enough(sym[i], want[i], 1e-3, 2e-3);
  device_free(ddata, dmean, dsym);
  print_timing(ms, 3);
  return verdict("covar", bad);
}
