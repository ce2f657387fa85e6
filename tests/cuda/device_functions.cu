// Real calls (__noinline__): scalar and pointer parameters, a struct return
// value, a call from inside a divergent branch, and nested calls.
#include <algorithm>
#include <vector>

#include "check.h"

struct MinMax {
  int lo, hi;
};

__device__ __noinline__ int clamp_add(int a, int b, int lo, int hi) {
  int s = a + b;
  return s < lo ? lo : (s > hi ? hi : s);
}

__device__ __noinline__ MinMax min_max(const int* v, int count) {
  MinMax m{v[0], v[0]};
  for (int k = 1; k < count; ++k) {
    m.lo = min(m.lo, v[k]);
    m.hi = max(m.hi, v[k]);
  }
  return m;
}

__device__ __noinline__ float weighted(float x, float w) { return x * w + static_cast<float>(clamp_add(2, 3, 0, 4)); }

__global__ void calls(const int* in, int* out_range, float* out_w, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i + 4 > n) return;
  MinMax m = min_max(in + i, 4);
  out_range[i] = clamp_add(m.hi, -m.lo, 0, 40);
  if (i % 3 == 0) out_w[i] = weighted(static_cast<float>(in[i]), 0.5f);
  else out_w[i] = -1.0f;
}

int main() {
  const int n = 600;
  std::vector<int> in(n);
  for (int i = 0; i < n; ++i) in[i] = (i * 29) % 61 - 30;
  int *d_in, *d_range;
  float* d_w;
  CHECK(cudaMalloc(&d_in, n * sizeof(int)));
  CHECK(cudaMalloc(&d_range, n * sizeof(int)));
  CHECK(cudaMalloc(&d_w, n * sizeof(float)));
  CHECK(cudaMemcpy(d_in, in.data(), n * sizeof(int), cudaMemcpyHostToDevice));
  calls<<<(n + 63) / 64, 64>>>(d_in, d_range, d_w, n);
  CHECK_LAUNCH();
  std::vector<int> range(n);
  std::vector<float> w(n);
  CHECK(cudaMemcpy(range.data(), d_range, n * sizeof(int), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(w.data(), d_w, n * sizeof(float), cudaMemcpyDeviceToHost));
  long bad = 0;
  for (int i = 0; i + 4 <= n; ++i) {
    int lo = in[i], hi = in[i];
    for (int k = 1; k < 4; ++k) lo = std::min(lo, in[i + k]), hi = std::max(hi, in[i + k]);
    int want_range = std::min(std::max(hi - lo, 0), 40);
    float want_w = (i % 3 == 0) ? in[i] * 0.5f + 4.0f : -1.0f;
    bad += (range[i] != want_range) + (w[i] != want_w);
  }
  CHECK(cudaFree(d_in));
  CHECK(cudaFree(d_range));
  CHECK(cudaFree(d_w));
  return verdict("device_functions", bad);
}
