// Exclusive prefix sum of 3000 integers in three kernels: a work-efficient
// (up-sweep / down-sweep) scan per 512-element block in shared memory, a
// scan of the block totals, and a pass adding each block's offset.
#include <vector>

#include "check.h"

constexpr int kBlockElems = 512;  // 256 threads, two elements each

__global__ void scan_blocks(const int* in, int* out, int* block_sums, int n) {
  __shared__ int s[kBlockElems];
  int base = blockIdx.x * kBlockElems, t = threadIdx.x;
  s[2 * t] = base + 2 * t < n ? in[base + 2 * t] : 0;
  s[2 * t + 1] = base + 2 * t + 1 < n ? in[base + 2 * t + 1] : 0;
  int offset = 1;
  for (int d = kBlockElems / 2; d > 0; d /= 2) {  // up-sweep
    __syncthreads();
    if (t < d) s[offset * (2 * t + 2) - 1] += s[offset * (2 * t + 1) - 1];
    offset *= 2;
  }
  if (t == 0) {
    if (block_sums) block_sums[blockIdx.x] = s[kBlockElems - 1];
    s[kBlockElems - 1] = 0;
  }
  for (int d = 1; d < kBlockElems; d *= 2) {  // down-sweep
    offset /= 2;
    __syncthreads();
    if (t < d) {
      int left = offset * (2 * t + 1) - 1, right = offset * (2 * t + 2) - 1;
      int v = s[left];
      s[left] = s[right];
      s[right] += v;
    }
  }
  __syncthreads();
  if (base + 2 * t < n) out[base + 2 * t] = s[2 * t];
  if (base + 2 * t + 1 < n) out[base + 2 * t + 1] = s[2 * t + 1];
}

__global__ void add_offsets(int* out, const int* offsets, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] += offsets[i / kBlockElems];
}

int main() {
  const int n = 3000;
  const int blocks = (n + kBlockElems - 1) / kBlockElems;
  std::vector<int> in(n), out(n);
  for (int i = 0; i < n; ++i) in[i] = (i * 37 + 11) % 23 - 7;
  int *d_in, *d_out, *d_sums, *d_offsets;
  CHECK(cudaMalloc(&d_in, n * sizeof(int)));
  CHECK(cudaMalloc(&d_out, n * sizeof(int)));
  CHECK(cudaMalloc(&d_sums, blocks * sizeof(int)));
  CHECK(cudaMalloc(&d_offsets, blocks * sizeof(int)));
  CHECK(cudaMemcpy(d_in, in.data(), n * sizeof(int), cudaMemcpyHostToDevice));
  scan_blocks<<<blocks, kBlockElems / 2>>>(d_in, d_out, d_sums, n);
  CHECK_LAUNCH();
  scan_blocks<<<1, kBlockElems / 2>>>(d_sums, d_offsets, nullptr, blocks);
  CHECK_LAUNCH();
  add_offsets<<<(n + 255) / 256, 256>>>(d_out, d_offsets, n);
  CHECK_LAUNCH();
  CHECK(cudaMemcpy(out.data(), d_out, n * sizeof(int), cudaMemcpyDeviceToHost));
  long bad = 0;
  int running = 0;
  for (int i = 0; i < n; ++i) {
    bad += out[i] != running;
    running += in[i];
  }
  CHECK(cudaFree(d_in));
  CHECK(cudaFree(d_out));
  CHECK(cudaFree(d_sums));
  CHECK(cudaFree(d_offsets));
  return verdict("prefix_scan", bad);
}
