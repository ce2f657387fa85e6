// fdtd2d: 20 time steps of the 2-D finite-difference time-domain kernel on
// 512 x 512 float fields, styled after PolyBench/GPU's fdtd2d: each step is
// three dependent launches over 32 x 8 blocks, one thread per cell:
// fdtd_step_ey (row 0 takes the step's source value _fict_[t], the rest
// ey -= 0.5 (hz - hz above)), fdtd_step_ex (ex -= 0.5 (hz - hz left), column 0
// untouched) and fdtd_step_hz (hz -= 0.7 (the ex and ey differences), last
// row and column untouched). All 60 launches are queued back to back; each
// reads neighbours the previous launch wrote.
#include <vector>

#include "suite.h"

constexpr int kNX = 512, kNY = 512, kSteps = 20;

__global__ void fdtd_step_ey(const float* fict, float* ey, const float* hz, int t, int nx, int ny) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  int i = blockIdx.y * blockDim.y + threadIdx.y;
  if (i == 0 && j < ny) {
    ey[i * ny + j] = fict[t];
  } else if (i < nx && j < ny) {
    ey[i * ny + j] = ey[i * ny + j] - 0.5f * (hz[i * ny + j] - hz[(i - 1) * ny + j]);
  }
}

__global__ void fdtd_step_ex(float* ex, const float* hz, int nx, int ny) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  int i = blockIdx.y * blockDim.y + threadIdx.y;
  if (i < nx && j < ny && j > 0) ex[i * ny + j] = ex[i * ny + j] - 0.5f * (hz[i * ny + j] - hz[i * ny + (j - 1)]);
}

__global__ void fdtd_step_hz(const float* ex, const float* ey, float* hz, int nx, int ny) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  int i = blockIdx.y * blockDim.y + threadIdx.y;
  if (i < nx - 1 && j < ny - 1)
    hz[i * ny + j] = hz[i * ny + j] - 0.7f * (ex[i * ny + (j + 1)] - ex[i * ny + j] + ey[(i + 1) * ny + j] -
                                              ey[i * ny + j]);
}

int main() {
  std::vector<float> fict(kSteps), ex(kNX * kNY), ey(kNX * kNY), hz(kNX * kNY);
  for (int t = 0; t < kSteps; ++t) fict[t] = float(t);
  fill_lcg(ex, 101);
  fill_lcg(ey, 103);
  fill_lcg(hz, 107);
  float *dfict = to_device(fict), *dex = to_device(ex), *dey = to_device(ey), *dhz = to_device(hz);

  dim3 block(32, 8), grid((kNY + 31) / 32, (kNX + 7) / 8);
  int launches = 0;
  EventTimer timer;
  timer.start();
  for (int t = 0; t < kSteps; ++t) {
    fdtd_step_ey<<<grid, block>>>(dfict, dey, dhz, t, kNX, kNY);
    CHECK(cudaGetLastError());
    fdtd_step_ex<<<grid, block>>>(dex, dhz, kNX, kNY);
    CHECK(cudaGetLastError());
    fdtd_step_hz<<<grid, block>>>(dex, dey, dhz, kNX, kNY);
    CHECK(cudaGetLastError());
    launches += 3;
  }
  float ms = timer.stop_ms();
  CHECK(cudaDeviceSynchronize());

  std::vector<float> got_hz(kNX * kNY), got_ex(kNX * kNY), got_ey(kNX * kNY);
  copy_to_host(got_hz, dhz);
  copy_to_host(got_ex, dex);
  copy_to_host(got_ey, dey);

  std::vector<double> rex(ex.begin(), ex.end()), rey(ey.begin(), ey.end()), rhz(hz.begin(), hz.end());
  for (int t = 0; t < kSteps; ++t) {
    for (int j = 0; j < kNY; ++j) rey[j] = fict[t];
    for (int i = 1; i < kNX; ++i)
      for (int j = 0; j < kNY; ++j) rey[i * kNY + j] -= 0.5 * (rhz[i * kNY + j] - rhz[(i - 1) * kNY + j]);
    for (int i = 0; i < kNX; ++i)
      for (int j = 1; j < kNY; ++j) rex[i * kNY + j] -= 0.5 * (rhz[i * kNY + j] - rhz[i * kNY + j - 1]);
    for (int i = 0; i < kNX - 1; ++i)
      for (int j = 0; j < kNY - 1; ++j)
        rhz[i * kNY + j] -= 0.7 * (rex[i * kNY + j + 1] - rex[i * kNY + j] + rey[(i + 1) * kNY + j] - rey[i * kNY + j]);
  }
  long bad = 0;
  for (int i = 0; i < kNX * kNY; ++i) {
    bad += !close_enough(got_hz[i], rhz[i], 1e-4, 1e-3);
    bad += !close_enough(got_ex[i], rex[i], 1e-4, 1e-3);
    bad += !close_enough(got_ey[i], rey[i], 1e-4, 1e-3);
  }
  device_free(dfict, dex, dey, dhz);
  print_timing(ms, launches, 1);
  return verdict("fdtd2d", bad);
}
