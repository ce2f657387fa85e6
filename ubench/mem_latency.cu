// Load-to-use latency of L1, L2, DRAM, shared, constant and texture memory by pointer
// chasing: one thread follows a chain in which every load's address is the
// previous load's value, so the loads cannot overlap; the timed pass's
// cycles over its loads are the latency, taken as the difference between a
// chase of N and one of 2N loads. A warm-up pass over the same chain fills
// the level being measured first (except DRAM, which must stay cold: one
// cold pass after the L2 is flushed).
//   args: steps=N (timed loads, default 512)  dram_lines=N (default 512)
#include "ubench.h"

using ub::clock_now;

using ub::chase_global;

// Reads `words` 16-byte words with every thread (ld.cg): evicts a chain from
// L2 when the buffer is twice the L2.
__global__ void sweep(const uint4* buf, long words, uint32_t* sink) {
  uint32_t acc = 0;
  for (long i = blockIdx.x * long{blockDim.x} + threadIdx.x; i < words; i += long{gridDim.x} * blockDim.x)
    acc ^= __ldcg(buf + i).x;
  if (acc == 0x12345678u) *sink = acc;  // keeps the loads; never true for a zeroed buffer
}

constexpr int kSharedWords = 2048;  // 8 KB of shared memory
constexpr int kSharedStride = 16;   // words: 64 B apart

__global__ void chase_shared(long steps, long long* cycles, uint32_t* sink) {
  __shared__ uint32_t chain[kSharedWords];
  const uint32_t base = static_cast<uint32_t>(__cvta_generic_to_shared(chain));
  const int links = kSharedWords / kSharedStride;
  for (int k = 0; k < links; ++k) chain[k * kSharedStride] = base + ((k + 1) % links) * kSharedStride * 4;
  uint32_t a = base;
  for (int i = 0; i < links; ++i) asm volatile("ld.shared.u32 %0, [%0];" : "+r"(a)::"memory");
  sink[1] = a;
  long long t0 = clock_now();
#pragma unroll 8
  for (long i = 0; i < steps; ++i) asm volatile("ld.shared.u32 %0, [%0];" : "+r"(a)::"memory");
  sink[0] = a;
  long long t1 = clock_now();
  *cycles = t1 - t0;
}

// The constant chain holds constant-space addresses, so each step is one
// `ld.const` (LDC) with no address arithmetic. 16 links 64 B apart (1 KB)
// stay within the smallest constant cache (2 KB on Volta).
constexpr int kConstLinks = 16;
constexpr int kConstStride = 8;  // u64 words: 64 B
__constant__ uint64_t const_chain[kConstLinks * kConstStride];

__global__ void const_base(uint64_t* out) {
  uint64_t a;
  asm volatile("mov.u64 %0, const_chain;" : "=l"(a));
  *out = a;
}

__global__ void chase_const(long steps, long long* cycles, uint64_t* sink) {
  uint64_t a;
  asm volatile("mov.u64 %0, const_chain;" : "=l"(a));
  for (int i = 0; i < kConstLinks; ++i) asm volatile("ld.const.u64 %0, [%0];" : "+l"(a)::"memory");
  sink[1] = a;
  long long t0 = clock_now();
#pragma unroll 8
  for (long i = 0; i < steps; ++i) asm volatile("ld.const.u64 %0, [%0];" : "+l"(a)::"memory");
  sink[0] = a;
  long long t1 = clock_now();
  *cycles = t1 - t0;
}

// A chain of atomics: each `atom.global.add.u64` adds 0 to a link and
// returns it, the next link's address. The atomic is performed at the L2, so
// against the ld.cg chase over the same links this gives what the L2's
// read-modify-write adds to a round trip.
__global__ void chase_atomic(uint64_t* start, long warm, long steps, long long* cycles, uint64_t* sink) {
  uint64_t p = reinterpret_cast<uint64_t>(start);
  for (long i = 0; i < warm; ++i) asm volatile("atom.global.add.u64 %0, [%0], 0;" : "+l"(p)::"memory");
  sink[1] = p;
  long long t0 = clock_now();
#pragma unroll 8
  for (long i = 0; i < steps; ++i) asm volatile("atom.global.add.u64 %0, [%0], 0;" : "+l"(p)::"memory");
  sink[0] = p;
  long long t1 = clock_now();
  *cycles = t1 - t0;
}

