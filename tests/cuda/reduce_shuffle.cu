// Sum of 40000 integers: each warp reduces with __shfl_down_sync, warp sums
// meet in shared memory, and each block adds its total with one atomicAdd.
// A second kernel checks __shfl_xor_sync (butterfly: every lane gets the sum).
#include <vector>

#include "check.h"

__inline__ __device__ int warp_sum(int v) {
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffffu, v, offset);
  return v;
}

__global__ void reduce(const int* in, int n, unsigned long long* total) {
  __shared__ int warp_totals[32];
  int sum = 0;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) sum += in[i];
  sum = warp_sum(sum);
  int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  if (lane == 0) warp_totals[warp] = sum;
  __syncthreads();
  if (warp == 0) {
    int v = lane < blockDim.x / 32 ? warp_totals[lane] : 0;
    v = warp_sum(v);
    if (lane == 0) atomicAdd(total, static_cast<unsigned long long>(v));
  }
}

__global__ void butterfly(const int* in, int* out) {
  int v = in[threadIdx.x];
  for (int mask = 1; mask < 32; mask *= 2) v += __shfl_xor_sync(0xffffffffu, v, mask);
  out[threadIdx.x] = v;
}

int main() {
  const int n = 40000;
  std::vector<int> data(n);
  unsigned long long want = 0;
  for (int i = 0; i < n; ++i) {
    data[i] = (i * 2654435761u >> 20) % 1000;
    want += data[i];
  }
  int* d_in;
  unsigned long long* d_total;
  CHECK(cudaMalloc(&d_in, n * sizeof(int)));
  CHECK(cudaMalloc(&d_total, sizeof(unsigned long long)));
  CHECK(cudaMemcpy(d_in, data.data(), n * sizeof(int), cudaMemcpyHostToDevice));
  CHECK(cudaMemset(d_total, 0, sizeof(unsigned long long)));
  reduce<<<20, 256>>>(d_in, n, d_total);
  CHECK_LAUNCH();
  unsigned long long got = 0;
  CHECK(cudaMemcpy(&got, d_total, sizeof got, cudaMemcpyDeviceToHost));
  long bad = got != want;
  if (bad) std::printf("sum %llu, expected %llu\n", got, want);

  int* d_out;
  CHECK(cudaMalloc(&d_out, 64 * sizeof(int)));
  butterfly<<<1, 64>>>(d_in, d_out);
  CHECK_LAUNCH();
  int out[64];
  CHECK(cudaMemcpy(out, d_out, sizeof out, cudaMemcpyDeviceToHost));
  for (int w = 0; w < 2; ++w) {
    int s = 0;
    for (int l = 0; l < 32; ++l) s += data[w * 32 + l];
    for (int l = 0; l < 32; ++l) bad += out[w * 32 + l] != s;
  }
  CHECK(cudaFree(d_in));
  CHECK(cudaFree(d_total));
  CHECK(cudaFree(d_out));
  return verdict("reduce_shuffle", bad);
}
