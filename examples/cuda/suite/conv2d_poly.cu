// conv2d_poly: a 3 x 3 convolution with fixed coefficients over a 1024 x 1024
// float image, PolyBench/GPU style: one thread per output pixel in 32 x 8
// blocks, nine direct global loads per interior pixel with the coefficients
// as immediates (no constant memory, no shared memory); border pixels are
// written as zero.
#include <vector>

#include "suite.h"

constexpr int kNI = 1024, kNJ = 1024;

// Row-major 3 x 3 coefficients, mixed signs, shared by the kernel and the host check.
#define COEFFS {0.1f, -0.3f, 0.6f, 0.2f, 0.5f, -0.7f, -0.4f, 0.8f, 0.3f}

__global__ void conv2d_3x3(const float* in, float* out, int ni, int nj) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  int i = blockIdx.y * blockDim.y + threadIdx.y;
  if (i >= ni || j >= nj) return;
  if (i == 0 || j == 0 || i == ni - 1 || j == nj - 1) {
    out[i * nj + j] = 0.0f;
    return;
  }
  const float w[9] = COEFFS;
  float sum = 0.0f;
#pragma unroll
  for (int di = -1; di <= 1; ++di)
#pragma unroll
    for (int dj = -1; dj <= 1; ++dj) sum += w[(di + 1) * 3 + dj + 1] * in[(i + di) * nj + j + dj];
  out[i * nj + j] = sum;
}

double host_pixel(const std::vector<float>& in, int i, int j) {
  if (i == 0 || j == 0 || i == kNI - 1 || j == kNJ - 1) return 0.0;
  const float w[9] = COEFFS;
  double sum = 0.0;
  for (int di = -1; di <= 1; ++di)
    for (int dj = -1; dj <= 1; ++dj) sum += double(w[(di + 1) * 3 + dj + 1]) * in[(i + di) * kNJ + j + dj];
  return sum;
}

int main() {
  std::vector<float> in(kNI * kNJ), out(kNI * kNJ);
  fill_lcg(in, 9);
  float *din = to_device(in), *dout = device_alloc<float>(out.size());

  dim3 block(32, 8), grid((kNJ + 31) / 32, (kNI + 7) / 8);
  EventTimer timer;
  timer.start();
  conv2d_3x3<<<grid, block>>>(din, dout, kNI, kNJ);
  CHECK(cudaGetLastError());
  float ms = timer.stop_ms();
  CHECK(cudaDeviceSynchronize());

  copy_to_host(out, dout);
  long bad = 0;
  for (int i = 0; i < kNI; ++i)
    for (int j = 0; j < kNJ; ++j) bad += !close_enough(out[i * kNJ + j], host_pixel(in, i, j), 1e-5, 1e-5);
  device_free(din, dout);
  print_timing(ms, 1);
  return verdict("conv2d_poly", bad);
}
