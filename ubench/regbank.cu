// Register-bank conflicts: one warp runs FFMAs whose three sources sit in one
// register bank ("same") or are spread over banks ("spread"), as a dependent
// chain (cycles per instruction = latency) and as 8 independent chains
// (cycles per instruction = issue throughput of one warp).
//
// What it can show depends on who picks the registers. The FFMAs are
// written in inline PTX on registers declared in one block (`x<96>`): under
// `warpsim exec --timing` the PTX is run as written and PTX register k of
// the kernel is register k for the bank model (bank = k mod banks), so
// "same" puts every source of an FFMA in one bank for 2 and 4 banks
// (sources 4 registers apart) and "spread" puts them in consecutive
// registers. On a real GPU ptxas allocates the physical registers and sets
// the reuse flags itself, so both variants normally become the same
// conflict-avoiding SASS and should time alike: there the keys say only
// that; they are no measurement of the bank structure (that needs SASS
// written by hand, as Jia et al. did).
//   args: steps=N (loop trips, default 256)
#include "ubench.h"

// One FFMA chain step: x<d> = x<a> * x<b> + x<d>.
#define UB_FMA(d, a, b) "fma.rn.f32 x" #d ", x" #a ", x" #b ", x" #d ";\n\t"
#define UB_MOV(r) "mov.f32 x" #r ", %1;\n\t"

// Chain i uses registers 12i + {0, 4, 8} (same bank) or 12i + {0, 1, 2}.
#define UB_SAME_INIT                                                                                             \
  UB_MOV(0) UB_MOV(4) UB_MOV(8) UB_MOV(12) UB_MOV(16) UB_MOV(20) UB_MOV(24) UB_MOV(28) UB_MOV(32) UB_MOV(36)     \
  UB_MOV(40) UB_MOV(44) UB_MOV(48) UB_MOV(52) UB_MOV(56) UB_MOV(60) UB_MOV(64) UB_MOV(68) UB_MOV(72) UB_MOV(76)  \
  UB_MOV(80) UB_MOV(84) UB_MOV(88) UB_MOV(92)
#define UB_SAME_CHAINS                                                                                           \
  UB_FMA(8, 0, 4) UB_FMA(20, 12, 16) UB_FMA(32, 24, 28) UB_FMA(44, 36, 40) UB_FMA(56, 48, 52) UB_FMA(68, 60, 64) \
  UB_FMA(80, 72, 76) UB_FMA(92, 84, 88)
#define UB_SPREAD_INIT                                                                                           \
  UB_MOV(0) UB_MOV(1) UB_MOV(2) UB_MOV(12) UB_MOV(13) UB_MOV(14) UB_MOV(24) UB_MOV(25) UB_MOV(26) UB_MOV(36)     \
  UB_MOV(37) UB_MOV(38) UB_MOV(48) UB_MOV(49) UB_MOV(50) UB_MOV(60) UB_MOV(61) UB_MOV(62) UB_MOV(72) UB_MOV(73)  \
  UB_MOV(74) UB_MOV(84) UB_MOV(85) UB_MOV(86)
#define UB_SPREAD_CHAINS                                                                                         \
  UB_FMA(2, 0, 1) UB_FMA(14, 12, 13) UB_FMA(26, 24, 25) UB_FMA(38, 36, 37) UB_FMA(50, 48, 49) UB_FMA(62, 60, 61) \
  UB_FMA(74, 72, 73) UB_FMA(86, 84, 85)
// The dependent chain: the sources swap places every step, so that no
// source repeats in the same position (an operand reuse cache would serve it).
#define UB_SAME_DEP UB_FMA(8, 0, 4) UB_FMA(8, 4, 0)
#define UB_SPREAD_DEP UB_FMA(2, 0, 1) UB_FMA(2, 1, 0)

#define UB_LOOP(init, body, result)                 \
  asm volatile(                                     \
      "{\n\t"                                       \
      ".reg .f32 x<96>;\n\t"                        \
      ".reg .pred p;\n\t"                           \
      ".reg .u32 n;\n\t" init                       \
      "mov.u32 n, %2;\n"                            \
      "UB_LOOP_TOP:\n\t" body                       \
      "sub.u32 n, n, 1;\n\t"                        \
      "setp.ne.u32 p, n, 0;\n\t"                    \
      "@p bra UB_LOOP_TOP;\n\t"                     \
      "mov.f32 %0, x" result ";\n\t"                \
      "}"                                           \
      : "=f"(r)                                     \
      : "f"(seed), "r"(steps)                       \
      : "memory")

// The cycles of the loop and its result (kept so nothing is dead).
#define UB_KERNEL(name, init, body, result)                                      \
  __global__ void name(float seed, unsigned steps, long long* cycles, float* out) { \
    float r;                                                                     \
    long long t0 = ub::clock_now();                                              \
    UB_LOOP(init, body, result);                                                 \
    long long t1 = ub::clock_now();                                              \
    if (threadIdx.x == 0) *cycles = t1 - t0;                                     \
    out[threadIdx.x] = r;                                                        \
  }

UB_KERNEL(same_chains, UB_SAME_INIT, UB_SAME_CHAINS, "8")
UB_KERNEL(spread_chains, UB_SPREAD_INIT, UB_SPREAD_CHAINS, "2")
UB_KERNEL(same_dep, UB_SAME_INIT, UB_SAME_DEP, "8")
UB_KERNEL(spread_dep, UB_SPREAD_INIT, UB_SPREAD_DEP, "2")

using Kernel = void (*)(float, unsigned, long long*, float*);

// Cycles per FFMA of one warp; the loop's own three instructions are
// measured away by running `steps` and 2 x `steps` trips.
static double cycles_per_ffma(Kernel k, unsigned steps, int ffma_per_trip, long long* d_cycles, float* d_out) {
  long long c[2];
  for (int i = 0; i < 2; ++i) {
    k<<<1, 32>>>(1.0f, steps << i, d_cycles, d_out);
    UB_LAUNCHED();
    UB_CHECK(cudaMemcpy(&c[i], d_cycles, sizeof(long long), cudaMemcpyDeviceToHost));
  }
  return double(c[1] - c[0]) / (double(steps) * ffma_per_trip);
}

int main(int argc, char** argv) {
  unsigned steps = static_cast<unsigned>(ub::arg(argc, argv, "steps", 256));
  long long* d_cycles;
  float* d_out;
  UB_CHECK(cudaMalloc(&d_cycles, sizeof(long long)));
  UB_CHECK(cudaMalloc(&d_out, 32 * sizeof(float)));
  ub::note("FFMA sources in one register bank vs spread (PTX registers: see the header)");
  ub::emit("regbank_same_latency_cycles", cycles_per_ffma(same_dep, steps, 2, d_cycles, d_out));
  ub::emit("regbank_spread_latency_cycles", cycles_per_ffma(spread_dep, steps, 2, d_cycles, d_out));
  ub::emit("regbank_same_cycles_per_inst", cycles_per_ffma(same_chains, steps, 8, d_cycles, d_out));
  ub::emit("regbank_spread_cycles_per_inst", cycles_per_ffma(spread_chains, steps, 8, d_cycles, d_out));
  UB_CHECK(cudaFree(d_cycles));
  UB_CHECK(cudaFree(d_out));
  return 0;
}
