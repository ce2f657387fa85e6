// jacobi2d: 20 time steps of the 5-point Jacobi stencil on a 512 x 512 float
// grid, styled after PolyBench/GPU jacobi-2d-imper: each step is two kernels,
// the first averaging A's interior neighbourhoods into B, the second copying
// B's interior back into A; one thread per point in 32 x 8 blocks, direct
// global loads, boundary rows and columns fixed.
#include <vector>

#include "suite.h"

constexpr int kN = 512, kSteps = 20;

__global__ void jacobi_step(const float* a, float* b, int n) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  int i = blockIdx.y * blockDim.y + threadIdx.y;
  if (i >= 1 && i < n - 1 && j >= 1 && j < n - 1)
    b[i * n + j] = 0.2f * (a[i * n + j] + a[i * n + j - 1] + a[i * n + j + 1] + a[(i + 1) * n + j] + a[(i - 1) * n + j]);
}

__global__ void jacobi_copy(float* a, const float* b, int n) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  int i = blockIdx.y * blockDim.y + threadIdx.y;
  if (i >= 1 && i < n - 1 && j >= 1 && j < n - 1) a[i * n + j] = b[i * n + j];
}

int main() {
  std::vector<float> a(kN * kN), got(kN * kN);
  fill_lcg(a, 55);
  float *da = to_device(a), *db = to_device(a);

  dim3 block(32, 8), grid((kN + 31) / 32, (kN + 7) / 8);
  EventTimer timer;
  timer.start();
  int launches = 0;
  for (int t = 0; t < kSteps; ++t) {
    jacobi_step<<<grid, block>>>(da, db, kN);
    jacobi_copy<<<grid, block>>>(da, db, kN);
    launches += 2;
  }
  CHECK(cudaGetLastError());
  float ms = timer.stop_ms();
  CHECK(cudaDeviceSynchronize());
  copy_to_host(got, da);

  // Host reference in float with the same summation order (the result is
  // an average, so rounding stays at the level of a few ulps).
  std::vector<float> ha = a, hb = a;
  for (int t = 0; t < kSteps; ++t) {
    for (int i = 1; i < kN - 1; ++i)
      for (int j = 1; j < kN - 1; ++j)
        hb[i * kN + j] = 0.2f * (ha[i * kN + j] + ha[i * kN + j - 1] + ha[i * kN + j + 1] +
                                 ha[(i + 1) * kN + j] + ha[(i - 1) * kN + j]);
    for (int i = 1; i < kN - 1; ++i)
      for (int j = 1; j < kN - 1; ++j) ha[i * kN + j] = hb[i * kN + j];
  }
  long bad = 0;
  for (int i = 0; i < kN * kN; ++i) bad += !close_enough(got[i], ha[i], 1e-5, 1e-6);
  device_free(da, db);
  print_timing(ms, launches);
  return verdict("jacobi2d", bad);
}
