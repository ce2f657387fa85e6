// Module variables: __constant__ coefficients written with
// cudaMemcpyToSymbol (also at an offset), a statically initialised
// __device__ table, a __device__ counter read back with
// cudaMemcpyFromSymbol, and cudaGetSymbolAddress/Size.
#include <vector>

#include "check.h"

__constant__ float coeffs[4];
__device__ int table[5] = {10, 20, 30, 40, 50};
__device__ unsigned int visits;
__device__ float results[256];

__global__ void poly(const float* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float v = x[i];
  results[i] = ((coeffs[3] * v + coeffs[2]) * v + coeffs[1]) * v + coeffs[0] + table[i % 5];
  atomicAdd(&visits, 1u);
}

int main() {
  const int n = 200;
  std::vector<float> x(n);
  for (int i = 0; i < n; ++i) x[i] = (i - 100) * 0.125f;
  const float c_low[2] = {1.0f, -2.0f}, c_high[2] = {0.5f, 0.25f};
  CHECK(cudaMemcpyToSymbol(coeffs, c_low, sizeof c_low));
  CHECK(cudaMemcpyToSymbol(coeffs, c_high, sizeof c_high, 2 * sizeof(float)));
  unsigned int zero = 0;
  CHECK(cudaMemcpyToSymbol(visits, &zero, sizeof zero, 0, cudaMemcpyHostToDevice));

  size_t results_size = 0;
  CHECK(cudaGetSymbolSize(&results_size, results));
  void* results_addr = nullptr;
  CHECK(cudaGetSymbolAddress(&results_addr, results));
  CHECK(cudaMemset(results_addr, 0, results_size));

  float* dx;
  CHECK(cudaMalloc(&dx, n * sizeof(float)));
  CHECK(cudaMemcpy(dx, x.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  poly<<<(n + 63) / 64, 64>>>(dx, n);
  CHECK_LAUNCH();

  std::vector<float> got(256);
  unsigned int got_visits = 0;
  int got_table[5];
  CHECK(cudaMemcpy(got.data(), results_addr, 256 * sizeof(float), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpyFromSymbol(&got_visits, visits, sizeof got_visits));
  CHECK(cudaMemcpyFromSymbol(got_table, table, sizeof got_table));
  long bad = (results_size != 256 * sizeof(float)) + (got_visits != static_cast<unsigned int>(n));
  for (int k = 0; k < 5; ++k) bad += got_table[k] != 10 * (k + 1);
  const float c[4] = {1.0f, -2.0f, 0.5f, 0.25f};
  for (int i = 0; i < 256; ++i) {
    float v = i < n ? x[i] : 0.0f;
    float want = i < n ? ((c[3] * v + c[2]) * v + c[1]) * v + c[0] + 10.0f * (i % 5 + 1) : 0.0f;
    bad += !close_enough(got[i], want, 1e-5, 1e-5);
  }
  CHECK(cudaFree(dx));
  return verdict("symbols_constant", bad);
}
