// Global stores through the L1: store throughput per SM, and a load of data
// the same warp has just stored.
// - Throughput: `ctas` CTAs of 1024 threads (one per SM); every warp issues
//   `reps` coalesced stores of 32 x 4 B (one 128 B line, four full sectors)
//   to its own line every time ("same line"), to a new line every time
//   ("distinct lines"), or 32 x 4 B at an 8 B lane stride (two lines, eight
//   half-written sectors: "partial"). Work is the bytes the lanes store; the
//   partial case also reports sectors. Stores are inline PTX so the compiler
//   keeps every one of them.
// - Load after store: one warp stores a line it has never touched and loads it
//   back at once (the load's address waits for the loaded value of the last
//   round, so rounds do not overlap); cycles per round. Full sectors: served
//   by the L1 if the store installed them (write-allocate), else by the L2.
//   The partial variant has one lane store 4 B of a new sector and load them.
// Every figure is the difference of a run and one twice as long.
//   args: ctas=N (SMs, default 2)  reps=N (stores per warp, default 64)  rounds=N (load-after-store, default 64)
#include "ubench.h"

__device__ __forceinline__ void st_u32(uint32_t* p, uint32_t v) {
  asm volatile("st.global.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}
__device__ __forceinline__ uint32_t ld_u32(const uint32_t* p) {
  uint32_t v;
  asm volatile("ld.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}

enum Pattern { kSameLine = 0, kDistinctLines = 1, kPartial = 2 };

// Words a warp's store covers (the partial pattern spreads over two lines).
__host__ __device__ constexpr uint32_t warp_words(Pattern p) { return p == kPartial ? 64 : 32; }

template <Pattern P>
__global__ void store_loop(uint32_t* base, long reps, ub::Span* spans) {
  const uint32_t lane = threadIdx.x % 32, lane_words = P == kPartial ? 2 : 1;
  const size_t warp = (size_t{blockIdx.x} * blockDim.x + threadIdx.x) / 32;
  const size_t warps = size_t{gridDim.x} * blockDim.x / 32;
  uint32_t* p = base + warp * warp_words(P) + lane * lane_words;
  const size_t step = P == kSameLine ? 0 : warps * warp_words(P);  // distinct: every warp moves on by a line
  long long t0 = ub::clock_now();
#pragma unroll 8
  for (long i = 0; i < reps; ++i, p += step) st_u32(p, static_cast<uint32_t>(i));
  long long t1 = ub::clock_now();
  ub::record_span(spans, t0, t1, 128.0f * reps);
}

// One warp: store, load the stored words back, and take the next address
// from them (the stored value is 0, so the chain only adds a dependence).
template <bool kPartialSector>
__global__ void store_then_load(uint32_t* base, long rounds, long long* cycles, uint32_t* sink) {
  const uint32_t lane = threadIdx.x % 32;
  const uint32_t stride = kPartialSector ? 8 : 32;  // words per round: a new sector, or a new line
  uint32_t* p = base + lane;
  uint32_t carry = 0;
  long long t0 = ub::clock_now();
  for (long i = 0; i < rounds; ++i) {
    p += stride + carry;
    if (!kPartialSector || lane == 0) {
      st_u32(p, 0);
      carry = ld_u32(p);
    }
  }
  sink[lane] = carry;  // waits for the last load before the clock read
  long long t1 = ub::clock_now();
  if (lane == 0) *cycles = t1 - t0;
}

struct Setup {
  ub::Span* spans;
  uint32_t* sink;
  long long* cycles;
  Setup() {
    UB_CHECK(cudaMalloc(&spans, 1 << 20));
    UB_CHECK(cudaMalloc(&sink, 4096));
    UB_CHECK(cudaMalloc(&cycles, sizeof(long long)));
  }
};

// Bytes stored per cycle per SM from `reps` and 2 x `reps` stores per warp.
template <Pattern P>
double store_rate(const Setup& s, uint32_t* base, long reps, int ctas) {
  auto runs = ub::warm_pair([&](int k) {
    store_loop<P><<<ctas, 1024>>>(base, reps << k, s.spans);
    UB_LAUNCHED();
    return ub::sm_totals(s.spans, static_cast<size_t>(ctas) * 1024 / 32);
  });
  return ub::differential_rate(runs[0], runs[1]);
}

// Cycles per store-then-load round; each run starts on lines no earlier run
// touched, so every store finds them absent from the L1.
template <bool kPartialSector>
double round_cycles(const Setup& s, uint32_t*& next, long rounds) {
  const size_t words_per_round = kPartialSector ? 8 : 32;
  long long c[2];
  auto run = [&](long n) {
    store_then_load<kPartialSector><<<1, 32>>>(next, n, s.cycles, s.sink);
    UB_LAUNCHED();
    next += (n + 1) * words_per_round;
    long long got = 0;
    UB_CHECK(cudaMemcpy(&got, s.cycles, sizeof got, cudaMemcpyDeviceToHost));
    return got;
  };
  run(rounds);  // warms the code
  c[0] = run(rounds);
  c[1] = run(2 * rounds);
  return static_cast<double>(c[1] - c[0]) / rounds;
}

int main(int argc, char** argv) {
  Setup s;
  const int sms = ub::props().multiProcessorCount;
  const int ctas = static_cast<int>(std::min<long>(ub::arg(argc, argv, "ctas", 2), sms));
  const long reps = ub::arg(argc, argv, "reps", 64);
  const long rounds = ub::arg(argc, argv, "rounds", 64);
  // Every run starts at the buffer's start; the longest (2 x reps stores of
  // 256 B per warp, the partial pattern) sets its size.
  const size_t store_bytes = static_cast<size_t>(ctas) * 32 * 256 * 2 * static_cast<size_t>(reps);
  // Load after store: 1 + 1 + 2 runs of (rounds + 1) lines, then as many sectors.
  const size_t chain_bytes = (4 * static_cast<size_t>(rounds) + 3) * (128 + 32) + 4096;
  uint32_t *buf, *chain;
  UB_CHECK(cudaMalloc(&buf, store_bytes));
  UB_CHECK(cudaMalloc(&chain, chain_bytes));
  UB_CHECK(cudaMemset(chain, 0, chain_bytes));
  ub::emit("l1_store_bytes_per_clk_per_sm_same_line", store_rate<kSameLine>(s, buf, reps, ctas));
  ub::emit("l1_store_bytes_per_clk_per_sm_distinct_lines", store_rate<kDistinctLines>(s, buf, reps, ctas));
  const double partial = store_rate<kPartial>(s, buf, reps, ctas);
  ub::emit("l1_store_bytes_per_clk_per_sm_partial", partial);
  ub::emit("l1_store_sectors_per_clk_per_sm_partial", partial / 128 * 8);  // 128 B in 8 half-written sectors
  uint32_t* next = chain;
  ub::emit("load_after_store_cycles", round_cycles<false>(s, next, rounds));
  ub::emit("load_after_partial_store_cycles", round_cycles<true>(s, next, rounds));
  return 0;
}
