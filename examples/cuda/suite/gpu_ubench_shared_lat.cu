// gpu_ubench_shared_lat: shared-memory load latency in the style of the public
// GPU microbenchmark suites. One thread follows a ring in shared memory two
// ways: (1) each word holds the shared-window byte address of the next, so a
// step is one ld.shared whose result is the next address (no arithmetic: the
// load-to-use latency); (2) each word holds the index of the next and the
// chase is plain C, j = ring[j], as the simpler public programs write it (the
// figure includes the index-to-address arithmetic the compiler puts between
// the loads). The ring is 256 words 64 B apart (16 KB). Each timed chase of
// kSteps loads is bracketed by clock64(). The self-check is that both chases
// stop on the word the host predicts.
#include <cstdint>
#include <vector>

#include "suite.h"

constexpr int kWords = 4096;        // 16 KB of shared memory
constexpr int kStrideWords = 16;    // 64 B between links
constexpr int kLinks = kWords / kStrideWords;
constexpr int kSteps = 4096;        // timed loads per chase

__global__ void shared_chase(int steps, unsigned* end, long long* cycles) {
  __shared__ unsigned ring[kWords];
  const unsigned base = static_cast<unsigned>(__cvta_generic_to_shared(ring));
  // (1) address ring, built and walked once untimed.
#pragma unroll 1
  for (int k = 0; k < kLinks; ++k) ring[k * kStrideWords] = base + ((k + 1) % kLinks) * kStrideWords * 4u;
  unsigned a = base;
  for (int k = 0; k < kLinks; ++k) asm volatile("ld.shared.u32 %0, [%0];" : "+r"(a)::"memory");
  long long t0 = clock64();
#pragma unroll 16
  for (int i = 0; i < steps; ++i) asm volatile("ld.shared.u32 %0, [%0];" : "+r"(a)::"memory");
  long long t1 = clock64();
  end[0] = (a - base) / 4u;
  cycles[0] = t1 - t0;
  __syncthreads();

  // (2) index ring over the same words.
  volatile unsigned* vring = ring;  // keeps every load in the loop
#pragma unroll 1
  for (int k = 0; k < kLinks; ++k) vring[k * kStrideWords] = ((k + 1) % kLinks) * kStrideWords;
  unsigned j = 0;
  long long t2 = clock64();
#pragma unroll 16
  for (int i = 0; i < steps; ++i) j = vring[j];
  long long t3 = clock64();
  end[1] = j;
  cycles[1] = t3 - t2;
}

int main() {
  unsigned* dend = device_zeros<unsigned>(2);
  long long* dcyc = device_zeros<long long>(2);
  EventTimer timer;
  timer.start();
  shared_chase<<<1, 1>>>(kSteps, dend, dcyc);
  CHECK(cudaGetLastError());
  float ms = timer.stop_ms();
  CHECK(cudaDeviceSynchronize());

  std::vector<long long> cyc = to_host(dcyc, 2);
  std::vector<unsigned> end = to_host(dend, 2);
  const unsigned want_addr = unsigned(((kLinks + kSteps) % kLinks) * kStrideWords);
  const unsigned want_index = unsigned((kSteps % kLinks) * kStrideWords);
  long bad = (end[0] != want_addr) + (end[1] != want_index) + (cyc[0] <= 0) + (cyc[1] <= 0);
  std::printf("footprint_bytes=%d\n", kWords * 4);
  std::printf("steps=%d\n", kSteps);
  std::printf("shared_latency_cycles=%.2f\n", double(cyc[0]) / kSteps);
  std::printf("shared_index_chase_cycles=%.2f\n", double(cyc[1]) / kSteps);
  print_timing(ms, 1);
  device_free(dend, dcyc);
  return verdict("gpu_ubench_shared_lat", bad);
}
