// conv3d: a 3 x 3 x 3 convolution with 27 fixed coefficients over a
// 32 x 128 x 128 float volume, styled after PolyBench/GPU 3DCONV: the host
// loops over the outer (i) planes and launches one kernel per plane, each
// thread computing one (j, k) point of that plane with 27 direct global loads
// and the coefficients as immediates; points on the volume's faces stay zero
// (the kernel skips them, the output buffer starts zeroed).
#include <vector>

#include "suite.h"

constexpr int kNI = 32, kNJ = 128, kNK = 128;

// Coefficients indexed [di+1][dj+1][dk+1]; mixed signs, shared with the host check.
#define COEFFS3                                                                       \
  {                                                                                   \
    0.2f, -0.3f, 0.4f, 0.5f, -0.6f, 0.7f, -0.8f, 0.9f, 0.1f, -0.2f, 0.3f, -0.4f, 0.5f, \
        0.6f, -0.7f, 0.8f, -0.9f, 0.15f, 0.25f, -0.35f, 0.45f, -0.55f, 0.65f, 0.75f,  \
        -0.85f, 0.95f, -0.05f                                                         \
  }

__global__ void conv3d_plane(const float* a, float* b, int i, int nj, int nk) {
  int k = blockIdx.x * blockDim.x + threadIdx.x;
  int j = blockIdx.y * blockDim.y + threadIdx.y;
  if (j < 1 || k < 1 || j >= nj - 1 || k >= nk - 1) return;
  const float c[27] = COEFFS3;
  float sum = 0.0f;
#pragma unroll
  for (int di = -1; di <= 1; ++di)
#pragma unroll
    for (int dj = -1; dj <= 1; ++dj)
#pragma unroll
      for (int dk = -1; dk <= 1; ++dk)
        sum += c[(di + 1) * 9 + (dj + 1) * 3 + dk + 1] * a[((i + di) * nj + j + dj) * nk + k + dk];
  b[(i * nj + j) * nk + k] = sum;
}

int main() {
  const size_t n = size_t(kNI) * kNJ * kNK;
  std::vector<float> a(n), got(n);
  fill_lcg(a, 33);
  float *da = to_device(a), *db = device_zeros<float>(n);

  dim3 block(32, 8), grid((kNK + 31) / 32, (kNJ + 7) / 8);
  EventTimer timer;
  timer.start();
  int launches = 0;
  for (int i = 1; i < kNI - 1; ++i) {
    conv3d_plane<<<grid, block>>>(da, db, i, kNJ, kNK);
    ++launches;
  }
  CHECK(cudaGetLastError());
  float ms = timer.stop_ms();
  CHECK(cudaDeviceSynchronize());

  copy_to_host(got, db);
  const float c[27] = COEFFS3;
  long bad = 0;
  for (int i = 0; i < kNI; ++i)
    for (int j = 0; j < kNJ; ++j)
      for (int k = 0; k < kNK; ++k) {
        double want = 0.0;
        if (i > 0 && j > 0 && k > 0 && i < kNI - 1 && j < kNJ - 1 && k < kNK - 1)
          for (int di = -1; di <= 1; ++di)
            for (int dj = -1; dj <= 1; ++dj)
              for (int dk = -1; dk <= 1; ++dk)
                want += double(c[(di + 1) * 9 + (dj + 1) * 3 + dk + 1]) *
                        a[((i + di) * kNJ + j + dj) * kNK + k + dk];
        bad += !close_enough(got[(i * kNJ + j) * kNK + k], want, 1e-4, 1e-5);
      }
  device_free(da, db);
  print_timing(ms, launches);
  return verdict("conv3d", bad);
}
