// Kernel launch overhead: empty kernels (1 CTA of 32 threads) back to back,
// timed with CUDA events around the whole sequence, divided by the count.
// - without host sync: the launches queue and the GPU runs them one after
//   another (the time between kernels is the launch pipeline's);
// - with cudaDeviceSynchronize after each: adds the host round trip.
// The first launches (module load, first-use costs) are left out.
//   args: launches=N (default 32)
#include "ubench.h"

__global__ void empty_kernel() {}

float timed_launches(int launches, bool sync_each) {
  ub::EventTimer timer;
  timer.begin();
  for (int i = 0; i < launches; ++i) {
    empty_kernel<<<1, 32>>>();
    if (sync_each) UB_CHECK(cudaDeviceSynchronize());
  }
  float ms = timer.end_ms();
  UB_LAUNCHED();
  return ms;
}

int main(int argc, char** argv) {
  const int launches = static_cast<int>(ub::arg(argc, argv, "launches", 32));
  timed_launches(4, true);  // warm-up
  // Four decimals: 0.01 us is a dozen cycles, too coarse to recover a launch parameter from.
  ub::emit("kernel_launch_overhead_us", timed_launches(launches, false) * 1000.0 / launches, 4);
  ub::emit("kernel_launch_sync_overhead_us", timed_launches(launches, true) * 1000.0 / launches, 4);
  return 0;
}
