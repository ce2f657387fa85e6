// CTAs that talk through memory without a grid barrier: block 0 waits for a
// value the last block publishes (a flag after the data, with a fence), as
// pointer-chase microbenchmarks and producer/consumer kernels do. All blocks
// are resident at once on any GPU (a few small blocks), so on hardware the
// wait ends; warpsim must interleave resident CTAs to see it, in functional
// and in timed runs. The wait is bounded: a run that never sees the flag
// reports FAIL instead of hanging.
#include "check.h"

__global__ void handshake(volatile int* data, volatile int* flag, int* result, long max_spins) {
  const int last = gridDim.x - 1;
  if (threadIdx.x != 0) return;
  if (blockIdx.x == last) {
    data[0] = 42;
    __threadfence();
    flag[0] = 1;
  } else if (blockIdx.x == 0) {
    long spins = 0;
    while (flag[0] == 0 && spins < max_spins) ++spins;
    result[0] = flag[0] ? data[0] : -1;
  }
}

int main() {
  int *data, *flag, *result;
  CHECK(cudaMalloc(&data, sizeof(int)));
  CHECK(cudaMalloc(&flag, sizeof(int)));
  CHECK(cudaMalloc(&result, sizeof(int)));
  CHECK(cudaMemset(data, 0, sizeof(int)));
  CHECK(cudaMemset(flag, 0, sizeof(int)));
  CHECK(cudaMemset(result, 0, sizeof(int)));
  handshake<<<4, 32>>>(data, flag, result, 1 << 16);
  CHECK_LAUNCH();
  int got = 0;
  CHECK(cudaMemcpy(&got, result, sizeof(int), cudaMemcpyDeviceToHost));
  if (got != 42) std::printf("block 0 read %d (expected 42; -1: the flag never came)\n", got);
  CHECK(cudaFree(data));
  CHECK(cudaFree(flag));
  CHECK(cudaFree(result));
  return verdict("inter_block_flag", got == 42 ? 0 : 1);
}
