// gpu_ubench_l1_lat: L1 data-cache hit latency in the style of the public
// GPU microbenchmark suites. One thread follows a ring of 64-bit device
// pointers (each link holds the address of the next) with ld.global.ca, so
// each load waits for the one before. The ring is 64 links one 128 B line
// apart (8 KB), well inside the L1. An untimed lap brings it into the L1; the
// timed chase of kSteps loads is bracketed by clock64() and its cycles over
// kSteps are the load-to-use latency. A chase of two back-to-back clock reads
// gives the clock's own overhead. The self-check is that the chase stops on
// the link the host predicts.
#include <cstdint>
#include <vector>

#include "suite.h"

constexpr int kLinks = 64;         // ring size
constexpr int kStrideBytes = 128;  // one link per 128 B line: 8 KB in all
constexpr int kWarmSteps = kLinks; // one untimed lap
constexpr int kSteps = 4096;       // timed loads

__global__ void l1_chase(const uint64_t* ring, int warm, int steps, uint64_t* end, long long* cycles) {
  uint64_t p = reinterpret_cast<uint64_t>(ring);
  for (int i = 0; i < warm; ++i) asm volatile("ld.global.ca.u64 %0, [%0];" : "+l"(p)::"memory");
  long long t0 = clock64();
#pragma unroll 16
  for (int i = 0; i < steps; ++i) asm volatile("ld.global.ca.u64 %0, [%0];" : "+l"(p)::"memory");
  long long t1 = clock64();
  end[0] = p;
  cycles[0] = t1 - t0;
}

// Two clock reads with nothing between them.
__global__ void clock_pair(long long* cycles) {
  long long t0 = clock64();
  long long t1 = clock64();
  cycles[0] = t1 - t0;
}

int main() {
  const size_t words = size_t(kLinks) * kStrideBytes / sizeof(uint64_t);
  uint64_t* dring = device_zeros<uint64_t>(words);
  const uint64_t base = reinterpret_cast<uint64_t>(dring);
  std::vector<uint64_t> ring(words, 0);
  for (int k = 0; k < kLinks; ++k)
    ring[size_t(k) * kStrideBytes / 8] = base + uint64_t((k + 1) % kLinks) * kStrideBytes;
  copy_to_device(dring, ring);
  uint64_t* dend = device_zeros<uint64_t>(1);
  long long* dcyc = device_zeros<long long>(2);

  clock_pair<<<1, 1>>>(dcyc + 1);
  CHECK_LAUNCH();
  EventTimer timer;
  timer.start();
  l1_chase<<<1, 1>>>(dring, kWarmSteps, kSteps, dend, dcyc);
  CHECK(cudaGetLastError());
  float ms = timer.stop_ms();
  CHECK(cudaDeviceSynchronize());

  std::vector<long long> cyc = to_host(dcyc, 2);
  uint64_t end = to_host(dend, 1)[0];
  const uint64_t want = base + uint64_t((kWarmSteps + kSteps) % kLinks) * kStrideBytes;
  long bad = end != want;
  bad += cyc[0] <= 0;
  std::printf("footprint_bytes=%d\n", kLinks * kStrideBytes);
  std::printf("steps=%d\n", kSteps);
  std::printf("chase_cycles=%lld\n", cyc[0]);
  std::printf("clock_overhead_cycles=%lld\n", cyc[1]);
  std::printf("l1_hit_latency_cycles=%.2f\n", double(cyc[0]) / kSteps);
  device_free(dring, dend, dcyc);
  print_timing(ms, 1);
  return verdict("gpu_ubench_l1_lat", bad);
}
