// Instruction fetch: one warp runs a straight-line block of kInsts
// independent FFMAs twice in one launch. The first pass fetches every line
// from L2 (cold instruction cache), the second finds them cached. The
// difference over the block's lines (16 B per instruction, 128 B lines) is
// the fetch cost per line that sequential prefetching did not hide.
//   args: none (the block size is fixed at compile time)
#include "ubench.h"

constexpr int kInsts = 2048, kChains = 8;

__global__ void straight_line(float b, float c, long long* cycles, float* sink) {
  float x[kChains];
  for (int k = 0; k < kChains; ++k) x[k] = threadIdx.x;
#pragma unroll 1
  for (int pass = 0; pass < 2; ++pass) {
    long long t0 = ub::clock_now();
#pragma unroll
    for (int i = 0; i < kInsts; ++i) asm volatile("fma.rn.f32 %0, %0, %1, %2;" : "+f"(x[i % kChains]) : "f"(b), "f"(c));
    float acc = 0;
    for (int k = 0; k < kChains; ++k) acc += x[k];
    sink[threadIdx.x] = acc;
    long long t1 = ub::clock_now();
    if (threadIdx.x == 0) cycles[pass] = t1 - t0;
  }
}

int main() {
  long long* cycles;
  float* sink;
  UB_CHECK(cudaMalloc(&cycles, 2 * sizeof(long long)));
  UB_CHECK(cudaMalloc(&sink, 32 * sizeof(float)));
  straight_line<<<1, 32>>>(0.999f, 0.001f, cycles, sink);
  UB_LAUNCHED();
  long long c[2];
  UB_CHECK(cudaMemcpy(c, cycles, sizeof c, cudaMemcpyDeviceToHost));
  const double lines = kInsts * 16.0 / 128;
  ub::emit("icache_cold_cycles_per_line", static_cast<double>(c[0] - c[1]) / lines);
  ub::emit("icache_warm_cycles_per_inst", static_cast<double>(c[1]) / kInsts);
  return 0;
}
