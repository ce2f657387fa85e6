// three_mm: G = (A B)(C D) for 256 x 256 float matrices as three naive matrix
// products, styled after PolyBench/GPU's 3mm: mm3_product forms E = A B, then
// F = C D, then G = E F, each launch one thread per output element in 32 x 8
// blocks looping over the inner dimension with direct global loads (a warp
// reads one broadcast element of the left operand and a coalesced row segment
// of the right one per step). The third launch reads what the first two wrote.
#include <vector>

#include "suite.h"

constexpr int kNI = 256, kNJ = 256, kNK = 256, kNL = 256, kNM = 256;

// out (n x m) = x (n x p) y (p x m).
__global__ void mm3_product(const float* x, const float* y, float* out, int n, int m, int p) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  int i = blockIdx.y * blockDim.y + threadIdx.y;
  if (i >= n || j >= m) return;
  float sum = 0.0f;
  for (int k = 0; k < p; ++k) sum += x[i * p + k] * y[k * m + j];
  out[i * m + j] = sum;
}

// out (n x m) = x (n x p) y (p x m), accumulated in double.
static std::vector<double> host_product(const std::vector<double>& x, const std::vector<double>& y, int n, int m,
                                        int p) {
  std::vector<double> out(size_t(n) * m, 0.0);
  for (int i = 0; i < n; ++i)
    for (int k = 0; k < p; ++k) {
      double xv = x[i * p + k];
      for (int j = 0; j < m; ++j) out[i * m + j] += xv * y[k * m + j];
    }
  return out;
}

int main() {
  std::vector<float> a(kNI * kNK), b(kNK * kNJ), c(kNJ * kNM), d(kNM * kNL), got(kNI * kNL);
  fill_lcg(a, 31);
  fill_lcg(b, 47);
  fill_lcg(c, 59);
  fill_lcg(d, 71);
  float *da = to_device(a), *db = to_device(b), *dc = to_device(c), *dd = to_device(d);
  float *de = device_alloc<float>(kNI * kNJ), *df = device_alloc<float>(kNJ * kNL);
  float* dg = device_alloc<float>(kNI * kNL);

  dim3 block(32, 8);
  EventTimer timer;
  timer.start();
  mm3_product<<<dim3((kNJ + 31) / 32, (kNI + 7) / 8), block>>>(da, db, de, kNI, kNJ, kNK);
  CHECK(cudaGetLastError());
  mm3_product<<<dim3((kNL + 31) / 32, (kNJ + 7) / 8), block>>>(dc, dd, df, kNJ, kNL, kNM);
  CHECK(cudaGetLastError());
  mm3_product<<<dim3((kNL + 31) / 32, (kNI + 7) / 8), block>>>(de, df, dg, kNI, kNL, kNJ);
  CHECK(cudaGetLastError());
  float ms = timer.stop_ms();
  CHECK(cudaDeviceSynchronize());

  copy_to_host(got, dg);
  auto widen = [](const std::vector<float>& v) { return std::vector<double>(v.begin(), v.end()); };
  std::vector<double> e = host_product(widen(a), widen(b), kNI, kNJ, kNK);
  std::vector<double> f = host_product(widen(c), widen(d), kNJ, kNL, kNM);
  std::vector<double> want = host_product(e, f, kNI, kNL, kNJ);
  long bad = 0;
  for (int i = 0; i < kNI * kNL; ++i) bad += !close_enough(got[i], want[i], 1e-4);
  device_free(da, db, dc, dd, de, df, dg);
  print_timing(ms, 3);
  return verdict("three_mm", bad);
}
