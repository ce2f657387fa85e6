// gpu_ubench_mem_lat: DRAM (L2 miss) latency in the style of the public GPU
// microbenchmark suites. One thread follows a chain of 64-bit device pointers
// with ld.global.cg through a 64 MB buffer, the links 4 KB + 128 B apart (so
// successive links fall in different lines, L2 slices and DRAM rows), visiting
// each link once: kSteps loads over 8.5 MB. Before the chase a kernel on every
// SM streams a separate 32 MB buffer through the L2, so that no part of the
// chain is left in the L2 by the host copy. The chase is bracketed by clock64()
// and its cycles over kSteps are the latency of a load that misses both
// caches. The self-check is that the chase stops on the link the host
// predicts and that the flush read the checksum the host expects.
#include <cstdint>
#include <vector>

#include "suite.h"

constexpr size_t kChainBytes = size_t(64) << 20;   // 64 MB
constexpr size_t kFlushBytes = size_t(32) << 20;   // 32 MB, over 5x a 6 MB L2
constexpr size_t kStrideBytes = 4096 + 128;        // between links
constexpr int kSteps = 2048;                        // timed loads, each link once
constexpr int kFlushThreads = 1024;

// Every thread xors 16-byte words of the flush buffer grid-stride (ld.cg).
__global__ void flush_l2(const uint4* buf, size_t n, unsigned* sink) {
  unsigned acc = 0;
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) {
    uint4 v = __ldcg(buf + i);
    acc ^= v.x ^ v.y ^ v.z ^ v.w;
  }
  atomicXor(sink, acc);
}

__global__ void mem_chase(const uint64_t* chain, int steps, uint64_t* end, long long* cycles) {
  uint64_t p = reinterpret_cast<uint64_t>(chain);
  long long t0 = clock64();
#pragma unroll 16
  for (int i = 0; i < steps; ++i) asm volatile("ld.global.cg.u64 %0, [%0];" : "+l"(p)::"memory");
  long long t1 = clock64();
  end[0] = p;
  cycles[0] = t1 - t0;
}

int main() {
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  static_assert(kSteps * kStrideBytes < kChainBytes, "the chase must not wrap");

  const size_t words = kChainBytes / sizeof(uint64_t);
  uint64_t* dchain = device_zeros<uint64_t>(words);
  const uint64_t base = reinterpret_cast<uint64_t>(dchain);
  std::vector<uint64_t> chain(words, 0);
  for (int k = 0; k <= kSteps; ++k) chain[k * kStrideBytes / 8] = base + uint64_t(k + 1) * kStrideBytes;
  copy_to_device(dchain, chain);
  chain.clear();
  chain.shrink_to_fit();

  const size_t flush_n = kFlushBytes / sizeof(uint4);
  std::vector<uint32_t> flush(flush_n * 4);
  XorShift32 rng(12345);
  unsigned want_x = 0;
  for (uint32_t& v : flush) {
    v = rng.next();
    want_x ^= v;
  }
  uint4* dflush = device_alloc<uint4>(flush_n);
  CHECK(cudaMemcpy(dflush, flush.data(), kFlushBytes, cudaMemcpyHostToDevice));
  unsigned* dsink = device_zeros<unsigned>(1);
  uint64_t* dend = device_zeros<uint64_t>(1);
  long long* dcyc = device_zeros<long long>(1);

  flush_l2<<<prop.multiProcessorCount, kFlushThreads>>>(dflush, flush_n, dsink);
  CHECK_LAUNCH();
  EventTimer timer;
  timer.start();
  mem_chase<<<1, 1>>>(dchain, kSteps, dend, dcyc);
  CHECK(cudaGetLastError());
  float ms = timer.stop_ms();
  CHECK(cudaDeviceSynchronize());

  long long cyc = to_host(dcyc, 1)[0];
  uint64_t end = to_host(dend, 1)[0];
  unsigned sink = to_host(dsink, 1)[0];
  long bad = end != base + uint64_t(kSteps) * kStrideBytes;
  bad += sink != want_x;
  bad += cyc <= 0;
  std::printf("footprint_bytes=%zu\n", kChainBytes);
  std::printf("stride_bytes=%zu\n", kStrideBytes);
  std::printf("steps=%d\n", kSteps);
  std::printf("dram_latency_cycles=%.2f\n", double(cyc) / kSteps);
  int clock_khz = 0;
  CHECK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, 0));
  std::printf("dram_latency_ns=%.1f\n", double(cyc) / kSteps / (clock_khz * 1e-6));
  device_free(dchain, dflush, dsink, dend, dcyc);
  print_timing(ms, 1);
  return verdict("gpu_ubench_mem_lat", bad);
}
