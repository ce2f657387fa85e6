// Double precision: Horner polynomial, sqrt, fma, division and a
// per-thread dot product with a loop; compared with a 1e-12 tolerance.
#include <cmath>
#include <vector>

#include "check.h"

__host__ __device__ double horner(double x) { return ((0.125 * x - 0.75) * x + 1.5) * x - 2.0; }

__global__ void dp(const double* a, const double* b, double* out, int n, int len) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  double dot = 0.0;
  for (int k = 0; k < len; ++k) dot = fma(a[(i + k) % n], b[(i * 3 + k) % n], dot);
  out[i] = horner(a[i]) + sqrt(fabs(dot)) / (1.0 + b[i] * b[i]);
}

int main() {
  const int n = 700, len = 16;
  std::vector<double> a(n), b(n), out(n);
  for (int i = 0; i < n; ++i) {
    a[i] = std::sin(0.01 * i) * 3.0;
    b[i] = std::cos(0.02 * i) + 0.001 * i;
  }
  double *da, *db, *dout;
  CHECK(cudaMalloc(&da, n * sizeof(double)));
  CHECK(cudaMalloc(&db, n * sizeof(double)));
  CHECK(cudaMalloc(&dout, n * sizeof(double)));
  CHECK(cudaMemcpy(da, a.data(), n * sizeof(double), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(db, b.data(), n * sizeof(double), cudaMemcpyHostToDevice));
  dp<<<(n + 127) / 128, 128>>>(da, db, dout, n, len);
  CHECK_LAUNCH();
  CHECK(cudaMemcpy(out.data(), dout, n * sizeof(double), cudaMemcpyDeviceToHost));
  long bad = 0;
  for (int i = 0; i < n; ++i) {
    double dot = 0.0;
    for (int k = 0; k < len; ++k) dot = std::fma(a[(i + k) % n], b[(i * 3 + k) % n], dot);
    double want = horner(a[i]) + std::sqrt(std::fabs(dot)) / (1.0 + b[i] * b[i]);
    bad += !close_enough(out[i], want, 1e-12, 1e-12);
  }
  CHECK(cudaFree(da));
  CHECK(cudaFree(db));
  CHECK(cudaFree(dout));
  return verdict("double_precision", bad);
}