// A texture chain: each tex1Dfetch returns the next link's index, the
// coordinate of the next fetch (TEX, no address arithmetic between them).
// 64 links 128 B apart (8 KB), read once before the timed pass.
constexpr int kTexLinks = 64;
constexpr int kTexStride = 32;  // int words: 128 B

__global__ void chase_tex(cudaTextureObject_t t, long steps, long long* cycles, uint32_t* sink) {
  int j = 0;
  for (int i = 0; i < kTexLinks; ++i) j = tex1Dfetch<int>(t, j);
  sink[1] = j;
  long long t0 = clock_now();
#pragma unroll 8
  for (long i = 0; i < steps; ++i) j = tex1Dfetch<int>(t, j);
  sink[0] = j;
  long long t1 = clock_now();
  *cycles = t1 - t0;
}

struct Scratch {
  long long* cycles;
  uint64_t* sink;
  Scratch() {
    UB_CHECK(cudaMalloc(&cycles, sizeof(long long)));
    UB_CHECK(cudaMalloc(&sink, 4 * sizeof(uint64_t)));
  }
  long long read() const {
    long long c = 0;
    UB_CHECK(cudaMemcpy(&c, cycles, sizeof c, cudaMemcpyDeviceToHost));
    return c;
  }
  double per_step(long steps) const { return static_cast<double>(read()) / steps; }
  // Cycles per load from chases of `steps` and 2 x `steps` loads: the
  // difference leaves out the clock reads and the final store (both after a
  // discarded chase, so that both find the code warm: ub::warm_pair).
  template <class Launch>
  double differential(long steps, Launch launch) const {
    auto c = ub::warm_pair([&](int k) {
      launch(steps << k);
      UB_LAUNCHED();
      return read();
    });
    return static_cast<double>(c[1] - c[0]) / steps;
  }
};

// L1: 64 links 128 B apart (8 KB), warmed, then chased with ld.ca.
// L2: 4096 links 128 B apart (512 KB: four times a 128 KB L1, so even a
// cache operator that is ignored still misses L1), chased with ld.cg.
double global_latency(const Scratch& s, bool bypass_l1, size_t links, long steps) {
  const size_t stride = 128, bytes = links * stride;
  void* buf;
  UB_CHECK(cudaMalloc(&buf, bytes));
  auto start = ub::upload_chain(buf, bytes, ub::strided(links, stride));
  double cycles = s.differential(steps, [&](long n) {
    if (bypass_l1)
      chase_global<true><<<1, 1>>>(start, links, n, s.cycles, s.sink);
    else
      chase_global<false><<<1, 1>>>(start, links, n, s.cycles, s.sink);
  });
  UB_CHECK(cudaFree(buf));
  return cycles;
}

// DRAM: `lines` links at random 128 B slots of a buffer four times the L2,
// L2 flushed by sweeping another buffer twice its size, then one cold pass.
// A first launch on a tiny chain warms the kernel's instructions.
double dram_latency(const Scratch& s, long lines) {
  const size_t l2 = std::max(ub::props().l2CacheSize, 1 << 20), bytes = 4 * l2, stride = 128;
  void *buf, *flush;
  UB_CHECK(cudaMalloc(&buf, bytes));
  UB_CHECK(cudaMalloc(&flush, 2 * l2));
  UB_CHECK(cudaMemset(flush, 0, 2 * l2));
  auto start = ub::upload_chain(buf, bytes, ub::shuffled(lines, bytes / stride, stride));
  chase_global<true><<<1, 1>>>(start, 0, 8, s.cycles, s.sink);
  UB_LAUNCHED();
  sweep<<<2 * ub::props().multiProcessorCount, 256>>>(static_cast<const uint4*>(flush), 2 * l2 / 16,
                                                       reinterpret_cast<uint32_t*>(s.sink + 2));
  UB_LAUNCHED();
  chase_global<true><<<1, 1>>>(start, 0, lines, s.cycles, s.sink);
  UB_LAUNCHED();
  UB_CHECK(cudaFree(buf));
  UB_CHECK(cudaFree(flush));
  return s.per_step(lines);
}

