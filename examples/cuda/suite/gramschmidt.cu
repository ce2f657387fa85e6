// gramschmidt: QR factorisation of a 128 x 128 float matrix by Gram-Schmidt,
// styled after PolyBench/GPU's gramschmidt: for every column k three
// dependent launches, gs_norm (a single thread of a 256-thread block loops
// down column k, r[k][k] = sqrtf of the sum of squares), gs_scale
// (q[:,k] = a[:,k] / r[k][k], one thread per row) and gs_project (one thread
// per column j > k: r[k][j] = q[:,k] . a[:,j], then a[:,j] -= q[:,k] r[k][j],
// each thread walking its column a row apart from its neighbours). All
// 3 x 128 = 384 launches are queued back to back.
#include <cmath>
#include <vector>

#include "suite.h"

constexpr int kM = 128;  // rows
constexpr int kN = 128;  // columns
constexpr int kBlock = 256;

__global__ void gs_norm(const float* a, float* r, int k, int m, int n) {
  int tid = blockIdx.x * blockDim.x + threadIdx.x;
  if (tid != 0) return;
  float nrm = 0.0f;
  for (int i = 0; i < m; ++i) nrm += a[i * n + k] * a[i * n + k];
  r[k * n + k] = sqrtf(nrm);
}

__global__ void gs_scale(const float* a, const float* r, float* q, int k, int m, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < m) q[i * n + k] = a[i * n + k] / r[k * n + k];
}

__global__ void gs_project(float* a, float* r, const float* q, int k, int m, int n) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j <= k || j >= n) return;
  r[k * n + j] = 0.0f;
  for (int i = 0; i < m; ++i) r[k * n + j] += q[i * n + k] * a[i * n + j];
  for (int i = 0; i < m; ++i) a[i * n + j] -= q[i * n + k] * r[k * n + j];
}

int main() {
  std::vector<float> a(kM * kN);
  fill_lcg(a, 113);
  for (int i = 0; i < kN; ++i) a[i * kN + i] += 8.0f;  // keep the columns well conditioned
  float* da = to_device(a);
  float* dr = device_zeros<float>(kN * kN);
  float* dq = device_zeros<float>(kM * kN);

  int launches = 0;
  EventTimer timer;
  timer.start();
  for (int k = 0; k < kN; ++k) {
    gs_norm<<<1, kBlock>>>(da, dr, k, kM, kN);
    CHECK(cudaGetLastError());
    gs_scale<<<(kM + kBlock - 1) / kBlock, kBlock>>>(da, dr, dq, k, kM, kN);
    CHECK(cudaGetLastError());
    gs_project<<<(kN + kBlock - 1) / kBlock, kBlock>>>(da, dr, dq, k, kM, kN);
    CHECK(cudaGetLastError());
    launches += 3;
  }
  float ms = timer.stop_ms();
  CHECK(cudaDeviceSynchronize());

  std::vector<float> got_r = to_host(dr, kN * kN), got_q = to_host(dq, kM * kN);

  // The same algorithm in double.
  std::vector<double> x(a.begin(), a.end()), r(kN * kN, 0.0), q(kM * kN, 0.0);
  for (int k = 0; k < kN; ++k) {
    double nrm = 0.0;
    for (int i = 0; i < kM; ++i) nrm += x[i * kN + k] * x[i * kN + k];
    r[k * kN + k] = std::sqrt(nrm);
    for (int i = 0; i < kM; ++i) q[i * kN + k] = x[i * kN + k] / r[k * kN + k];
    for (int j = k + 1; j < kN; ++j) {
      double s = 0.0;
      for (int i = 0; i < kM; ++i) s += q[i * kN + k] * x[i * kN + j];
      r[k * kN + j] = s;
      for (int i = 0; i < kM; ++i) x[i * kN + j] -= q[i * kN + k] * s;
    }
  }
  long bad = 0;
  for (int i = 0; i < kN * kN; ++i) bad += !close_enough(got_r[i], r[i], 1e-3, 1e-4);
  for (int i = 0; i < kM * kN; ++i) bad += !close_enough(got_q[i], q[i], 1e-3, 1e-4);
  device_free(da, dr, dq);
  print_timing(ms, launches, 1);
  return verdict("gramschmidt", bad);
}
