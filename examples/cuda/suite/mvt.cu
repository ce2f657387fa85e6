// mvt: two matrix-vector products that update their outputs in place,
// x1 += A y1 and x2 += A^T y2, for a 1024 x 1024 float matrix, PolyBench/GPU
// style: one thread per output element looping over the inner dimension with
// direct global loads. mvt_x1 walks rows (strided across a warp); mvt_x2 walks
// columns (coalesced). Both read and then write their own output element.
#include <vector>

#include "suite.h"

constexpr int kN = 1024, kBlock = 256;

// x1 += A y1, one thread per row of A.
__global__ void mvt_x1(const float* a, const float* y1, float* x1, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float sum = x1[i];
  for (int j = 0; j < n; ++j) sum += a[i * n + j] * y1[j];
  x1[i] = sum;
}

// x2 += A^T y2, one thread per column of A.
__global__ void mvt_x2(const float* a, const float* y2, float* x2, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float sum = x2[i];
  for (int j = 0; j < n; ++j) sum += a[j * n + i] * y2[j];
  x2[i] = sum;
}

int main() {
  std::vector<float> a(kN * kN), x1(kN), x2(kN), y1(kN), y2(kN);
  fill_lcg(a, 3);
  fill_lcg(x1, 41);
  fill_lcg(x2, 43);
  fill_lcg(y1, 47);
  fill_lcg(y2, 53);
  float *da = to_device(a), *dx1 = to_device(x1), *dx2 = to_device(x2);
  float *dy1 = to_device(y1), *dy2 = to_device(y2);

  EventTimer timer;
  timer.start();
  mvt_x1<<<(kN + kBlock - 1) / kBlock, kBlock>>>(da, dy1, dx1, kN);
  CHECK(cudaGetLastError());
  mvt_x2<<<(kN + kBlock - 1) / kBlock, kBlock>>>(da, dy2, dx2, kN);
  CHECK(cudaGetLastError());
  float ms = timer.stop_ms();
  CHECK(cudaDeviceSynchronize());

  std::vector<float> got1 = to_host(dx1, kN), got2 = to_host(dx2, kN);
  std::vector<double> want1(x1.begin(), x1.end()), want2(x2.begin(), x2.end());
  for (int i = 0; i < kN; ++i)
    for (int j = 0; j < kN; ++j) {
      want1[i] += double(a[i * kN + j]) * y1[j];
      want2[j] += double(a[i * kN + j]) * y2[i];
    }
  long bad = 0;
  for (int i = 0; i < kN; ++i) bad += !close_enough(got1[i], want1[i], 1e-4) + !close_enough(got2[i], want2[i], 1e-4);
  device_free(da, dx1, dx2, dy1, dy2);
  print_timing(ms, 2);
  return verdict("mvt", bad);
}
