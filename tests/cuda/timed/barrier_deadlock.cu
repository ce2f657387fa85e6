// Run under `warpsim exec` (tests/cuda/CMakeLists.txt): warp 0 waits at
// barrier 0 while warp 1 waits at barrier 1, so neither barrier opens. A GPU
// hangs until a watchdog ends the kernel; the emulator detects the deadlock
// and the launch fails with a sticky cudaErrorLaunchTimeout (it was
// cudaErrorIllegalAddress: issue 17 item 15), the message saying why.
#include "../check.h"

__global__ void split_barriers(int* out) {
  if (threadIdx.x < 32) {
    asm volatile("bar.sync 0, 64;");
  } else {
    asm volatile("bar.sync 1, 64;");
  }
  out[threadIdx.x] = 1;
}

int main() {
  int* d = nullptr;
  CHECK(cudaMalloc(&d, 64 * sizeof(int)));
  split_barriers<<<1, 64>>>(d);
  cudaError_t launch = cudaGetLastError();
  cudaError_t sync = cudaDeviceSynchronize();
  cudaError_t later = cudaMemset(d, 0, sizeof(int));
  std::printf("launch: %s, synchronize: %s, later call: %s\n", cudaGetErrorName(launch), cudaGetErrorName(sync),
              cudaGetErrorName(later));
  long wrong = (launch != cudaErrorLaunchTimeout) + (sync != cudaErrorLaunchTimeout) +
               (later != cudaErrorLaunchTimeout);
  return verdict("barrier_deadlock", wrong);
}
