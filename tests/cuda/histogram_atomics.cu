// A 64-bin histogram two ways: per-block bins in shared memory (shared
// atomics) merged with global atomics, and global atomics only. Inputs are
// skewed so that many threads of a warp hit the same bin at once.
#include <vector>

#include "check.h"

constexpr int kBins = 64;

__global__ void histogram_shared(const unsigned char* in, int n, unsigned int* bins) {
  __shared__ unsigned int local[kBins];
  for (int b = threadIdx.x; b < kBins; b += blockDim.x) local[b] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    atomicAdd(&local[in[i] % kBins], 1u);
  __syncthreads();
  for (int b = threadIdx.x; b < kBins; b += blockDim.x)
    if (local[b] != 0) atomicAdd(&bins[b], local[b]);
}

__global__ void histogram_global(const unsigned char* in, int n, unsigned int* bins) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(&bins[in[i] % kBins], 1u);
}

int main() {
  const int n = 12000;
  std::vector<unsigned char> data(n);
  for (int i = 0; i < n; ++i) data[i] = (i % 5 == 0) ? 7 : static_cast<unsigned char>((i * 31 + i / 7) & 0xff);
  std::vector<unsigned int> want(kBins, 0);
  for (unsigned char v : data) ++want[v % kBins];

  unsigned char* d_in;
  unsigned int *d_shared_bins, *d_global_bins;
  CHECK(cudaMalloc(&d_in, n));
  CHECK(cudaMalloc(&d_shared_bins, kBins * sizeof(unsigned int)));
  CHECK(cudaMalloc(&d_global_bins, kBins * sizeof(unsigned int)));
  CHECK(cudaMemcpy(d_in, data.data(), n, cudaMemcpyHostToDevice));
  CHECK(cudaMemset(d_shared_bins, 0, kBins * sizeof(unsigned int)));
  CHECK(cudaMemset(d_global_bins, 0, kBins * sizeof(unsigned int)));
  histogram_shared<<<8, 256>>>(d_in, n, d_shared_bins);
  CHECK_LAUNCH();
  histogram_global<<<(n + 255) / 256, 256>>>(d_in, n, d_global_bins);
  CHECK_LAUNCH();
  std::vector<unsigned int> got_shared(kBins), got_global(kBins);
  CHECK(cudaMemcpy(got_shared.data(), d_shared_bins, kBins * sizeof(unsigned int), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(got_global.data(), d_global_bins, kBins * sizeof(unsigned int), cudaMemcpyDeviceToHost));
  long bad = 0;
  for (int b = 0; b < kBins; ++b) bad += (got_shared[b] != want[b]) + (got_global[b] != want[b]);
  CHECK(cudaFree(d_in));
  CHECK(cudaFree(d_shared_bins));
  CHECK(cudaFree(d_global_bins));
  return verdict("histogram_atomics", bad);
}
