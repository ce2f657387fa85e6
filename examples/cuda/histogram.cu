// warpsim example: a 256-bin histogram of 1 M bytes: per-block bins in
// shared memory (shared atomics), merged into the global bins (global atomics).
//   nvcc -cudart shared -gencode arch=compute_80,code=compute_80 histogram.cu -o histogram
#include <cstdio>
#include <vector>

constexpr int kBytes = 1 << 20, kBlocks = 112, kThreads = 256;

__global__ void histogram(const unsigned* words, unsigned* bins) {
  __shared__ unsigned local[256];
  local[threadIdx.x] = 0;
  __syncthreads();
  for (int i = blockIdx.x * kThreads + threadIdx.x; i < kBytes / 4; i += kBlocks * kThreads) {
    unsigned w = words[i];
    for (int b = 0; b < 4; ++b) atomicAdd(&local[(w >> (8 * b)) & 0xff], 1u);
  }
  __syncthreads();
  atomicAdd(&bins[threadIdx.x], local[threadIdx.x]);
}

int main() {
  std::vector<unsigned char> data(kBytes);
  std::vector<unsigned> want(256, 0), got(256);
  for (int i = 0; i < kBytes; ++i) ++want[data[i] = (unsigned char)((i * 37 + i / 1000) & 0xff)];
  unsigned *dwords, *dbins;
  cudaMalloc(&dwords, kBytes);
  cudaMalloc(&dbins, 256 * sizeof(unsigned));
  cudaMemcpy(dwords, data.data(), kBytes, cudaMemcpyHostToDevice);
  cudaMemset(dbins, 0, 256 * sizeof(unsigned));
  histogram<<<kBlocks, kThreads>>>(dwords, dbins);
  cudaError_t err = cudaDeviceSynchronize();
  cudaMemcpy(got.data(), dbins, 256 * sizeof(unsigned), cudaMemcpyDeviceToHost);
  bool ok = got == want;
  std::printf("histogram: %d bytes: %s, %s\n", kBytes, cudaGetErrorString(err), ok ? "correct" : "WRONG");
  cudaFree(dwords);
  cudaFree(dbins);
  return !ok || err != cudaSuccess ? 1 : 0;
}
