// Read bandwidth of L1, shared memory, L2 and DRAM with 32-, 64- and 128-bit
// loads per thread (LDG.32/.64/.128, LDS.32/.64/.128).
// - L1 and shared: a few CTAs of 1024 threads, one per SM, each re-reading a
//   16 KB block; bytes per cycle per SM.
// - L2: one CTA per SM, each reading 64 KB and then (second run) the next
//   128 KB of a region half the L2's size, with ld.global.cg; no SM reads a
//   line twice, so no L1 can serve it even where the cache operator is
//   ignored; bytes per cycle, all SMs.
// - DRAM: all SMs stream the L2's size, then the next twice that (never
//   written, so never in the L2; ld.global.cg), timed with CUDA events;
//   GB/s. On a real GPU pass dram_mb=1024: event timing needs milliseconds.
// Every figure comes from a run and one twice as long (ub::differential_rate,
// or the event-time difference for DRAM), so start-up costs drop out; a
// discarded run first warms the kernel's code, so that both find it alike.
// The 16 KB blocks are read uninitialised: only the traffic matters.
//   args: ctas=N (SMs for L1/shared, default 2)  reps=N (L1/shared passes, default 16)
//         dram_mb=N (DRAM stream, default the L2 size)  only=l1|shared|l2|dram as 1..4 (0 all)
//         width=32|64|128 (one load width only, as the tuner runs it; default 0, all three)
#include "ubench.h"

// One load of W 32-bit words, folded into one word so nothing is dead.
#define UB_LOADS(NAME, SPACE)                                                                          \
  template <int W>                                                                                     \
  __device__ __forceinline__ uint32_t NAME(const uint32_t* p) {                                        \
    uint32_t a, b, c, d;                                                                               \
    if constexpr (W == 1) {                                                                            \
      asm volatile("ld." SPACE ".u32 %0, [%1];" : "=r"(a) : "l"(p) : "memory");                       \
      return a;                                                                                        \
    } else if constexpr (W == 2) {                                                                     \
      asm volatile("ld." SPACE ".v2.u32 {%0, %1}, [%2];" : "=r"(a), "=r"(b) : "l"(p) : "memory");     \
      return a ^ b;                                                                                    \
    } else {                                                                                           \
      asm volatile("ld." SPACE ".v4.u32 {%0, %1, %2, %3}, [%4];"                                      \
                   : "=r"(a), "=r"(b), "=r"(c), "=r"(d) : "l"(p) : "memory");                           \
      return a ^ b ^ c ^ d;                                                                            \
    }                                                                                                  \
  }
UB_LOADS(load_ca, "global.ca")
UB_LOADS(load_cg, "global.cg")

template <int W>
__device__ __forceinline__ uint32_t load_shared(uint32_t addr) {
  uint32_t a, b, c, d;
  if constexpr (W == 1) {
    asm volatile("ld.shared.u32 %0, [%1];" : "=r"(a) : "r"(addr) : "memory");
    return a;
  } else if constexpr (W == 2) {
    asm volatile("ld.shared.v2.u32 {%0, %1}, [%2];" : "=r"(a), "=r"(b) : "r"(addr) : "memory");
    return a ^ b;
  } else {
    asm volatile("ld.shared.v4.u32 {%0, %1, %2, %3}, [%4];" : "=r"(a), "=r"(b), "=r"(c), "=r"(d) : "r"(addr) : "memory");
    return a ^ b ^ c ^ d;
  }
}

enum Level { kL1 = 1, kShared = 2, kL2 = 3, kDram = 4 };

