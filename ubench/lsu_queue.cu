// How many independent global loads warps can issue before issue waits for
// the LD/ST path (Nsight Compute's `lg_throttle` stall): each warp of one CTA
// per SM issues N divergent loads back to back (its 32 lanes on 32 lines of
// their own, L1 hits after a warm pass, so the L1 spends a cycle or more per
// line and a queue builds up in front of it) and reads the clock once the
// N-th has issued, before any result is used. Figure: cycles from just
// before the first load to just after the N-th, mean over the warps, per
// load. While the loads fit in the queue between issue and the L1, a load
// costs an issue slot or two; past it, about what the L1 takes for 32 lines.
// The N where the figure jumps, times the warps per SM, is how many such
// loads the SM holds in flight before the tag stage.
//   keys: lsu_issue_cycles_per_load_w{W}_n{N}, W warps per SM (1, 4), N = 2..32
//   args: ctas=N (default: the SM count)
#include "ubench.h"

// Load i: a word of the lane's line (the first pass brings the lines into the L1).
struct LineWord {
  const unsigned* mine;
  __device__ unsigned operator()(int i) const { return mine[i % 32]; }
};

template <int N>
__global__ void burst(const unsigned* base, ub::Span* spans, unsigned* sink) {
  const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  // 32 lines per warp (one per lane), 4 KiB apart so that no two share a line.
  const unsigned* mine = base + (size_t{blockIdx.x} * 8 + warp) * 32 * 1024 + size_t{lane} * 32;
  sink[blockIdx.x * blockDim.x + threadIdx.x] = ub::timed_burst<N>(LineWord{mine}, spans);
}

// Mean over the warps of (t1 - t0) / N.
template <int N>
double cycles_per_load(const unsigned* base, ub::Span* spans, unsigned* sink, int ctas, int warps) {
  return ub::mean_span_per([&] { burst<N><<<ctas, warps * 32>>>(base, spans, sink); }, spans,
                           static_cast<size_t>(ctas) * warps, N);
}

template <int N>
void curve(const unsigned* base, ub::Span* spans, unsigned* sink, int ctas) {
  for (int warps : {1, 4}) {
    std::string key = "lsu_issue_cycles_per_load_w" + std::to_string(warps) + "_n" + std::to_string(N);
    ub::emit(key.c_str(), cycles_per_load<N>(base, spans, sink, ctas, warps));
  }
}

int main(int argc, char** argv) {
  const int ctas = static_cast<int>(ub::arg(argc, argv, "ctas", ub::props().multiProcessorCount));
  const size_t words = static_cast<size_t>(ctas) * 8 * 32 * 1024;
  unsigned *base, *sink;
  ub::Span* spans;
  UB_CHECK(cudaMalloc(&base, words * 4));
  UB_CHECK(cudaMemset(base, 0, words * 4));
  UB_CHECK(cudaMalloc(&sink, static_cast<size_t>(ctas) * 256 * 4));
  UB_CHECK(cudaMalloc(&spans, sizeof(ub::Span) * ctas * 8));
  curve<2>(base, spans, sink, ctas);
  curve<4>(base, spans, sink, ctas);
  curve<8>(base, spans, sink, ctas);
  curve<16>(base, spans, sink, ctas);
  curve<32>(base, spans, sink, ctas);
  return 0;
}
