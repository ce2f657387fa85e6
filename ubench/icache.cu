// Instruction fetch: one warp runs a straight-line block of kInsts
// independent FFMAs twice in one launch; the first pass finds the code cold,
// the second finds it in the SM's instruction cache. The difference over the
// block's lines (16 B per instruction, 128 B lines) is the fetch cost per
// line that sequential prefetching did not hide.
// - icache_cold_cycles_per_line: the program's first launch, so the code
//   comes from DRAM (no launch has brought it into the L2 yet);
// - icache_l2_cycles_per_line: a second launch of two CTAs, timed on the CTA
//   whose SM did not run the first one: its instruction cache is cold, the
//   code is in the L2 (skipped, with a comment, if both CTAs share that SM).
//   args: none (the block size is fixed at compile time)
#include "ubench.h"

constexpr int kInsts = 2048, kChains = 8;

// cycles[2 * CTA + pass]: the pass's interval; sms[CTA]: the CTA's SM.
__global__ void straight_line(float b, float c, long long* cycles, unsigned* sms, float* sink) {
  float x[kChains];
  for (int k = 0; k < kChains; ++k) x[k] = threadIdx.x;
#pragma unroll 1
  for (int pass = 0; pass < 2; ++pass) {
    long long t0 = ub::clock_now();
#pragma unroll
    for (int i = 0; i < kInsts; ++i) asm volatile("fma.rn.f32 %0, %0, %1, %2;" : "+f"(x[i % kChains]) : "f"(b), "f"(c));
    float acc = 0;
    for (int k = 0; k < kChains; ++k) acc += x[k];
    sink[blockIdx.x * 32 + threadIdx.x] = acc;
    long long t1 = ub::clock_now();
    if (threadIdx.x == 0) cycles[2 * blockIdx.x + pass] = t1 - t0;
  }
  if (threadIdx.x == 0) sms[blockIdx.x] = ub::sm_id();
}

int main() {
  long long* cycles;
  unsigned* sms;
  float* sink;
  UB_CHECK(cudaMalloc(&cycles, 4 * sizeof(long long)));
  UB_CHECK(cudaMalloc(&sms, 2 * sizeof(unsigned)));
  UB_CHECK(cudaMalloc(&sink, 64 * sizeof(float)));
  const double lines = kInsts * 16.0 / 128;
  long long c[4];
  unsigned sm[2];
  straight_line<<<1, 32>>>(0.999f, 0.001f, cycles, sms, sink);
  UB_LAUNCHED();
  UB_CHECK(cudaMemcpy(c, cycles, 2 * sizeof(long long), cudaMemcpyDeviceToHost));
  UB_CHECK(cudaMemcpy(sm, sms, sizeof(unsigned), cudaMemcpyDeviceToHost));
  ub::emit("icache_cold_cycles_per_line", static_cast<double>(c[0] - c[1]) / lines);
  ub::emit("icache_warm_cycles_per_inst", static_cast<double>(c[1]) / kInsts);
  const unsigned first_sm = sm[0];
  straight_line<<<2, 32>>>(0.999f, 0.001f, cycles, sms, sink);
  UB_LAUNCHED();
  UB_CHECK(cudaMemcpy(c, cycles, sizeof c, cudaMemcpyDeviceToHost));
  UB_CHECK(cudaMemcpy(sm, sms, sizeof sm, cudaMemcpyDeviceToHost));
  for (int cta = 0; cta < 2; ++cta)
    if (sm[cta] != first_sm) {
      ub::emit("icache_l2_cycles_per_line", static_cast<double>(c[2 * cta] - c[2 * cta + 1]) / lines);
      return 0;
    }
  ub::note("icache: both CTAs of the second launch ran on the first launch's SM; no L2 figure");
  return 0;
}