// Each CTA reads `window` words from base + its offset, `reps` times, with
// coalesced accesses of W words per thread; each warp records its bytes.
template <int W, Level L>
__global__ void read_window(const uint32_t* base, size_t window, size_t cta_offset, long reps, ub::Span* spans,
                            uint32_t* sink) {
  __shared__ __align__(16) uint32_t block[4096];  // 16 KB (read uninitialised: only the traffic matters)
  const uint32_t* start = base + blockIdx.x * cta_offset + threadIdx.x * W;
  const uint32_t shared_start = static_cast<uint32_t>(__cvta_generic_to_shared(block)) + threadIdx.x * W * 4;
  const size_t step = size_t{blockDim.x} * W, per_thread = window / step;
  uint32_t acc = 0;
  long long t0 = ub::clock_now();
  for (long r = 0; r < reps; ++r) {
    const uint32_t* p = start;  // pointers step on: one add per load, not an index product
    uint32_t a = shared_start;
#pragma unroll 4
    for (size_t i = 0; i < per_thread; ++i, p += step, a += static_cast<uint32_t>(step * 4)) {
      if constexpr (L == kShared) acc ^= load_shared<W>(a);
      else if constexpr (L == kL1) acc ^= load_ca<W>(p);
      else acc ^= load_cg<W>(p);
    }
  }
  sink[blockIdx.x * blockDim.x + threadIdx.x] = acc;  // waits for the last load before the clock read
  long long t1 = ub::clock_now();
  ub::record_span(spans, t0, t1, 4.0f * W * 32 * per_thread * reps);
}

// Grid-stride read of `words` words (DRAM stream).
template <int W>
__global__ void stream(const uint32_t* base, size_t words, uint32_t* sink) {
  uint32_t acc = 0;
  const size_t step = size_t{gridDim.x} * blockDim.x * W;
#pragma unroll 4
  for (size_t i = (size_t{blockIdx.x} * blockDim.x + threadIdx.x) * W; i < words; i += step) acc ^= load_cg<W>(base + i);
  if (acc == 0x9e3779b9u) *sink = acc;  // never true for the zeroed buffer; keeps the loads
}

struct Setup {
  ub::Span* spans;
  uint32_t* sink;
  int sms;
  Setup() : sms(ub::props().multiProcessorCount) {
    UB_CHECK(cudaMalloc(&spans, 1 << 20));
    UB_CHECK(cudaMalloc(&sink, 1 << 24));
  }
};

// Bytes per cycle per SM from `reps` and 2 x `reps` passes over a window.
template <int W, Level L>
double window_rate(const Setup& s, const uint32_t* base, size_t window, size_t offset, long reps, int ctas) {
  auto runs = ub::warm_pair([&](int k) {
    read_window<W, L><<<ctas, 1024>>>(base, window, offset, reps << k, s.spans, s.sink);
    UB_LAUNCHED();
    return ub::sm_totals(s.spans, static_cast<size_t>(ctas) * 1024 / 32);
  });
  return ub::differential_rate(runs[0], runs[1]);
}

// L2: bytes per cycle summed over the SMs. One pass over a window of `words`,
// then one over the next 2 x `words`: no line is read twice by one SM, so its
// L1 cannot serve any of them whatever the cache operator does. A discarded
// pass over the `words` after those warms the code (ub::warm_pair) without
// touching a line the timed passes read.
template <int W>
double l2_rate(const Setup& s, const uint32_t* base, size_t words, size_t offset) {
  auto pass = [&](const uint32_t* from, size_t window) {
    read_window<W, kL2><<<s.sms, 1024>>>(from, window, offset, 1, s.spans, s.sink);
    UB_LAUNCHED();
    return ub::sm_totals(s.spans, static_cast<size_t>(s.sms) * 1024 / 32);
  };
  pass(base + 3 * words, words);
  const std::map<unsigned, ub::SmTotal> runs[2] = {pass(base, words), pass(base + words, 2 * words)};
  return ub::differential_rate(runs[0], runs[1]) * static_cast<double>(runs[1].size());
}

// The best width is also reported under the plain key (what a preset needs):
// the best of the widths measured, all three unless `width=` picks one.
template <class F>
void widths(const char* key, long only_bits, F measure) {
  double best = 0;
  auto one = [&](auto words, int bits) {
    if (only_bits != 0 && only_bits != bits) return;
    const double got = measure(words);
    ub::emit((std::string(key) + "_ld" + std::to_string(bits)).c_str(), got);
    best = std::max(best, got);
  };
  one(std::integral_constant<int, 1>{}, 32);
  one(std::integral_constant<int, 2>{}, 64);
  one(std::integral_constant<int, 4>{}, 128);
  ub::emit(key, best);
}

