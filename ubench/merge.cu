// How many requests for one sector an L1 miss takes in while its fill is on
// the way (the MSHR merge limit, `l1d.mshr_max_merge`). W warps of one CTA
// per SM each load the same sector S (in the L2, not in the L1), then a line
// of their own (also in the L2), and wait for both. While the requests for S
// fit in its miss entry, all of them and the W own lines travel in one L2
// round trip. Once they do not, the tag stage (in order) stalls on the
// request that found no room until S's fill returns, and the own lines
// behind it leave only then: the SM takes about two round trips. A GPU that
// merges without limit (or replays such a request without stalling the
// others) shows no step at all.
// Figure: cycles from the SM's first warp's start to its last warp's end,
// mean over the SMs, for W = 1..32 (one CTA holds at most 32 warps).
//   keys: l1_merge_cycles_w{W}; l1_merge_requests_per_miss: the largest W
//         whose figure stays under 1.5 x the W = 1 figure (32: no step seen)
//   args: ctas=N (default: the SM count)
#include "ubench.h"

constexpr int kMaxWarps = 32;
constexpr size_t kLineWords = 128 / sizeof(uint64_t);
// Per CTA: S's line, then one line per warp.
constexpr size_t kCtaWords = (1 + kMaxWarps) * kLineWords;

// Brings the launch's lines into the L2 (not the L1: .cg).
__global__ void to_l2(const uint64_t* chunk, size_t words, uint64_t* sink) {
  uint64_t acc = 0;
  for (size_t i = (size_t{blockIdx.x} * blockDim.x + threadIdx.x) * kLineWords; i < words;
       i += size_t{gridDim.x} * blockDim.x * kLineWords)
    acc ^= ub::ld_cg(chunk + i);
  if (acc == 1) sink[0] = acc;  // never true: keeps the loads
}

__global__ void merge(const uint64_t* chunk, ub::Span* spans, uint64_t* sink) {
  const unsigned warp = threadIdx.x / 32;
  const uint64_t* mine = chunk + blockIdx.x * kCtaWords;
  long long t0 = ub::clock_now();
  uint64_t a = ub::ld_ca(mine);                              // S: every warp's lanes, one sector
  uint64_t b = ub::ld_ca(mine + (1 + warp) * kLineWords);    // the warp's own line
  sink[blockIdx.x * blockDim.x + threadIdx.x] = a ^ b;       // waits for both before the clock read
  long long t1 = ub::clock_now();
  ub::record_span(spans, t0, t1, 1.0f);
}

int main(int argc, char** argv) {
  const int ctas = static_cast<int>(ub::arg(argc, argv, "ctas", ub::props().multiProcessorCount));
  const int warps_list[] = {1, 2, 4, 6, 7, 8, 9, 10, 12, 16, 17, 24, 32};
  const int runs = 1 + static_cast<int>(sizeof(warps_list) / sizeof(warps_list[0]));  // a warm-up run first
  const size_t chunk_words = size_t{static_cast<size_t>(ctas)} * kCtaWords;
  uint64_t *region, *sink;
  ub::Span* spans;
  UB_CHECK(cudaMalloc(&region, chunk_words * runs * sizeof(uint64_t)));
  UB_CHECK(cudaMemset(region, 0, chunk_words * runs * sizeof(uint64_t)));
  UB_CHECK(cudaMalloc(&sink, size_t{static_cast<size_t>(ctas)} * kMaxWarps * 32 * sizeof(uint64_t)));
  UB_CHECK(cudaMalloc(&spans, sizeof(ub::Span) * ctas * kMaxWarps));
  // Each run reads lines of its own (never in any SM's L1 before).
  auto run = [&](int k, int warps) {
    const uint64_t* chunk = region + chunk_words * k;
    to_l2<<<ctas, 256>>>(chunk, chunk_words, sink);
    UB_LAUNCHED();
    merge<<<ctas, warps * 32>>>(chunk, spans, sink);
    UB_LAUNCHED();
    std::map<unsigned, ub::SmTotal> per_sm = ub::sm_totals(spans, static_cast<size_t>(ctas) * warps);
    double sum = 0;
    for (const auto& [sm, t] : per_sm) sum += t.cycles;
    return per_sm.empty() ? 0.0 : sum / double(per_sm.size());
  };
  run(0, kMaxWarps);  // the code's first fetch
  double one = 0;
  int merged = 0;
  bool stepped = false;
  for (int i = 0; i + 1 < runs; ++i) {
    const int w = warps_list[i];
    double cycles = run(i + 1, w);
    if (w == 1) one = cycles;
    if (!stepped && cycles < 1.5 * one) merged = w;
    else stepped = true;
    std::string key = "l1_merge_cycles_w" + std::to_string(w);
    ub::emit(key.c_str(), cycles);
  }
  ub::emit("l1_merge_requests_per_miss", merged);
  return 0;
}
