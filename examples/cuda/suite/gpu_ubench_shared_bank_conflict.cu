// gpu_ubench_shared_bank_conflict: shared-memory bank conflicts in the style
// of the public GPU microbenchmark suites. Lane l of every warp reads the
// 32-bit word l x stride of a shared array, for stride 1, 2, 4, ..., 32 words:
// with 32 banks of 4 bytes that is a gcd(stride, 32)-way conflict. Two
// measurements per stride, each in one block on one SM:
//  - throughput: 1024 threads each issue kLoads loads of their word (volatile
//    asm, so none is merged); the SM's span over the warp loads it served is
//    the cycles per warp access (1 without conflicts at 128 B/clk/SM; n for an
//    n-way conflict if the banks serve one word each a cycle);
//  - latency: one warp follows a chain in which every lane's word holds its
//    own address, so each load waits for the one before: cycles per load.
// The self-check is every thread's sum against the host's and that each chain
// stays on its word.
#include <cmath>
#include <cstdint>
#include <vector>

#include "suite.h"

constexpr int kWords = 1024;   // 4 KB: lane 31 x stride 32 = word 992
constexpr int kThreads = 1024;
constexpr int kLoads = 256;    // per thread, throughput test
constexpr int kChain = 512;    // per lane, latency test
constexpr int kStrides[] = {1, 2, 4, 8, 16, 32};

__device__ __forceinline__ unsigned lds(unsigned addr) {
  unsigned v;
  asm volatile("ld.shared.u32 %0, [%1];" : "=r"(v) : "r"(addr) : "memory");
  return v;
}

__global__ void conflict_throughput(int stride, unsigned* sums, long long* cycles) {
  __shared__ unsigned buf[kWords];
  for (int i = threadIdx.x; i < kWords; i += blockDim.x) buf[i] = i;
  __syncthreads();
  const unsigned lane = threadIdx.x & 31;
  const unsigned addr = static_cast<unsigned>(__cvta_generic_to_shared(buf + lane * stride));
  unsigned s0 = 0, s1 = 0, s2 = 0, s3 = 0;
  long long t0 = clock64();
#pragma unroll 1
  for (int i = 0; i < kLoads; i += 8) {
    unsigned a = lds(addr), b = lds(addr), c = lds(addr), d = lds(addr);
    unsigned e = lds(addr), f = lds(addr), g = lds(addr), h = lds(addr);
    s0 += a + e;
    s1 += b + f;
    s2 += c + g;
    s3 += d + h;
  }
  __syncthreads();
  long long t1 = clock64();
  sums[threadIdx.x] = (s0 + s1) + (s2 + s3);
  if (threadIdx.x == 0) cycles[0] = t1 - t0;
}

__global__ void conflict_latency(int stride, unsigned* ends, long long* cycles) {
  __shared__ unsigned buf[kWords];
  const unsigned lane = threadIdx.x;
  const unsigned self = static_cast<unsigned>(__cvta_generic_to_shared(buf + lane * stride));
  buf[lane * stride] = self;  // each word points at itself
  __syncwarp();
  unsigned a = self;
  a = lds(a);  // untimed first step
  long long t0 = clock64();
#pragma unroll 16
  for (int i = 0; i < kChain; ++i) asm volatile("ld.shared.u32 %0, [%0];" : "+r"(a)::"memory");
  long long t1 = clock64();
  ends[lane] = a == self;
  if (lane == 0) cycles[0] = t1 - t0;
}

int main() {
  unsigned* dsums = device_alloc<unsigned>(kThreads);
  unsigned* dends = device_alloc<unsigned>(32);
  long long* dcyc = device_alloc<long long>(2);
  long bad = 0;
  float ms = 0.0f;
  int launches = 0;
  double base = 0.0;
  for (int stride : kStrides) {
    EventTimer timer;
    timer.start();
    conflict_throughput<<<1, kThreads>>>(stride, dsums, dcyc);
    CHECK(cudaGetLastError());
    conflict_latency<<<1, 32>>>(stride, dends, dcyc + 1);
    CHECK(cudaGetLastError());
    ms += timer.stop_ms();
    launches += 2;
    CHECK(cudaDeviceSynchronize());
    std::vector<long long> cyc = to_host(dcyc, 2);
    std::vector<unsigned> sums = to_host(dsums, kThreads);
    std::vector<unsigned> ends = to_host(dends, 32);
    for (int t = 0; t < kThreads; ++t) bad += sums[t] != unsigned((t & 31) * stride) * kLoads;
    for (int l = 0; l < 32; ++l) bad += ends[l] != 1u;
    const double per_access = double(cyc[0]) / (double(kThreads / 32) * kLoads);
    if (stride == 1) base = per_access;
    std::printf("stride%d_ways=%d\n", stride, std::min(stride, 32));
    std::printf("stride%d_cycles_per_warp_access=%.2f\n", stride, per_access);
    std::printf("stride%d_slowdown=%.2f\n", stride, per_access / base);
    std::printf("stride%d_latency_cycles=%.2f\n", stride, double(cyc[1]) / kChain);
    bad += !(per_access > 0);
  }
  device_free(dsums, dends, dcyc);
  print_timing(ms, launches);
  return verdict("gpu_ubench_shared_bank_conflict", bad);
}
