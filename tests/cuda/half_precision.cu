// Half precision (cuda_fp16.h): scalar __hfma/__hmul/__hadd and paired
// __half2 arithmetic. The reference rounds to half after every operation, as
// the device does; the tolerance is one half-precision ulp.
#include <cuda_fp16.h>

#include <cmath>
#include <vector>

#include "check.h"

__global__ void half_math(const __half* a, const __half* b, __half* out, __half2* pairs, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  __half t = __hfma(a[i], b[i], __float2half(0.5f));
  out[i] = __hadd(__hmul(t, __float2half(0.25f)), a[i]);
  __half2 p = __halves2half2(a[i], b[i]);
  pairs[i] = __hmul2(__hadd2(p, p), __float2half2_rn(1.5f));
}

float round_half(float x) { return __half2float(__float2half(x)); }

int main() {
  const int n = 512;
  std::vector<__half> a(n), b(n), out(n);
  std::vector<__half2> pairs(n);
  for (int i = 0; i < n; ++i) {
    a[i] = __float2half((i % 37) * 0.125f - 2.0f);
    b[i] = __float2half((i % 11) * 0.5f + 0.25f);
  }
  __half *da, *db, *dout;
  __half2* dpairs;
  CHECK(cudaMalloc(&da, n * sizeof(__half)));
  CHECK(cudaMalloc(&db, n * sizeof(__half)));
  CHECK(cudaMalloc(&dout, n * sizeof(__half)));
  CHECK(cudaMalloc(&dpairs, n * sizeof(__half2)));
  CHECK(cudaMemcpy(da, a.data(), n * sizeof(__half), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(db, b.data(), n * sizeof(__half), cudaMemcpyHostToDevice));
  half_math<<<(n + 127) / 128, 128>>>(da, db, dout, dpairs, n);
  CHECK_LAUNCH();
  CHECK(cudaMemcpy(out.data(), dout, n * sizeof(__half), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(pairs.data(), dpairs, n * sizeof(__half2), cudaMemcpyDeviceToHost));
  long bad = 0;
  auto near = [](float got, float want) { return std::fabs(got - want) <= std::fabs(want) * (1.0f / 1024) + 1e-3f; };
  for (int i = 0; i < n; ++i) {
    float fa = __half2float(a[i]), fb = __half2float(b[i]);
    float t = round_half(fa * fb + 0.5f);  // fma: one rounding
    float want = round_half(round_half(t * 0.25f) + fa);
    bad += !near(__half2float(out[i]), want);
    bad += !near(__low2float(pairs[i]), round_half(round_half(fa + fa) * 1.5f));
    bad += !near(__high2float(pairs[i]), round_half(round_half(fb + fb) * 1.5f));
  }
  CHECK(cudaFree(da));
  CHECK(cudaFree(db));
  CHECK(cudaFree(dout));
  CHECK(cudaFree(dpairs));
  return verdict("half_precision", bad);
}
