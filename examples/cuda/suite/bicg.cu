// bicg: the two matrix-vector products of a BiCG step, q = A p and s = A^T r,
// for a 1024 x 1024 float matrix, PolyBench/GPU style: one thread per output
// element looping over the inner dimension with direct global loads. bicg_q
// walks rows (strided across a warp); bicg_s walks columns (coalesced).
#include <vector>

#include "suite.h"

constexpr int kNX = 1024, kNY = 1024, kBlock = 256;

// q = A p, one thread per row of A.
__global__ void bicg_q(const float* a, const float* p, float* q, int nx, int ny) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= nx) return;
  float sum = 0.0f;
  for (int j = 0; j < ny; ++j) sum += a[i * ny + j] * p[j];
  q[i] = sum;
}

// s = A^T r, one thread per column of A.
__global__ void bicg_s(const float* a, const float* r, float* s, int nx, int ny) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= ny) return;
  float sum = 0.0f;
  for (int i = 0; i < nx; ++i) sum += r[i] * a[i * ny + j];
  s[j] = sum;
}

int main() {
  std::vector<float> a(kNX * kNY), p(kNY), r(kNX);
  fill_lcg(a, 5);
  fill_lcg(p, 17);
  fill_lcg(r, 29);
  float *da = to_device(a), *dp = to_device(p), *dr = to_device(r);
  float *dq = device_alloc<float>(kNX), *ds = device_alloc<float>(kNY);

  EventTimer timer;
  timer.start();
  bicg_q<<<(kNX + kBlock - 1) / kBlock, kBlock>>>(da, dp, dq, kNX, kNY);
  CHECK(cudaGetLastError());
  bicg_s<<<(kNY + kBlock - 1) / kBlock, kBlock>>>(da, dr, ds, kNX, kNY);
  CHECK(cudaGetLastError());
  float ms = timer.stop_ms();
  CHECK(cudaDeviceSynchronize());

  std::vector<float> q = to_host(dq, kNX), s = to_host(ds, kNY);
  std::vector<double> want_q(kNX, 0.0), want_s(kNY, 0.0);
  for (int i = 0; i < kNX; ++i)
    for (int j = 0; j < kNY; ++j) {
      want_q[i] += double(a[i * kNY + j]) * p[j];
      want_s[j] += double(r[i]) * a[i * kNY + j];
    }
  long bad = 0;
  for (int i = 0; i < kNX; ++i) bad += !close_enough(q[i], want_q[i], 1e-4);
  for (int j = 0; j < kNY; ++j) bad += !close_enough(s[j], want_s[j], 1e-4);
  device_free(da, dp, dr, dq, ds);
  print_timing(ms, 2);
  return verdict("bicg", bad);
}
