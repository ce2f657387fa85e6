// How many shared-memory instructions warps can issue before issue waits for
// the MIO queue (Nsight Compute's `mio_throttle` stall; `core.mio_queue`):
// each warp of one CTA per SM issues N independent shared loads back to back,
// each a 32-way bank conflict (lane l reads word l * 32 + i: every lane in
// bank i, so the shared-memory pipe takes 32 cycles per load), and reads the
// clock once the N-th has issued, before any result is used. Figure: cycles
// from just before the first load to just after the N-th, mean over the
// warps, per load. While the loads fit in the queue in front of the pipe, a
// load costs an issue slot or two; past it, about the pipe's 32 cycles.
//   keys: mio_issue_cycles_per_load_w{W}_n{N}, W warps per SM (1, 4), N = 2..32
//   args: ctas=N (default: the SM count)
#include "ubench.h"

__device__ __forceinline__ unsigned ld_shared(const unsigned* p) {
  unsigned v;
  asm volatile("ld.shared.u32 %0, [%1];" : "=r"(v) : "l"(__cvta_generic_to_shared(p)) : "memory");
  return v;
}

// Load i: word lane * 32 + i of the CTA's words, every lane in bank i.
struct ConflictingWord {
  const unsigned* words;
  unsigned lane;
  __device__ unsigned operator()(int i) const { return ld_shared(&words[lane * 32 + i % 32]); }
};

template <int N>
__global__ void burst(ub::Span* spans, unsigned* sink) {
  __shared__ unsigned words[32 * 32];
  for (unsigned i = threadIdx.x; i < 32 * 32; i += blockDim.x) words[i] = i;
  __syncthreads();
  sink[blockIdx.x * blockDim.x + threadIdx.x] = ub::timed_burst<N>(ConflictingWord{words, threadIdx.x % 32}, spans);
}

// Mean over the warps of (t1 - t0) / N.
template <int N>
double cycles_per_load(ub::Span* spans, unsigned* sink, int ctas, int warps) {
  return ub::mean_span_per([&] { burst<N><<<ctas, warps * 32>>>(spans, sink); }, spans,
                           static_cast<size_t>(ctas) * warps, N);
}

template <int N>
void curve(ub::Span* spans, unsigned* sink, int ctas) {
  for (int warps : {1, 4}) {
    std::string key = "mio_issue_cycles_per_load_w" + std::to_string(warps) + "_n" + std::to_string(N);
    ub::emit(key.c_str(), cycles_per_load<N>(spans, sink, ctas, warps));
  }
}

int main(int argc, char** argv) {
  const int ctas = static_cast<int>(ub::arg(argc, argv, "ctas", ub::props().multiProcessorCount));
  unsigned* sink;
  ub::Span* spans;
  UB_CHECK(cudaMalloc(&sink, static_cast<size_t>(ctas) * 128 * 4));
  UB_CHECK(cudaMalloc(&spans, sizeof(ub::Span) * ctas * 4));
  curve<2>(spans, sink, ctas);
  curve<4>(spans, sink, ctas);
  curve<8>(spans, sink, ctas);
  curve<16>(spans, sink, ctas);
  curve<32>(spans, sink, ctas);
  return 0;
}
