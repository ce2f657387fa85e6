// gpu_ubench_l2_lat: L2 hit latency in the style of the public GPU
// microbenchmark suites. One thread follows a ring of 64-bit device pointers
// with ld.global.cg (cached in the L2 only, so every load goes past the L1).
// Two rings of 1 MB each, one with its links 32 B apart (one per sector) and
// one 128 B apart (one per line): far more than an L1, well inside a 6 MB L2.
// Before the chase a kernel on every SM reads the ring with ld.cg so that it
// sits in the L2; the timed chase of kSteps loads is bracketed by clock64()
// and its cycles over kSteps are the latency. The self-check is that each
// chase stops on the link the host predicts and that the warm-up read the
// checksum the host expects.
#include <cstdint>
#include <vector>

#include "suite.h"

constexpr size_t kRingBytes = size_t(1) << 20;  // 1 MB per ring
constexpr int kSteps = 2048;                     // timed loads per chase
constexpr int kWarmThreads = 256;

// Every thread reads 8-byte words grid-stride with ld.cg and xors them, so the
// whole ring is fetched into the L2.
__global__ void warm_l2(const uint64_t* ring, size_t words, uint64_t* sink) {
  uint64_t acc = 0;
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < words; i += size_t(gridDim.x) * blockDim.x)
    acc ^= __ldcg(ring + i);
  atomicXor(reinterpret_cast<unsigned long long*>(sink), acc);
}

__global__ void l2_chase(const uint64_t* ring, int steps, uint64_t* end, long long* cycles) {
  uint64_t p = reinterpret_cast<uint64_t>(ring);
  long long t0 = clock64();
#pragma unroll 16
  for (int i = 0; i < steps; ++i) asm volatile("ld.global.cg.u64 %0, [%0];" : "+l"(p)::"memory");
  long long t1 = clock64();
  end[0] = p;
  cycles[0] = t1 - t0;
}

struct ChaseResult {
  double latency;
  long bad;
  float ms;
};

ChaseResult chase(int stride, int sms) {
  const size_t words = kRingBytes / sizeof(uint64_t);
  const int links = int(kRingBytes / stride);
  uint64_t* dring = device_alloc<uint64_t>(words);
  const uint64_t base = reinterpret_cast<uint64_t>(dring);
  std::vector<uint64_t> ring(words, 0);
  uint64_t xsum = 0;
  for (int k = 0; k < links; ++k) {
    uint64_t next = base + uint64_t((k + 1) % links) * stride;
    ring[size_t(k) * stride / 8] = next;
    xsum ^= next;
  }
  copy_to_device(dring, ring);
  uint64_t* dsink = device_zeros<uint64_t>(1);
  uint64_t* dend = device_zeros<uint64_t>(1);
  long long* dcyc = device_zeros<long long>(1);

  warm_l2<<<sms, kWarmThreads>>>(dring, words, dsink);
  CHECK_LAUNCH();
  EventTimer timer;
  timer.start();
  l2_chase<<<1, 1>>>(dring, kSteps, dend, dcyc);
  CHECK(cudaGetLastError());
  float ms = timer.stop_ms();
  CHECK(cudaDeviceSynchronize());

  long long cyc = to_host(dcyc, 1)[0];
  uint64_t end = to_host(dend, 1)[0];
  uint64_t sink = to_host(dsink, 1)[0];
  long bad = end != base + uint64_t(kSteps % links) * stride;
  bad += sink != xsum;
  bad += cyc <= 0;
  double lat = double(cyc) / kSteps;
  std::printf("l2_hit_latency_cycles_stride%d=%.2f\n", stride, lat);
  device_free(dring, dsink, dend, dcyc);
  return {lat, bad, ms};
}

int main() {
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  std::printf("footprint_bytes=%zu\n", kRingBytes);
  std::printf("steps=%d\n", kSteps);
  ChaseResult a = chase(32, prop.multiProcessorCount);
  ChaseResult b = chase(128, prop.multiProcessorCount);
  std::printf("l2_hit_latency_cycles=%.2f\n", b.latency);
  print_timing(a.ms + b.ms, 2);
  return verdict("gpu_ubench_l2_lat", a.bad + b.bad);
}
