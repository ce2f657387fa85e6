// Atomic throughput (atomicAdd on 32-bit integers, returning the old value):
// - global, every thread of the grid on one address: the L2 serialises them;
// - global, each thread its own address (coalesced): the L2's atomic units
//   in parallel;
// - shared, each thread its own word: per SM.
// Global figures are operations per cycle for the whole GPU, shared ones per
// SM; each from a run of N and 2N atomics per thread (ub::differential_rate).
//   args: iters=N (atomics per thread, default 16)  ctas=N (default: the SM count)
#include "ubench.h"

enum Mode { kSameAddress, kDistinct, kShared };

template <Mode M>
__global__ void atomics(unsigned* global, long iters, ub::Span* spans, unsigned* sink) {
  __shared__ unsigned words[1024];
  unsigned* target = M == kSameAddress ? global
                     : M == kDistinct  ? global + blockIdx.x * blockDim.x + threadIdx.x
                                       : words + threadIdx.x;
  unsigned sum = 0;
  long long t0 = ub::clock_now();
#pragma unroll 4
  for (long i = 0; i < iters; ++i) sum += atomicAdd(target, 1u);
  // Storing the returned values makes the clock read wait for the last atomic.
  sink[blockIdx.x * blockDim.x + threadIdx.x] = sum;
  long long t1 = ub::clock_now();
  ub::record_span(spans, t0, t1, 32.0f * iters);
}

template <Mode M>
double rate(unsigned* global, ub::Span* spans, long iters, int ctas, int threads, bool whole_gpu) {
  unsigned* sink = global + static_cast<size_t>(ctas) * 1024;
  auto runs = ub::warm_pair([&](int k) {
    atomics<M><<<ctas, threads>>>(global, iters << k, spans, sink);
    UB_LAUNCHED();
    return ub::sm_totals(spans, static_cast<size_t>(ctas) * threads / 32);
  });
  double per_sm = ub::differential_rate(runs[0], runs[1]);
  return whole_gpu ? per_sm * static_cast<double>(runs[1].size()) : per_sm;
}

int main(int argc, char** argv) {
  const int sms = ub::props().multiProcessorCount;
  const long iters = ub::arg(argc, argv, "iters", 16);
  const int ctas = static_cast<int>(ub::arg(argc, argv, "ctas", sms));
  unsigned* global;
  ub::Span* spans;
  UB_CHECK(cudaMalloc(&global, size_t{8} * ctas * 1024));  // targets, then the sink
  UB_CHECK(cudaMemset(global, 0, size_t{8} * ctas * 1024));
  UB_CHECK(cudaMalloc(&spans, sizeof(ub::Span) * ctas * 32));
  ub::emit("atomic_global_same_address_ops_per_clk", rate<kSameAddress>(global, spans, iters, ctas, 256, true));
  ub::emit("atomic_global_distinct_ops_per_clk", rate<kDistinct>(global, spans, iters, ctas, 256, true));
  ub::emit("atomic_shared_ops_per_clk_per_sm", rate<kShared>(global, spans, iters, std::min(ctas, 2), 1024, false));
  return 0;
}
