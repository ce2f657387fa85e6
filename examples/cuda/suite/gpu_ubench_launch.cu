// gpu_ubench_launch: kernel launch and CTA dispatch costs in the style of the
// public GPU microbenchmark suites, all timed with events on the legacy
// stream (microseconds of GPU time between the two records).
//  - back to back: kLaunches launches of an empty kernel (one CTA of 32
//    threads) queued one after another, then one event: us per launch.
//  - launch + sync: the same launches each followed by cudaDeviceSynchronize
//    (the host waits, so every launch starts from an idle GPU): us per
//    launch. Published V100 figures: about 5 us per launch and
//    synchronisation, 2-3 us per launch back to back.
//  - grid size: one launch (after a synchronisation) of an empty kernel with
//    1, 80, 160 and 1000 CTAs of 32 and of 1024 threads: the launch and the
//    dispatch of its CTAs (us, and us beyond the 1-CTA launch).
// Two untimed launches first (one CTA, then 1000 CTAs of 1024 threads), so
// that every SM has the kernel's code in its instruction caches.
// The kernels write nothing unless asked (a null pointer): the self-check is
// one launch with a pointer, every CTA writing its index, read back.
#include <cmath>
#include <cstdint>
#include <vector>

#include "suite.h"

constexpr int kLaunches = 100;
constexpr int kGrids[] = {1, 80, 160, 1000};

__global__ void empty_kernel(int* mark) {
  if (mark && threadIdx.x == 0) mark[blockIdx.x] = blockIdx.x;
}

int main() {
  long bad = 0;
  float total_ms = 0.0f;
  int launches = 0;
  // Warm-up: the first launch loads the module; a full-size grid then runs
  // on every SM, so no later launch pays for cold instruction caches.
  empty_kernel<<<1, 32>>>(nullptr);
  CHECK_LAUNCH();
  empty_kernel<<<1000, 1024>>>(nullptr);
  CHECK_LAUNCH();

  {
    EventTimer timer;
    timer.start();
    for (int i = 0; i < kLaunches; ++i) empty_kernel<<<1, 32>>>(nullptr);
    CHECK(cudaGetLastError());
    float ms = timer.stop_ms();
    total_ms += ms;
    launches += kLaunches;
    std::printf("back_to_back_launches=%d\n", kLaunches);
    std::printf("back_to_back_us_per_launch=%.3f\n", ms * 1000.0 / kLaunches);
    bad += !(ms > 0);
  }
  {
    CHECK(cudaDeviceSynchronize());
    EventTimer timer;
    timer.start();
    for (int i = 0; i < kLaunches; ++i) {
      empty_kernel<<<1, 32>>>(nullptr);
      CHECK(cudaDeviceSynchronize());
    }
    float ms = timer.stop_ms();
    total_ms += ms;
    launches += kLaunches;
    std::printf("launch_sync_us_per_launch=%.3f\n", ms * 1000.0 / kLaunches);
    bad += !(ms > 0);
  }
  for (int threads : {32, 1024}) {
    double one = 0.0;
    for (int grid : kGrids) {
      CHECK(cudaDeviceSynchronize());
      EventTimer timer;
      timer.start();
      empty_kernel<<<grid, threads>>>(nullptr);
      CHECK(cudaGetLastError());
      float ms = timer.stop_ms();
      total_ms += ms;
      ++launches;
      const double us = ms * 1000.0;
      if (grid == 1) one = us;
      std::printf("grid%d_block%d_us=%.3f\n", grid, threads, us);
      std::printf("grid%d_block%d_us_beyond_one_cta=%.3f\n", grid, threads, us - one);
      bad += !(ms > 0);
    }
  }
  // Self-check: every CTA of a 1000-CTA launch runs.
  const int n = 1000;
  int* dmark = device_alloc<int>(n);
  CHECK(cudaMemset(dmark, 0xff, n * sizeof(int)));
  empty_kernel<<<n, 32>>>(dmark);
  CHECK_LAUNCH();
  std::vector<int> mark = to_host(dmark, n);
  for (int b = 0; b < n; ++b) bad += mark[b] != b;
  device_free(dmark);
  print_timing(total_ms, launches);
  return verdict("gpu_ubench_launch", bad);
}
