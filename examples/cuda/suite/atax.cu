// atax: y = A^T (A x) for a 1024 x 1024 float matrix, written the way the
// PolyBench/GPU linear-algebra kernels are: one thread per output element,
// each looping over the inner dimension and reading global memory directly.
// atax_ax gives each thread a row (a warp's loads are a row apart, so every
// load is a separate line); atax_aty gives each thread a column (coalesced).
#include <vector>

#include "suite.h"

constexpr int kNX = 1024, kNY = 1024, kBlock = 256;

// tmp = A x, one thread per row of A.
__global__ void atax_ax(const float* a, const float* x, float* tmp, int nx, int ny) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= nx) return;
  float sum = 0.0f;
  for (int j = 0; j < ny; ++j) sum += a[i * ny + j] * x[j];
  tmp[i] = sum;
}

// y = A^T tmp, one thread per column of A.
__global__ void atax_aty(const float* a, const float* tmp, float* y, int nx, int ny) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= ny) return;
  float sum = 0.0f;
  for (int i = 0; i < nx; ++i) sum += a[i * ny + j] * tmp[i];
  y[j] = sum;
}

std::vector<double> host_atax(const std::vector<float>& a, const std::vector<float>& x) {
  std::vector<double> tmp(kNX, 0.0), y(kNY, 0.0);
  for (int i = 0; i < kNX; ++i)
    for (int j = 0; j < kNY; ++j) tmp[i] += double(a[i * kNY + j]) * x[j];
  for (int i = 0; i < kNX; ++i)
    for (int j = 0; j < kNY; ++j) y[j] += double(a[i * kNY + j]) * tmp[i];
  return y;
}

int main() {
  std::vector<float> a(kNX * kNY), x(kNY), y(kNY);
  fill_lcg(a, 11);
  fill_lcg(x, 23);
  float *da = to_device(a), *dx = to_device(x);
  float *dtmp = device_alloc<float>(kNX), *dy = device_alloc<float>(kNY);

  EventTimer timer;
  timer.start();
  atax_ax<<<(kNX + kBlock - 1) / kBlock, kBlock>>>(da, dx, dtmp, kNX, kNY);
  CHECK(cudaGetLastError());
  atax_aty<<<(kNY + kBlock - 1) / kBlock, kBlock>>>(da, dtmp, dy, kNX, kNY);
  CHECK(cudaGetLastError());
  float ms = timer.stop_ms();
  CHECK(cudaDeviceSynchronize());

  copy_to_host(y, dy);
  std::vector<double> want = host_atax(a, x);
  long bad = 0;
  for (int j = 0; j < kNY; ++j) bad += !close_enough(y[j], want[j], 1e-4);
  device_free(da, dx, dtmp, dy);
  print_timing(ms, 2);
  return verdict("atax", bad);
}
