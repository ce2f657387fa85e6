// bicg: the two matrix-vector products of a BiCG step, q = A p and s = A^T r,
// for a 1024 x 1024 float matrix, PolyBench/GPU style: one thread per output
// element looping over the inner dimension with direct global loads. bicg_q
// walks rows (strided across a warp); bicg_s walks columns (coalesced).
#include <cstdint>
#include <vector>

#include "../../../tests/cuda/check.h"

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

std::vector<float> to_host(const float* d, size_t n) {
  std::vector<float> h(n);
  CHECK(cudaMemcpy(h.data(), d, n * sizeof(float), cudaMemcpyDeviceToHost));
  return h;
}

int main() {
  std::vector<float> a(kNX * kNY), p(kNY), r(kNX);
  fill(a, 5);
  fill(p, 17);
  fill(r, 29);
  float *da = to_device(a), *dp = to_device(p), *dr = to_device(r), *dq, *ds;
  CHECK(cudaMalloc(&dq, kNX * sizeof(float)));
  CHECK(cudaMalloc(&ds, kNY * sizeof(float)));

  cudaEvent_t start, stop;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));
  CHECK(cudaEventRecord(start));
  bicg_q<<<(kNX + kBlock - 1) / kBlock, kBlock>>>(da, dp, dq, kNX, kNY);
  CHECK(cudaGetLastError());
  bicg_s<<<(kNY + kBlock - 1) / kBlock, kBlock>>>(da, dr, ds, kNX, kNY);
  CHECK(cudaGetLastError());
  CHECK(cudaEventRecord(stop));
  float ms = elapsed_ms_and_destroy(start, stop);
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
  for (float* d : {da, dp, dr, dq, ds}) CHECK(cudaFree(d));
  std::printf("elapsed_us=%.3f\n", ms * 1000.0f);
  std::printf("launches=%d\n", 2);
  return verdict("bicg", bad);
}
