// L1 throughput of divergent loads: each lane of a warp loads from a line of
// its own (32 lines per load, all L1 hits after a first pass), with the
// lanes' words in one bank of the L1 data array (lines 4 KiB apart, same
// offset) or in 32 different banks (4 KiB + 4 B apart), and with 8 lanes per
// line (4 lines per load). Figures are L1 lines per cycle per SM: how many
// tags the L1 resolves per cycle, and whether the data banks limit it.
// One CTA of 8 warps per SM, each warp on 32 lines of its own (32 KiB per SM).
//   args: iters=N (loads per thread, default 64)  ctas=N (default: the SM count)
#include "ubench.h"

__global__ void divergent(const unsigned* base, long iters, unsigned stride_words, unsigned lanes_per_line,
                          ub::Span* spans, unsigned* sink) {
  const unsigned lane = threadIdx.x % 32, warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
  const unsigned* mine = base + (size_t{warp} * 32 + lane / lanes_per_line) * stride_words + lane % lanes_per_line;
  unsigned sum = 0;
  for (int pass = 0; pass < 2; ++pass) {  // the first pass brings the lines into the L1
    long long t0 = ub::clock_now();
#pragma unroll 8
    for (long i = 0; i < iters; ++i) sum += mine[(i * 5) & 15];  // all lanes at one offset per load; not vectorisable
    long long t1 = ub::clock_now();
    if (pass == 1) ub::record_span(spans, t0, t1, 32.0f / lanes_per_line * iters);
  }
  sink[blockIdx.x * blockDim.x + threadIdx.x] = sum;
}

double lines_per_clk(const unsigned* base, ub::Span* spans, unsigned* sink, long iters, int ctas, unsigned stride_words,
                     unsigned lanes_per_line) {
  auto runs = ub::warm_pair([&](int k) {
    divergent<<<ctas, 256>>>(base, iters << k, stride_words, lanes_per_line, spans, sink);
    UB_LAUNCHED();
    return ub::sm_totals(spans, static_cast<size_t>(ctas) * 8);
  });
  return ub::differential_rate(runs[0], runs[1]);
}

int main(int argc, char** argv) {
  const long iters = ub::arg(argc, argv, "iters", 64);
  const int ctas = static_cast<int>(ub::arg(argc, argv, "ctas", ub::props().multiProcessorCount));
  const size_t words = static_cast<size_t>(ctas) * 8 * 32 * 1025 + 64;
  unsigned *base, *sink;
  ub::Span* spans;
  UB_CHECK(cudaMalloc(&base, words * 4));
  UB_CHECK(cudaMemset(base, 0, words * 4));
  UB_CHECK(cudaMalloc(&sink, static_cast<size_t>(ctas) * 256 * 4));
  UB_CHECK(cudaMalloc(&spans, sizeof(ub::Span) * ctas * 8));
  ub::emit("l1_divergent_lines_per_clk_per_sm_same_bank", lines_per_clk(base, spans, sink, iters, ctas, 1024, 1));
  ub::emit("l1_divergent_lines_per_clk_per_sm_distinct_banks", lines_per_clk(base, spans, sink, iters, ctas, 1025, 1));
  ub::emit("l1_divergent_lines_per_clk_per_sm_4_lines", lines_per_clk(base, spans, sink, iters, ctas, 1025, 8));
  return 0;
}
