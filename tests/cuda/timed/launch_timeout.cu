// Run with `warpsim exec --timing --set gpu.max_cycles=...` (tests/cuda/
// CMakeLists.txt): a kernel the timing model stops at gpu.max_cycles fails
// its launch with cudaErrorLaunchTimeout, as a GPU watchdog would, and the
// error is sticky: later calls return it too (issue 17 item 15).
#include "../check.h"

__global__ void spin(int* out, long long n) {
  int x = 0;
  for (long long i = 0; i < n; ++i) x += static_cast<int>(i) ^ threadIdx.x;
  out[threadIdx.x] = x;
}

int main() {
  int* d = nullptr;
  CHECK(cudaMalloc(&d, 32 * sizeof(int)));
  spin<<<1, 32>>>(d, 10);  // well inside the limit
  CHECK_LAUNCH();
  spin<<<1, 32>>>(d, 1LL << 40);  // far past it
  cudaError_t launch = cudaGetLastError();
  cudaError_t later = cudaMemset(d, 0, sizeof(int));
  cudaError_t still = cudaGetLastError();
  std::printf("launch: %s, later call: %s, last error after it: %s\n", cudaGetErrorName(launch),
              cudaGetErrorName(later), cudaGetErrorName(still));
  long wrong = (launch != cudaErrorLaunchTimeout) + (later != cudaErrorLaunchTimeout) +
               (still != cudaErrorLaunchTimeout);
  return verdict("launch_timeout", wrong);
}
