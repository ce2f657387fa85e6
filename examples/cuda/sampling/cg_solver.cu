// Sampling workload: conjugate gradient for a screened 2D Poisson equation (5-point
// stencil, matrix-free) on a 128 x 128 grid, 30 iterations. Each iteration:
// the stencil product, two dot products (per-block partial sums and a
// one-block final sum each), and three vector updates: 8 launches of 5 kinds.
// The residual must fall, and the host checks the final one.
#include <cmath>
#include <vector>

#include "common.h"

constexpr int kN = 128, kLen = kN * kN, kThreads = 256, kBlocks = kLen / kThreads, kIters = 30;

// y = A x with A the 5-point Laplacian plus 0.2 on the diagonal (a screened
// Poisson equation: well conditioned, so 30 iterations converge), Dirichlet
// edges (zero outside).
__global__ void stencil(const float* x, float* y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int c = i % kN, r = i / kN;
  float v = 4.2f * x[i];
  if (c > 0) v -= x[i - 1];
  if (c < kN - 1) v -= x[i + 1];
  if (r > 0) v -= x[i - kN];
  if (r < kN - 1) v -= x[i + kN];
  y[i] = v;
}

__global__ void dot_partial(const float* a, const float* b, float* partial) {
  __shared__ float s[kThreads];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float sum = block_sum<kThreads>(a[i] * b[i], s);
  if (threadIdx.x == 0) partial[blockIdx.x] = sum;
}

__global__ void dot_final(const float* partial, float* out) {
  __shared__ float s[kBlocks];
  float sum = block_sum<kBlocks>(partial[threadIdx.x], s);
  if (threadIdx.x == 0) *out = sum;
}

// y += (num / den) * x, with sign: the scalars stay on the device.
__global__ void axpy(float* y, const float* x, const float* num, const float* den, float sign) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  y[i] += sign * (*num / *den) * x[i];
}

// p = r + (num / den) * p
__global__ void xpay(float* p, const float* r, const float* num, const float* den) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  p[i] = r[i] + (*num / *den) * p[i];
}

float* alloc(int n) {
  float* p;
  CHECK(cudaMalloc(&p, n * sizeof(float)));
  return p;
}

int main() {
  std::vector<float> b(kLen);
  for (int i = 0; i < kLen; ++i) b[i] = (i % kN > kN / 4 && i % kN < 3 * kN / 4) ? 1.0f : 0.0f;
  float *x = alloc(kLen), *r = alloc(kLen), *p = alloc(kLen), *ap = alloc(kLen), *partial = alloc(kBlocks);
  float *rr = alloc(1), *rr_new = alloc(1), *pap = alloc(1);
  CHECK(cudaMemset(x, 0, kLen * sizeof(float)));
  CHECK(cudaMemcpy(r, b.data(), kLen * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(p, b.data(), kLen * sizeof(float), cudaMemcpyHostToDevice));
  dot_partial<<<kBlocks, kThreads>>>(r, r, partial);
  dot_final<<<1, kBlocks>>>(partial, rr);
  float first = 0, last = 0;
  CHECK(cudaMemcpy(&first, rr, sizeof(float), cudaMemcpyDeviceToHost));
  for (int it = 0; it < kIters; ++it) {
    stencil<<<kBlocks, kThreads>>>(p, ap);
    dot_partial<<<kBlocks, kThreads>>>(p, ap, partial);
    dot_final<<<1, kBlocks>>>(partial, pap);
    axpy<<<kBlocks, kThreads>>>(x, p, rr, pap, 1.0f);
    axpy<<<kBlocks, kThreads>>>(r, ap, rr, pap, -1.0f);
    dot_partial<<<kBlocks, kThreads>>>(r, r, partial);
    dot_final<<<1, kBlocks>>>(partial, rr_new);
    xpay<<<kBlocks, kThreads>>>(p, r, rr_new, rr);
    CHECK(cudaGetLastError());
    std::swap(rr, rr_new);
  }
  CHECK(cudaMemcpy(&last, rr, sizeof(float), cudaMemcpyDeviceToHost));
  // The residual the iteration tracks must match b - A x computed here.
  std::vector<float> hx(kLen);
  CHECK(cudaMemcpy(hx.data(), x, kLen * sizeof(float), cudaMemcpyDeviceToHost));
  double res = 0;
  for (int i = 0; i < kLen; ++i) {
    int c = i % kN, rw = i / kN;
    double v = 4.2 * hx[i] - (c > 0 ? hx[i - 1] : 0) - (c < kN - 1 ? hx[i + 1] : 0) - (rw > 0 ? hx[i - kN] : 0) -
               (rw < kN - 1 ? hx[i + kN] : 0);
    res += (b[i] - v) * (b[i] - v);
  }
  std::printf("cg_solver: %d iterations, |r|^2 %.4g -> %.4g (host %.4g)\n", kIters, first, last, res);
  bool ok = last < 1e-3f * first && std::fabs(res - last) <= 1e-4 * first;
  return report("cg_solver", ok);
}