int main(int argc, char** argv) {
  Setup s;
  const int ctas = static_cast<int>(std::min<long>(ub::arg(argc, argv, "ctas", 2), s.sms));
  const long reps = ub::arg(argc, argv, "reps", 16);
  const long only = ub::arg(argc, argv, "only", 0);
  const long width = ub::arg(argc, argv, "width", 0);
  if (width != 0 && width != 32 && width != 64 && width != 128) {
    std::fprintf(stderr, "bandwidth: width=%ld: expected 32, 64 or 128 (or 0, all)\n", width);
    return 2;
  }
  const size_t l2 = std::max(ub::props().l2CacheSize, 1 << 20);
  const size_t dram_bytes = static_cast<size_t>(ub::arg(argc, argv, "dram_mb", std::max<size_t>(l2 >> 20, 1))) << 20;
  uint32_t* buf;
  const size_t buf_bytes = l2 + (1 << 20);
  UB_CHECK(cudaMalloc(&buf, buf_bytes));
  UB_CHECK(cudaMemset(buf, 0, buf_bytes));
  const size_t block_words = 4096, l1_offset = block_words;  // each CTA its own 16 KB block
  if (only == 0 || only == kL1)
    widths("l1_bandwidth_bytes_per_clk_per_sm", width, [&](auto w) {
      return window_rate<decltype(w)::value, kL1>(s, buf, block_words, l1_offset, reps, ctas);
    });
  if (only == 0 || only == kShared)
    widths("shared_bandwidth_bytes_per_clk_per_sm", width, [&](auto w) {
      return window_rate<decltype(w)::value, kShared>(s, buf, block_words, 0, reps, ctas);
    });
  if (only == 0 || only == kL2) {
    // Per SM 64 KB then the next 128 KB, SMs 1/SMs of the way apart (128 B
    // aligned) through a region of half the L2, which is read into it first.
    const size_t words = (64 << 10) / 4, region = l2 / 2 / 4, offset = (region - 3 * words) / s.sms / 32 * 32;
    stream<4><<<s.sms, 1024>>>(buf, region, s.sink);
    UB_LAUNCHED();
    widths("l2_bandwidth_bytes_per_clk", width, [&](auto w) { return l2_rate<decltype(w)::value>(s, buf, words, offset); });
  }
  if (only == 0 || only == kDram) {
    // Each run reads a part of the buffer no earlier run touched (3 widths x
    // (1 + 2) parts), so nothing of it is in the L2. Never written: only the
    // traffic matters.
    const size_t warm_bytes = std::max(l2, dram_bytes);
    uint32_t* dram;
    UB_CHECK(cudaMalloc(&dram, 9 * dram_bytes + 3 * warm_bytes));
    const uint32_t* next = dram;
    ub::EventTimer timer;
    widths("dram_bandwidth_gbps", width, [&](auto w) {
      // A discarded stream over an L2's worth of untouched data warms the
      // kernel's code on every SM and leaves the L2 full of clean lines: the
      // dirty ones earlier writes (the memset of `buf`) left would otherwise
      // be written back during the first timed run only, and the difference
      // of the two runs would hide that traffic.
      stream<decltype(w)::value><<<2 * s.sms, 1024>>>(next, warm_bytes / 4, s.sink);
      UB_LAUNCHED();
      next += warm_bytes / 4;
      float ms[2];
      for (int k = 0; k < 2; ++k) {
        timer.begin();
        stream<decltype(w)::value><<<2 * s.sms, 1024>>>(next, (dram_bytes << k) / 4, s.sink);
        ms[k] = timer.end_ms();
        UB_LAUNCHED();
        next += (dram_bytes << k) / 4;
      }
      return dram_bytes / ((ms[1] - ms[0]) * 1e6);
    });
    UB_CHECK(cudaFree(dram));
  }
  UB_CHECK(cudaFree(buf));
  return 0;
}
