// Sampling workload: Jacobi iterations for the 2D Laplace equation on a
// 128 x 128 grid with fixed edges. Every step launches three kernels: the
// sweep, a per-block residual reduction, and a one-block final sum; the host
// reads the residual every 10 steps. 60 steps: 180 launches of 3 kinds.
#include <cmath>
#include <vector>

#include "common.h"

constexpr int kN = 128, kSteps = 60, kThreads = 256, kBlocks = kN * kN / kThreads;

__global__ void sweep(const float* in, float* out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int x = i % kN, y = i / kN;
  if (x == 0 || y == 0 || x == kN - 1 || y == kN - 1) {
    out[i] = in[i];  // the boundary stays fixed
    return;
  }
  out[i] = 0.25f * (in[i - 1] + in[i + 1] + in[i - kN] + in[i + kN]);
}

__global__ void residual_partial(const float* a, const float* b, float* partial) {
  __shared__ float s[kThreads];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float d = a[i] - b[i];
  float sum = block_sum<kThreads>(d * d, s);
  if (threadIdx.x == 0) partial[blockIdx.x] = sum;
}

__global__ void residual_final(const float* partial, float* result) {
  __shared__ float s[kBlocks];
  float sum = block_sum<kBlocks>(partial[threadIdx.x], s);
  if (threadIdx.x == 0) *result = sum;
}

void host_sweep(const std::vector<float>& in, std::vector<float>& out) {
  for (int i = 0; i < kN * kN; ++i) {
    int x = i % kN, y = i / kN;
    bool edge = x == 0 || y == 0 || x == kN - 1 || y == kN - 1;
    out[i] = edge ? in[i] : 0.25f * (in[i - 1] + in[i + 1] + in[i - kN] + in[i + kN]);
  }
}

int main() {
  std::vector<float> h(kN * kN, 0.0f), ref, tmp(kN * kN);
  for (int x = 0; x < kN; ++x) h[x] = 1.0f;  // a hot top edge
  ref = h;
  float *a, *b, *partial, *res;
  CHECK(cudaMalloc(&a, kN * kN * sizeof(float)));
  CHECK(cudaMalloc(&b, kN * kN * sizeof(float)));
  CHECK(cudaMalloc(&partial, kBlocks * sizeof(float)));
  CHECK(cudaMalloc(&res, sizeof(float)));
  CHECK(cudaMemcpy(a, h.data(), kN * kN * sizeof(float), cudaMemcpyHostToDevice));
  float residual = 0;
  for (int step = 0; step < kSteps; ++step) {
    sweep<<<kBlocks, kThreads>>>(a, b);
    residual_partial<<<kBlocks, kThreads>>>(a, b, partial);
    residual_final<<<1, kBlocks>>>(partial, res);
    CHECK(cudaGetLastError());
    if (step % 10 == 9) CHECK(cudaMemcpy(&residual, res, sizeof(float), cudaMemcpyDeviceToHost));
    std::swap(a, b);
    host_sweep(ref, tmp);
    ref.swap(tmp);
  }
  CHECK(cudaMemcpy(h.data(), a, kN * kN * sizeof(float), cudaMemcpyDeviceToHost));
  bool ok = residual > 0;
  for (int i = 0; i < kN * kN; ++i) ok = ok && std::fabs(h[i] - ref[i]) < 1e-5f;
  std::printf("jacobi: %d steps, last residual %.3g\n", kSteps, residual);
  return report("jacobi", ok);
}
