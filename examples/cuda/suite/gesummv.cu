// gesummv: y = alpha A x + beta B x for two 1024 x 1024 float matrices in a
// single kernel, PolyBench/GPU style: one thread per element of y, looping
// over a row of both matrices with direct global loads (two row-strided
// streams per warp, plus the shared vector x).
#include <cstdint>
#include <vector>

#include "../../../tests/cuda/check.h"

constexpr int kN = 1024, kBlock = 256;
constexpr float kAlpha = 1.25f, kBeta = 0.75f;

__global__ void gesummv(const float* a, const float* b, const float* x, float* y, float alpha, float beta,
                        int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float sa = 0.0f, sb = 0.0f;
  for (int j = 0; j < n; ++j) {
    float xj = x[j];
    sa += a[i * n + j] * xj;
    sb += b[i * n + j] * xj;
  }
  y[i] = alpha * sa + beta * sb;
}

// Values in [0, 1) from a fixed-seed linear congruential generator.
void fill(std::vector<float>& v, uint32_t seed) {
  for (float& e : v) {
    seed = seed * 1664525u + 1013904223u;
    e = float(seed >> 8) / 16777216.0f;
  }
}

float* to_device(const std::vector<float>& h) {
  float* d;
  CHECK(cudaMalloc(&d, h.size() * sizeof(float)));
  CHECK(cudaMemcpy(d, h.data(), h.size() * sizeof(float), cudaMemcpyHostToDevice));
  return d;
}

int main() {
  std::vector<float> a(kN * kN), b(kN * kN), x(kN), y(kN);
  fill(a, 7);
  fill(b, 19);
  fill(x, 31);
  float *da = to_device(a), *db = to_device(b), *dx = to_device(x), *dy;
  CHECK(cudaMalloc(&dy, kN * sizeof(float)));

  cudaEvent_t start, stop;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));
  CHECK(cudaEventRecord(start));
  gesummv<<<(kN + kBlock - 1) / kBlock, kBlock>>>(da, db, dx, dy, kAlpha, kBeta, kN);
  CHECK(cudaGetLastError());
  CHECK(cudaEventRecord(stop));
  float ms = elapsed_ms_and_destroy(start, stop);
  CHECK(cudaDeviceSynchronize());

  CHECK(cudaMemcpy(y.data(), dy, kN * sizeof(float), cudaMemcpyDeviceToHost));
  long bad = 0;
  for (int i = 0; i < kN; ++i) {
    double sa = 0, sb = 0;
    for (int j = 0; j < kN; ++j) {
      sa += double(a[i * kN + j]) * x[j];
      sb += double(b[i * kN + j]) * x[j];
    }
    bad += !close_enough(y[i], kAlpha * sa + kBeta * sb, 1e-4);
  }
  for (float* d : {da, db, dx, dy}) CHECK(cudaFree(d));
  std::printf("elapsed_us=%.3f\n", ms * 1000.0f);
  std::printf("launches=%d\n", 1);
  return verdict("gesummv", bad);
}
