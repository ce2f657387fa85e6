// Atomic throughput (atomicAdd on 32-bit integers, returning the old value):
// - global, every thread of the grid on one address: the L2 serialises them;
// - global, each thread its own address (coalesced): the L2's atomic units
//   in parallel;
// - shared, each thread its own word: per SM;
// - global, the lanes of a warp on W words of a line of the warp's own
//   (W = 1, 4, 16; lane l on word l % W): lanes that share a word. Which word
//   a lane takes is read from memory, so the compiler cannot tell that the
//   address is uniform and aggregate the lanes itself; the same with the
//   result unread (W = 1, 4, 16, 32), which makes it a reduction (RED);
// - shared, the lanes of a warp on W words of its own (W = 1, 4, 16): how
//   the SM's shared atomics treat lanes that name one word (a histogram's
//   skewed bins).
// Global figures are operations per cycle for the whole GPU, shared ones per
// SM; each from a run of N and 2N atomics per thread (ub::differential_rate).
//   args: iters=N (atomics per thread, default 16)  ctas=N (default: the SM count)
#include "ubench.h"

enum Mode { kSameAddress, kDistinct, kShared, kConflict, kConflictRed, kSharedConflict };

template <Mode M>
__global__ void atomics(unsigned* global, long iters, ub::Span* spans, unsigned* sink, const unsigned* lane_word) {
  __shared__ unsigned words[1024];
  unsigned* target = M == kSameAddress ? global
                     : M == kDistinct  ? global + blockIdx.x * blockDim.x + threadIdx.x
                     : M == kShared    ? words + threadIdx.x
                     : M == kSharedConflict ? words + threadIdx.x / 32 * 32 + lane_word[threadIdx.x % 32]
                                       : global + (blockIdx.x * blockDim.x + threadIdx.x) / 32 * 32 + lane_word[threadIdx.x % 32];
  if (M == kConflictRed) {  // the result unread: a reduction (RED), the warp does not wait for it
    long long t0 = ub::clock_now();
#pragma unroll 4
    for (long i = 0; i < iters; ++i) atomicAdd(target, 1u);
    long long t1 = ub::clock_now();
    ub::record_span(spans, t0, t1, 32.0f * iters);
    return;
  }
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
double rate(unsigned* global, ub::Span* spans, long iters, int ctas, int threads, bool whole_gpu,
            const unsigned* lane_word = nullptr) {
  unsigned* sink = global + static_cast<size_t>(ctas) * 1024;
  auto runs = ub::warm_pair([&](int k) {
    atomics<M><<<ctas, threads>>>(global, iters << k, spans, sink, lane_word);
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
  unsigned* lane_word;
  UB_CHECK(cudaMalloc(&lane_word, 32 * sizeof(unsigned)));
  for (unsigned words : {1u, 4u, 16u}) {
    unsigned host[32];
    for (unsigned lane = 0; lane < 32; ++lane) host[lane] = lane % words;
    UB_CHECK(cudaMemcpy(lane_word, host, sizeof host, cudaMemcpyHostToDevice));
    std::string key = "atomic_global_words" + std::to_string(words) + "_per_warp_ops_per_clk";
    ub::emit(key.c_str(), rate<kConflict>(global, spans, iters, ctas, 256, true, lane_word));
  }
  for (unsigned words : {1u, 4u, 16u, 32u}) {
    unsigned host[32];
    for (unsigned lane = 0; lane < 32; ++lane) host[lane] = lane % words;
    UB_CHECK(cudaMemcpy(lane_word, host, sizeof host, cudaMemcpyHostToDevice));
    std::string key = "reduction_global_words" + std::to_string(words) + "_per_warp_ops_per_clk";
    ub::emit(key.c_str(), rate<kConflictRed>(global, spans, iters * 4, ctas, 256, true, lane_word));
  }
  for (unsigned words : {1u, 4u, 16u}) {
    unsigned host[32];
    for (unsigned lane = 0; lane < 32; ++lane) host[lane] = lane % words;
    UB_CHECK(cudaMemcpy(lane_word, host, sizeof host, cudaMemcpyHostToDevice));
    std::string key = "atomic_shared_words" + std::to_string(words) + "_per_warp_ops_per_clk_per_sm";
    ub::emit(key.c_str(), rate<kSharedConflict>(global, spans, iters, std::min(ctas, 2), 1024, false, lane_word));
  }
  return 0;
}
