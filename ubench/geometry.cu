// Cache and shared-memory geometry:
// - shared_banks: 8 warps read shared memory with a stride of s words
//   between lanes; the time per access over the stride-1 time is the
//   conflict degree, gcd(s, banks) for 32 lanes. The smallest stride whose
//   degree reaches 32 (all lanes in one bank) is the bank count.
// - l1_sector_bytes: one thread chases a chain with stride s through data
//   that is in L2 but not L1; every s-th byte starts a new sector, so the
//   average latency reaches the L2 latency once s >= the sector size.
// - l1_line_bytes: a chase with stride s (multiples of 32 B, so that lines
//   spread over the sets) over 1.2 x the L1 capacity (`l1_kb`, default 128),
//   second pass timed. While s <= line every line of the footprint is
//   touched: 1.2 x capacity, misses. Above, each access holds a line (a tag)
//   of its own, and the chase fits once 1.2 x capacity / s <= capacity /
//   line, i.e. s >= 1.2 x line. The line is the power of two at or below
//   (first hitting stride) / 1.2.
// - shared_ld128_{uniform,distinct}_cycles: 32 warps issue 128-bit shared
//   loads, every lane at one address or each at its own 16 B; cycles per
//   warp load on the SM (4 for the distinct ones: four quarter-warp
//   wavefronts; 2 for the uniform ones where paired lanes' registers are
//   returned packed, NVIDIA's rule for compute capability 7.0-7.5).
//   args: l1_kb=N (L1 capacity with no shared memory; default 128)  only=1 banks, 2 sector, 3 line,
//   4 wide shared loads
#include "ubench.h"

__global__ void strided_shared(int stride, long iters, ub::Span* spans, uint32_t* sink) {
  __shared__ uint32_t words[32 * 128];  // strides up to 128 words
  const uint32_t addr = static_cast<uint32_t>(__cvta_generic_to_shared(words)) + (threadIdx.x % 32) * stride * 4;
  uint32_t acc = 0;
  long long t0 = ub::clock_now();
#pragma unroll 8
  for (long i = 0; i < iters; ++i) {
    uint32_t v;
    asm volatile("ld.shared.u32 %0, [%1];" : "=r"(v) : "r"(addr) : "memory");
    acc ^= v;
  }
  sink[threadIdx.x] = acc;
  long long t1 = ub::clock_now();
  ub::record_span(spans, t0, t1, static_cast<float>(iters));
}

// Warp accesses per cycle on one SM (8 warps), from iters and 2 x iters.
double shared_rate(int stride, ub::Span* spans, uint32_t* sink, long iters) {
  auto runs = ub::warm_pair([&](int k) {
    strided_shared<<<1, 256>>>(stride, iters << k, spans, sink);
    UB_LAUNCHED();
    return ub::sm_totals(spans, 8);
  });
  return ub::differential_rate(runs[0], runs[1]);
}

// 128-bit shared loads (LDS.128): every lane at one address (`uniform`), or
// each lane its own 16 B (consecutive, no bank conflict).
__global__ void wide_shared(int uniform, long iters, ub::Span* spans, uint32_t* sink) {
  __shared__ uint4 quads[32];
  const uint32_t lane = threadIdx.x % 32;
  if (threadIdx.x < 32) quads[lane] = make_uint4(lane, lane + 1, lane + 2, lane + 3);
  __syncthreads();
  const uint32_t addr = static_cast<uint32_t>(__cvta_generic_to_shared(quads)) + (uniform ? 0 : lane * 16);
  uint32_t acc = 0;
  long long t0 = ub::clock_now();
#pragma unroll 8
  for (long i = 0; i < iters; ++i) {
    uint32_t a, b, c, d;
    asm volatile("ld.shared.v4.u32 {%0, %1, %2, %3}, [%4];" : "=r"(a), "=r"(b), "=r"(c), "=r"(d) : "r"(addr) : "memory");
    acc ^= a ^ b ^ c ^ d;
  }
  sink[threadIdx.x] = acc;
  long long t1 = ub::clock_now();
  ub::record_span(spans, t0, t1, static_cast<float>(iters));
}

// Cycles per warp LDS.128 on one SM (32 warps), from iters and 2 x iters.
// ptxas gives the kernel 16 registers (sm_80): each warp has two loads in
// flight (four registers each), so it takes a full SM of warps to keep the
// shared pipe busy rather than to time a warp's own round trips.
double wide_shared_cycles(int uniform, ub::Span* spans, uint32_t* sink, long iters) {
  auto runs = ub::warm_pair([&](int k) {
    wide_shared<<<1, 1024>>>(uniform, iters << k, spans, sink);
    UB_LAUNCHED();
    return ub::sm_totals(spans, 32);
  });
  return 1.0 / ub::differential_rate(runs[0], runs[1]);
}

