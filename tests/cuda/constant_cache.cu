// A kernel whose only memory reads are __constant__ tables (written with
// cudaMemcpyToSymbol): each lane reads its own word of one table and all
// lanes read one word of another (a broadcast). Under `warpsim exec --timing`
// these are constant-cache loads; tests/cuda/check_const_stats.py checks that
// the L1D saw no reads.
#include <vector>

#include "check.h"

__constant__ float weights[64];
__constant__ int offsets[2];

__global__ void weigh(float* out) {
  int i = threadIdx.x;
  out[blockIdx.x * blockDim.x + i] = weights[i] * weights[offsets[0]] + offsets[1];
}

int main() {
  const int blocks = 2, threads = 64;
  std::vector<float> w(64);
  for (int i = 0; i < 64; ++i) w[i] = 0.5f * i;
  const int off[2] = {3, 7};
  CHECK(cudaMemcpyToSymbol(weights, w.data(), sizeof(float) * 64));
  CHECK(cudaMemcpyToSymbol(offsets, off, sizeof off));
  float* out;
  CHECK(cudaMalloc(&out, blocks * threads * sizeof(float)));
  weigh<<<blocks, threads>>>(out);
  CHECK_LAUNCH();
  std::vector<float> got(blocks * threads);
  CHECK(cudaMemcpy(got.data(), out, got.size() * sizeof(float), cudaMemcpyDeviceToHost));
  long bad = 0;
  for (int b = 0; b < blocks; ++b)
    for (int i = 0; i < threads; ++i)
      bad += !close_enough(got[b * threads + i], w[i] * w[off[0]] + off[1], 1e-6);
  CHECK(cudaFree(out));
  return verdict("constant_cache", bad);
}