// Atomics on the L2 chain of global_latency (4096 links 128 B apart).
double atomic_latency(const Scratch& s, long steps) {
  const size_t links = 4096, stride = 128, bytes = links * stride;
  void* buf;
  UB_CHECK(cudaMalloc(&buf, bytes));
  auto start = ub::upload_chain(buf, bytes, ub::strided(links, stride));
  double cycles = s.differential(steps, [&](long n) {
    chase_atomic<<<1, 1>>>(const_cast<uint64_t*>(start), links, n, s.cycles, s.sink);
  });
  UB_CHECK(cudaFree(buf));
  return cycles;
}

double shared_latency(const Scratch& s, long steps) {
  return s.differential(steps, [&](long n) { chase_shared<<<1, 1>>>(n, s.cycles, reinterpret_cast<uint32_t*>(s.sink)); });
}

double const_latency(const Scratch& s, long steps) {
  const_base<<<1, 1>>>(s.sink);
  UB_LAUNCHED();
  uint64_t base = 0;
  UB_CHECK(cudaMemcpy(&base, s.sink, sizeof base, cudaMemcpyDeviceToHost));
  const size_t bytes = sizeof(const_chain);
  auto image = ub::chain_image(base, bytes, ub::strided(kConstLinks, kConstStride * 8));
  UB_CHECK(cudaMemcpyToSymbol(const_chain, image.data(), bytes));
  return s.differential(steps, [&](long n) { chase_const<<<1, 1>>>(n, s.cycles, s.sink); });
}

double tex_latency(const Scratch& s, long steps) {
  std::vector<int> chain(size_t{kTexLinks} * kTexStride, 0);
  for (int k = 0; k < kTexLinks; ++k) chain[size_t(k) * kTexStride] = ((k + 1) % kTexLinks) * kTexStride;
  int* buf;
  UB_CHECK(cudaMalloc(&buf, chain.size() * sizeof(int)));
  UB_CHECK(cudaMemcpy(buf, chain.data(), chain.size() * sizeof(int), cudaMemcpyHostToDevice));
  cudaResourceDesc res = {};
  res.resType = cudaResourceTypeLinear;
  res.res.linear.devPtr = buf;
  res.res.linear.desc = cudaCreateChannelDesc<int>();
  res.res.linear.sizeInBytes = chain.size() * sizeof(int);
  cudaTextureDesc desc = {};
  desc.readMode = cudaReadModeElementType;
  cudaTextureObject_t t;
  UB_CHECK(cudaCreateTextureObject(&t, &res, &desc, nullptr));
  double cycles = s.differential(steps, [&](long n) {
    chase_tex<<<1, 1>>>(t, n, s.cycles, reinterpret_cast<uint32_t*>(s.sink));
  });
  UB_CHECK(cudaDestroyTextureObject(t));
  UB_CHECK(cudaFree(buf));
  return cycles;
}

int main(int argc, char** argv) {
  const long steps = ub::arg(argc, argv, "steps", 512);
  const long dram_lines = ub::arg(argc, argv, "dram_lines", 512);
  const long only = ub::arg(argc, argv, "only", 0);  // 1 l1, 2 l2, 3 dram, 4 shared, 5 const, 6 atomic, 7 texture; 0 all
  Scratch s;
  if (only == 0 || only == 1) ub::emit("l1_hit_latency_cycles", global_latency(s, false, 64, steps));
  if (only == 0 || only == 2) ub::emit("l2_hit_latency_cycles", global_latency(s, true, 4096, steps));
  if (only == 0 || only == 3) ub::emit("dram_latency_cycles", dram_latency(s, dram_lines));
  if (only == 0 || only == 4) ub::emit("shared_latency_cycles", shared_latency(s, steps));
  if (only == 0 || only == 5) ub::emit("const_hit_latency_cycles", const_latency(s, steps));
  if (only == 0 || only == 6) ub::emit("atomic_latency_cycles", atomic_latency(s, steps));
  if (only == 0 || only == 7) ub::emit("tex_hit_latency_cycles", tex_latency(s, steps));
  return 0;
}
