// extern __shared__ arrays sized at launch: a block-wide reversal with 4 KiB,
// and, after opting in with cudaFuncSetAttribute, a kernel that uses 64 KiB
// (more than the 48 KiB default) as a staging buffer.
#include <vector>

#include "check.h"

__global__ void reverse_blocks(const int* in, int* out) {
  extern __shared__ int buf[];
  int base = blockIdx.x * blockDim.x;
  buf[threadIdx.x] = in[base + threadIdx.x];
  __syncthreads();
  out[base + threadIdx.x] = buf[blockDim.x - 1 - threadIdx.x];
}

__global__ void rotate_big(const float* in, float* out, int count, int shift) {
  extern __shared__ float stage[];
  for (int i = threadIdx.x; i < count; i += blockDim.x) stage[i] = in[i];
  __syncthreads();
  for (int i = threadIdx.x; i < count; i += blockDim.x) out[i] = stage[(i + shift) % count] * 2.0f;
}

int main() {
  const int threads = 1024, blocks = 3, n = threads * blocks;
  std::vector<int> in(n), out(n);
  for (int i = 0; i < n; ++i) in[i] = i * 3 + 1;
  int *d_in, *d_out;
  CHECK(cudaMalloc(&d_in, n * sizeof(int)));
  CHECK(cudaMalloc(&d_out, n * sizeof(int)));
  CHECK(cudaMemcpy(d_in, in.data(), n * sizeof(int), cudaMemcpyHostToDevice));
  reverse_blocks<<<blocks, threads, threads * sizeof(int)>>>(d_in, d_out);
  CHECK_LAUNCH();
  CHECK(cudaMemcpy(out.data(), d_out, n * sizeof(int), cudaMemcpyDeviceToHost));
  long bad = 0;
  for (int b = 0; b < blocks; ++b)
    for (int t = 0; t < threads; ++t) bad += out[b * threads + t] != in[b * threads + threads - 1 - t];

  const int count = 16384;  // 64 KiB of floats
  const size_t bytes = count * sizeof(float);
  CHECK(cudaFuncSetAttribute(rotate_big, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(bytes)));
  std::vector<float> fin(count), fout(count);
  for (int i = 0; i < count; ++i) fin[i] = static_cast<float>(i % 1000) * 0.5f;
  float *d_fin, *d_fout;
  CHECK(cudaMalloc(&d_fin, bytes));
  CHECK(cudaMalloc(&d_fout, bytes));
  CHECK(cudaMemcpy(d_fin, fin.data(), bytes, cudaMemcpyHostToDevice));
  rotate_big<<<1, 256, bytes>>>(d_fin, d_fout, count, 777);
  CHECK_LAUNCH();
  CHECK(cudaMemcpy(fout.data(), d_fout, bytes, cudaMemcpyDeviceToHost));
  for (int i = 0; i < count; ++i) bad += fout[i] != fin[(i + 777) % count] * 2.0f;
  CHECK(cudaFree(d_in));
  CHECK(cudaFree(d_out));
  CHECK(cudaFree(d_fin));
  CHECK(cudaFree(d_fout));
  return verdict("dynamic_shared", bad);
}
