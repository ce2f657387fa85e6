// conv2d_poly: a 3 x 3 convolution with fixed coefficients over a 1024 x 1024
// float image, PolyBench/GPU style: one thread per output pixel in 32 x 8
// blocks, nine direct global loads per interior pixel with the coefficients
// as immediates (no constant memory, no shared memory); border pixels are
// written as zero.
#include <cstdint>
#include <vector>

#include "../../../tests/cuda/check.h"

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

// Values in [0, 1) from a fixed-seed linear congruential generator.
void fill(std::vector<float>& v, uint32_t seed) {
  for (float& e : v) {
    seed = seed * 1664525u + 1013904223u;
    e = float(seed >> 8) / 16777216.0f;
  }
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
  fill(in, 9);
  size_t bytes = in.size() * sizeof(float);
  float *din, *dout;
  CHECK(cudaMalloc(&din, bytes));
  CHECK(cudaMalloc(&dout, bytes));
  CHECK(cudaMemcpy(din, in.data(), bytes, cudaMemcpyHostToDevice));

  dim3 block(32, 8), grid((kNJ + 31) / 32, (kNI + 7) / 8);
  cudaEvent_t start, stop;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));
  CHECK(cudaEventRecord(start));
  conv2d_3x3<<<grid, block>>>(din, dout, kNI, kNJ);
  CHECK(cudaGetLastError());
  CHECK(cudaEventRecord(stop));
  float ms = elapsed_ms_and_destroy(start, stop);
  CHECK(cudaDeviceSynchronize());

  CHECK(cudaMemcpy(out.data(), dout, bytes, cudaMemcpyDeviceToHost));
  long bad = 0;
  for (int i = 0; i < kNI; ++i)
    for (int j = 0; j < kNJ; ++j) bad += !close_enough(out[i * kNJ + j], host_pixel(in, i, j), 1e-5, 1e-5);
  CHECK(cudaFree(din));
  CHECK(cudaFree(dout));
  std::printf("elapsed_us=%.3f\n", ms * 1000.0f);
  std::printf("launches=%d\n", 1);
  return verdict("conv2d_poly", bad);
}
