// warpsim example: sum of 1 M floats (4 MB, more than a Fermi L2): each
// thread adds a grid-stride slice, then a shared-memory tree per block; the
// host adds the per-block sums. Bandwidth-bound on real GPUs.
//   nvcc -cudart shared -gencode arch=compute_80,code=compute_80 reduction.cu -o reduction
#include <cstdio>
#include <vector>

constexpr int kN = 1 << 20, kBlocks = 112, kThreads = 256;

__global__ void reduce(const float* in, float* partial) {
  __shared__ float s[kThreads];
  float sum = 0;
  for (int i = blockIdx.x * kThreads + threadIdx.x; i < kN; i += kBlocks * kThreads) sum += in[i];
  s[threadIdx.x] = sum;
  __syncthreads();
  for (int half = kThreads / 2; half > 0; half /= 2) {
    if (threadIdx.x < half) s[threadIdx.x] += s[threadIdx.x + half];
    __syncthreads();
  }
  if (threadIdx.x == 0) partial[blockIdx.x] = s[0];
}

int main() {
  std::vector<float> in(kN), partial(kBlocks);
  double want = 0;
  for (int i = 0; i < kN; ++i) want += in[i] = float(i % 7);  // whole numbers: every sum is exact
  float *din, *dpartial;
  cudaMalloc(&din, kN * sizeof(float));
  cudaMalloc(&dpartial, kBlocks * sizeof(float));
  cudaMemcpy(din, in.data(), kN * sizeof(float), cudaMemcpyHostToDevice);
  reduce<<<kBlocks, kThreads>>>(din, dpartial);
  cudaError_t err = cudaDeviceSynchronize();
  cudaMemcpy(partial.data(), dpartial, kBlocks * sizeof(float), cudaMemcpyDeviceToHost);
  double got = 0;
  for (float p : partial) got += p;
  std::printf("reduction: %d floats: %s, %s\n", kN, cudaGetErrorString(err), got == want ? "correct" : "WRONG");
  cudaFree(din);
  cudaFree(dpartial);
  return got != want || err != cudaSuccess ? 1 : 0;
}