// Average cycles per load of a chase with `stride` over `bytes`; warm passes first.
double chase_latency(size_t bytes, size_t stride, long warm_passes, long long* cycles, uint64_t* sink) {
  void* buf;
  UB_CHECK(cudaMalloc(&buf, bytes));
  const size_t links = bytes / stride;
  auto start = ub::upload_chain(buf, bytes, ub::strided(links, stride));
  ub::chase_global<false><<<1, 1>>>(start, links * warm_passes, static_cast<long>(links), cycles, sink);
  UB_LAUNCHED();
  long long c = 0;
  UB_CHECK(cudaMemcpy(&c, cycles, sizeof c, cudaMemcpyDeviceToHost));
  UB_CHECK(cudaFree(buf));
  return static_cast<double>(c) / links;
}

int main(int argc, char** argv) {
  const long only = ub::arg(argc, argv, "only", 0);
  const size_t l1_bytes = static_cast<size_t>(ub::arg(argc, argv, "l1_kb", 128)) << 10;
  ub::Span* spans;
  uint32_t* sink32;
  long long* cycles;
  uint64_t* sink;
  UB_CHECK(cudaMalloc(&spans, 64 * sizeof(ub::Span)));
  UB_CHECK(cudaMalloc(&sink32, 4096));
  UB_CHECK(cudaMalloc(&cycles, sizeof(long long)));
  UB_CHECK(cudaMalloc(&sink, 64));
  if (only == 0 || only == 1) {
    // Cycles per warp access by stride; the degree stops growing at the bank
    // count (the stride-1 rate may be limited elsewhere, so no fixed ratio).
    double t[8];
    for (int k = 0; k < 8; ++k) t[k] = 1.0 / shared_rate(1 << k, spans, sink32, 64);
    int banks = 0;
    for (int k = 1; k < 7 && !banks; ++k)
      if (t[k] > 1.5 * t[0] && t[k + 1] < 1.1 * t[k]) banks = 1 << k;
    ub::emit("shared_banks", banks);
    if (banks > 1) ub::emit("shared_conflict_cycles_per_way", (1.0 / shared_rate(banks, spans, sink32, 64) - t[0]) / (banks - 1));
  }
  if (only == 0 || only == 4) {
    // Half the cycles for the uniform load: the paired lanes' registers share
    // the return path (shared.pair_packing; NVIDIA's rule for 7.0-7.5).
    ub::emit("shared_ld128_uniform_cycles", wide_shared_cycles(1, spans, sink32, 64));
    ub::emit("shared_ld128_distinct_cycles", wide_shared_cycles(0, spans, sink32, 64));
  }
  // The chases below time one launch each: a chase over a buffer of their
  // own (kept allocated, so no later buffer reuses its lines) warms the code.
  void* warm_buf;
  UB_CHECK(cudaMalloc(&warm_buf, 1024));
  ub::chase_global<false><<<1, 1>>>(ub::upload_chain(warm_buf, 1024, ub::strided(8, 128)), 0, 8, cycles, sink);
  UB_LAUNCHED();
  if (only == 0 || only == 2) {
    // Fully missing strides: the L2 latency from the L1's side.
    const double all_miss = chase_latency(64 << 10, 512, 0, cycles, sink);
    const double all_hit = chase_latency(16 << 10, 128, 1, cycles, sink);
    size_t sector = 0;
    for (size_t stride = 8; stride <= 256 && !sector; stride *= 2)
      if (chase_latency(64 << 10, stride, 0, cycles, sink) > all_hit + 0.9 * (all_miss - all_hit)) sector = stride;
    ub::emit("l1_sector_bytes", static_cast<double>(sector));
  }
  if (only == 0 || only == 3) {
    const double all_hit = chase_latency(16 << 10, 128, 1, cycles, sink);
    const double all_miss = chase_latency(64 << 10, 512, 0, cycles, sink);
    const size_t footprint = l1_bytes * 6 / 5 / 32 * 32;
    size_t line = 0;
    for (size_t stride = 64; stride <= 1024 && !line; stride += 32)
      if (chase_latency(footprint, stride, 1, cycles, sink) < all_hit + 0.1 * (all_miss - all_hit))
        for (line = 32; line * 2 <= stride * 5 / 6; line *= 2) {
        }
    ub::emit("l1_line_bytes", static_cast<double>(line));
  }
  UB_CHECK(cudaFree(warm_buf));
  return 0;
}
