// A GEMM written as PolyBench/GPU's gemm is: each thread owns C[i][j] and
// updates it in global memory on every k iteration (C = alpha*A*B + beta*C),
// so the kernel issues one global store per FMA. The pointers may alias, so
// the compiler has to keep every store. A store-heavy kernel for the L1's
// write path (docs/memory-system.md, "Stores and the miss path").
//   args: n=N (matrix size, multiple of 32; default 64)
#include <cstdlib>
#include <cstring>
#include <vector>

#include "check.h"

__global__ void gemm(int n, float alpha, float beta, const float* a, const float* b, float* c) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  int i = blockIdx.y * blockDim.y + threadIdx.y;
  if (i >= n || j >= n) return;
  c[i * n + j] *= beta;
  for (int k = 0; k < n; ++k) c[i * n + j] += alpha * a[i * n + k] * b[k * n + j];
}

int main(int argc, char** argv) {
  int n = 64;
  for (int i = 1; i < argc; ++i)
    if (std::strncmp(argv[i], "n=", 2) == 0) n = std::atoi(argv[i] + 2);
  if (n <= 0 || n % 32 != 0) {
    std::printf("gemm_store_heavy: n must be a positive multiple of 32\nFAIL\n");
    return 1;
  }
  const size_t elems = size_t(n) * n;
  const float alpha = 1.5f, beta = 0.5f;
  // Small integers (and halves): every partial sum is exact in float.
  std::vector<float> a(elems), b(elems), c(elems), out(elems);
  for (size_t x = 0; x < elems; ++x) {
    a[x] = static_cast<float>(x % 7);
    b[x] = static_cast<float>(x % 5);
    c[x] = static_cast<float>(x % 3);
  }
  float *da, *db, *dc;
  CHECK(cudaMalloc(&da, elems * sizeof(float)));
  CHECK(cudaMalloc(&db, elems * sizeof(float)));
  CHECK(cudaMalloc(&dc, elems * sizeof(float)));
  CHECK(cudaMemcpy(da, a.data(), elems * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(db, b.data(), elems * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dc, c.data(), elems * sizeof(float), cudaMemcpyHostToDevice));
  dim3 block(32, 8), grid(n / 32, (n + 7) / 8);  // PolyBench/GPU's block shape
  gemm<<<grid, block>>>(n, alpha, beta, da, db, dc);
  CHECK_LAUNCH();
  CHECK(cudaMemcpy(out.data(), dc, elems * sizeof(float), cudaMemcpyDeviceToHost));
  long bad = 0;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      double want = beta * c[size_t(i) * n + j];
      for (int k = 0; k < n; ++k) want += double(alpha) * a[size_t(i) * n + k] * b[size_t(k) * n + j];
      bad += !close_enough(out[size_t(i) * n + j], want, 1e-5);
    }
  CHECK(cudaFree(da));
  CHECK(cudaFree(db));
  CHECK(cudaFree(dc));
  return verdict("gemm_store_heavy", bad);
}
