// Device-side malloc/free: each thread allocates a block in one kernel,
// fills it, and another kernel sums and frees it.
#include "check.h"

__global__ void fill(int** blocks) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  int* p = static_cast<int*>(malloc(16 * sizeof(int)));
  if (p == nullptr) return;  // out of heap: the host sees the null pointer
  for (int i = 0; i < 16; ++i) p[i] = t * i;
  blocks[t] = p;
}

__global__ void sum_and_free(int** blocks, int* sums) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  int* p = blocks[t];
  int s = 0;
  for (int i = 0; i < 16; ++i) s += p[i];
  sums[t] = s;
  free(p);
}

int main() {
  const int threads = 96;
  int** blocks;
  int* sums;
  CHECK(cudaMalloc(&blocks, threads * sizeof(int*)));
  CHECK(cudaMalloc(&sums, threads * sizeof(int)));
  CHECK(cudaMemset(blocks, 0, threads * sizeof(int*)));
  fill<<<3, 32>>>(blocks);
  CHECK_LAUNCH();
  sum_and_free<<<3, 32>>>(blocks, sums);
  CHECK_LAUNCH();
  int h[threads];
  CHECK(cudaMemcpy(h, sums, sizeof h, cudaMemcpyDeviceToHost));
  long bad = 0;
  for (int t = 0; t < threads; ++t)
    if (h[t] != t * 120) ++bad;  // t * (0 + 1 + ... + 15)
  return verdict("device_heap", bad);
}
