// Heavy divergence: data-dependent loop trip counts (Collatz steps), a
// switch on the lane, nested branches, early exit and break/continue.
#include <vector>

#include "check.h"

__host__ __device__ int collatz_steps(unsigned int x) {
  int steps = 0;
  while (x != 1 && steps < 300) {
    x = (x & 1) ? 3 * x + 1 : x / 2;
    ++steps;
  }
  return steps;
}

__host__ __device__ int lane_mix(int i, int v) {
  int r = 0;
  switch (i % 4) {
    case 0: r = v * 3; break;
    case 1: r = v - 17; break;
    case 2:
      for (int k = 0; k < (v % 7); ++k) {
        if (k == 4) break;
        if (k % 2) continue;
        r += k + v;
      }
      break;
    default:
      if (v > 50) r = (v % 2) ? v / 3 : -v;
      else r = v << 2;
  }
  return r;
}

__global__ void diverge(int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;  // early exit for the tail of the last block
  int steps = collatz_steps(static_cast<unsigned int>(i) + 1);
  out[i] = lane_mix(i, steps);
}

int main() {
  const int n = 1000;
  std::vector<int> out(n, 0);
  int* d_out;
  CHECK(cudaMalloc(&d_out, n * sizeof(int)));
  diverge<<<(n + 127) / 128, 128>>>(d_out, n);
  CHECK_LAUNCH();
  CHECK(cudaMemcpy(out.data(), d_out, n * sizeof(int), cudaMemcpyDeviceToHost));
  long bad = 0;
  for (int i = 0; i < n; ++i) bad += out[i] != lane_mix(i, collatz_steps(i + 1));
  CHECK(cudaFree(d_out));
  return verdict("divergence_loops", bad);
}
