// lu: in-place LU decomposition (no pivoting) of a 128 x 128 float matrix,
// styled after PolyBench/GPU lu: the host loops over k and launches two
// kernels per step, the first dividing row k's trailing elements by the
// pivot A[k][k], the second a 2D grid updating the trailing submatrix
// A[i][j] -= A[i][k] * A[k][j]; 256 launches. The matrix is made diagonally
// dominant so that no pivoting is needed.
#include <cmath>
#include <vector>

#include "suite.h"

constexpr int kN = 128;

__global__ void lu_scale_row(float* a, int k, int n) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j > k && j < n) a[k * n + j] = a[k * n + j] / a[k * n + k];
}

__global__ void lu_update(float* a, int k, int n) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  int i = blockIdx.y * blockDim.y + threadIdx.y;
  if (i > k && j > k && i < n && j < n) a[i * n + j] = a[i * n + j] - a[i * n + k] * a[k * n + j];
}

int main() {
  std::vector<float> a(kN * kN), got(kN * kN);
  fill_lcg(a, 77);
  for (int i = 0; i < kN; ++i) a[i * kN + i] += float(kN);
  float* da = to_device(a);

  EventTimer timer;
  timer.start();
  int launches = 0;
  for (int k = 0; k < kN; ++k) {
    lu_scale_row<<<(kN + 255) / 256, 256>>>(da, k, kN);
    lu_update<<<dim3((kN + 31) / 32, (kN + 7) / 8), dim3(32, 8)>>>(da, k, kN);
    launches += 2;
  }
  CHECK(cudaGetLastError());
  float ms = timer.stop_ms();
  CHECK(cudaDeviceSynchronize());
  copy_to_host(got, da);

  // The same algorithm on the host in double; the factors match to float rounding.
  std::vector<double> h(a.begin(), a.end());
  for (int k = 0; k < kN; ++k) {
    for (int j = k + 1; j < kN; ++j) h[k * kN + j] /= h[k * kN + k];
    for (int i = k + 1; i < kN; ++i)
      for (int j = k + 1; j < kN; ++j) h[i * kN + j] -= h[i * kN + k] * h[k * kN + j];
  }
  long bad = 0;
  for (int i = 0; i < kN * kN; ++i) bad += !close_enough(got[i], h[i], 1e-3, 1e-5);
  device_free(da);
  print_timing(ms, launches);
  return verdict("lu", bad);
}
