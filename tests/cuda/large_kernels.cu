// Kernels long enough that a GPU's fixed per-kernel cost (a few thousand
// cycles) is a small part of them, for correlating against a real GPU
// (docs/validation.md): a DRAM-bound copy-scale over 48 MiB in and out, and
// an FFMA-bound loop (four independent chains per thread) over a grid of
// several waves. Both results are checked on the host.
#include <vector>

#include "check.h"

__global__ void scale_copy(int n, float a, const float* __restrict__ x, float* __restrict__ y) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) y[i] = a * x[i];
}

__global__ void ffma_chains(int iters, float* out) {
  float a = threadIdx.x * 1e-3f, b = a + 1, c = a + 2, d = a + 3;
  for (int k = 0; k < iters; ++k) {
    a = a * 0.999f + 0.5f;
    b = b * 0.999f + 0.5f;
    c = c * 0.999f + 0.5f;
    d = d * 0.999f + 0.5f;
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = a + b + c + d;
}

int main() {
  const int n = 12 << 20;  // 48 MiB per array: beyond any L2 here
  std::vector<float> x(n), y(n);
  for (int i = 0; i < n; ++i) x[i] = static_cast<float>(i % 1000) * 0.5f;
  float *dx, *dy;
  CHECK(cudaMalloc(&dx, n * sizeof(float)));
  CHECK(cudaMalloc(&dy, n * sizeof(float)));
  CHECK(cudaMemcpy(dx, x.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  scale_copy<<<1056, 256>>>(n, 3.0f, dx, dy);
  CHECK_LAUNCH();
  CHECK(cudaMemcpy(y.data(), dy, n * sizeof(float), cudaMemcpyDeviceToHost));
  long bad = 0;
  for (int i = 0; i < n; ++i) bad += y[i] != 3.0f * x[i];

  const int blocks = 1056, threads = 256, iters = 512;
  float* dout;
  CHECK(cudaMalloc(&dout, blocks * threads * sizeof(float)));
  ffma_chains<<<blocks, threads>>>(iters, dout);
  CHECK_LAUNCH();
  std::vector<float> out(blocks * threads);
  CHECK(cudaMemcpy(out.data(), dout, out.size() * sizeof(float), cudaMemcpyDeviceToHost));
  for (int t = 0; t < threads; t += 37) {  // one block's threads are enough: every block computes the same
    float a = t * 1e-3f, b = a + 1, c = a + 2, d = a + 3;
    for (int k = 0; k < iters; ++k) {
      a = a * 0.999f + 0.5f;
      b = b * 0.999f + 0.5f;
      c = c * 0.999f + 0.5f;
      d = d * 0.999f + 0.5f;
    }
    bad += !close_enough(out[t], a + b + c + d, 1e-5);
  }
  CHECK(cudaFree(dx));
  CHECK(cudaFree(dy));
  CHECK(cudaFree(dout));
  return verdict("large_kernels", bad);
}
