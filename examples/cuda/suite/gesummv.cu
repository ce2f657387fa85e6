// gesummv: y = alpha A x + beta B x for two 1024 x 1024 float matrices in a
// single kernel, PolyBench/GPU style: one thread per element of y, looping
// over a row of both matrices with direct global loads (two row-strided
// streams per warp, plus the shared vector x).
#include <vector>

#include "suite.h"

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

int main() {
  std::vector<float> a(kN * kN), b(kN * kN), x(kN), y(kN);
  fill_lcg(a, 7);
  fill_lcg(b, 19);
  fill_lcg(x, 31);
  float *da = to_device(a), *db = to_device(b), *dx = to_device(x), *dy = device_alloc<float>(kN);

  EventTimer timer;
  timer.start();
  gesummv<<<(kN + kBlock - 1) / kBlock, kBlock>>>(da, db, dx, dy, kAlpha, kBeta, kN);
  CHECK(cudaGetLastError());
  float ms = timer.stop_ms();
  CHECK(cudaDeviceSynchronize());

  copy_to_host(y, dy);
  long bad = 0;
  for (int i = 0; i < kN; ++i) {
    double sa = 0, sb = 0;
    for (int j = 0; j < kN; ++j) {
      sa += double(a[i * kN + j]) * x[j];
      sb += double(b[i * kN + j]) * x[j];
    }
    bad += !close_enough(y[i], kAlpha * sa + kBeta * sb, 1e-4);
  }
  device_free(da, db, dx, dy);
  print_timing(ms, 1);
  return verdict("gesummv", bad);
}
