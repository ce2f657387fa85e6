// Suite benchmark: Gaussian elimination without pivoting of a diagonally
// dominant 64 x 64 float system A x = b. For each pivot row t, `fan1` (1-D
// grid) computes the multipliers of column t and `fan2` (2-D grid of 16 x 16
// blocks) subtracts the scaled pivot row from the trailing matrix and the
// right-hand side: 126 small launches queued back to back, then
// back-substitution on the host.
// Exercises: long chains of tiny dependent kernels, shrinking 2-D grids,
// mostly idle threads at the edges of each grid.
#include <vector>

#include "suite.h"

constexpr int kN = 64;
constexpr int kFan1Block = 32;
constexpr int kFan2Block = 16;

// m[i][t] = a[i][t] / a[t][t] for every row i below t.
__global__ void fan1(const float* a, float* m, int n, int t) {
  int i = t + 1 + blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  m[i * n + t] = a[i * n + t] / a[t * n + t];
}

// Rows i > t, columns j >= t: a[i][j] -= m[i][t] * a[t][j]; column t's threads also update b.
__global__ void fan2(float* a, float* b, const float* m, int n, int t) {
  int j = t + blockIdx.x * blockDim.x + threadIdx.x;
  int i = t + 1 + blockIdx.y * blockDim.y + threadIdx.y;
  if (i >= n || j >= n) return;
  float f = m[i * n + t];
  a[i * n + j] -= f * a[t * n + j];
  if (j == t) b[i] -= f * b[t];
}

template <typename T>
std::vector<T> back_substitute(const std::vector<T>& a, const std::vector<T>& b) {
  std::vector<T> x(kN);
  for (int i = kN - 1; i >= 0; --i) {
    T v = b[i];
    for (int j = i + 1; j < kN; ++j) v -= a[i * kN + j] * x[j];
    x[i] = v / a[i * kN + i];
  }
  return x;
}

void make_system(std::vector<float>& a, std::vector<float>& b) {
  XorShift32 rng{0x1234abcdu};
  a.resize(kN * kN);
  b.resize(kN);
  for (int i = 0; i < kN; ++i) {
    for (int j = 0; j < kN; ++j) a[i * kN + j] = rng.uniform_pm1();
    a[i * kN + i] += float(kN);
    b[i] = 10.0f * rng.uniform_pm1();
  }
}

// Same elimination in double; returns the solution and leaves U in `a`.
std::vector<double> host_solve(std::vector<double>& a, std::vector<double> b) {
  for (int t = 0; t < kN - 1; ++t)
    for (int i = t + 1; i < kN; ++i) {
      double f = a[i * kN + t] / a[t * kN + t];
      for (int j = t; j < kN; ++j) a[i * kN + j] -= f * a[t * kN + j];
      b[i] -= f * b[t];
    }
  return back_substitute(a, b);
}

int main() {
  std::vector<float> a, b;
  make_system(a, b);
  std::vector<double> want_u(a.begin(), a.end());
  std::vector<double> want_x = host_solve(want_u, std::vector<double>(b.begin(), b.end()));

  float *d_a = to_device(a), *d_b = to_device(b), *d_m = device_zeros<float>(kN * kN);

  EventTimer timer;
  int launches = 0;
  timer.start();
  for (int t = 0; t < kN - 1; ++t) {
    int rows = kN - 1 - t, cols = kN - t;
    fan1<<<(rows + kFan1Block - 1) / kFan1Block, kFan1Block>>>(d_a, d_m, kN, t);
    dim3 grid((cols + kFan2Block - 1) / kFan2Block, (rows + kFan2Block - 1) / kFan2Block);
    fan2<<<grid, dim3(kFan2Block, kFan2Block)>>>(d_a, d_b, d_m, kN, t);
    launches += 2;
  }
  CHECK(cudaGetLastError());
  float ms = timer.stop_ms();

  copy_to_host(a, d_a);
  copy_to_host(b, d_b);
  std::vector<float> x = back_substitute(a, b);
  long bad = 0;
  for (int i = 0; i < kN; ++i)
    for (int j = i; j < kN; ++j) bad += !close_enough(a[i * kN + j], want_u[i * kN + j], 1e-4, 1e-5);
  for (int i = 0; i < kN; ++i) bad += !close_enough(x[i], want_x[i], 1e-4, 1e-6);
  device_free(d_a, d_b, d_m);
  print_timing(ms, launches, 1);
  return verdict("gaussian", bad);
}
