// Latency and throughput of the execution units: FP32 (FFMA), INT32 (IADD3
// and LOP3; IMAD), FP64 (DFMA), SFU (MUFU.RSQ) and half2 (HFMA2).
// Latency: one thread runs a dependent chain; cycles per operation.
// Throughput: full CTAs, each thread runs kChains independent chains, so
// the pipelines stay busy; lane operations per cycle per SM.
// Issue: one warp, dependent chain vs independent chains of FFMA.
//   args: steps=N (latency chain, default 512)  tsteps=N (throughput loop, default 128)
//         ctas=N (SMs used for throughput, default 2)  threads=N (per CTA, default 1024)
//         only=N (1 FP32 latency, 2 all latencies, 3 throughputs and issue; default 0, all)
#include "ubench.h"

constexpr int kChains = 8;

// Instructions per op() call and operations per lane per instruction.
struct Defaults {
  static constexpr int kPerOp = 1, kLanes = 1;
};

// One operation of each kind, in inline PTX so that the compiler neither
// folds a chain nor changes the instruction (ptxas maps each to one SASS op).
struct Fp32 : Defaults {
  using T = float;
  __device__ static T op(T x, T b, T c) {
    asm volatile("fma.rn.f32 %0, %0, %1, %2;" : "+f"(x) : "f"(b), "f"(c));
    return x;
  }
};
// Integer add and xor alternate: a chain of adds alone would merge into
// three-input IADD3s, and xors into LOP3s.
struct Int32 : Defaults {
  using T = uint32_t;
  __device__ static T op(T x, T b, T c) {
    asm volatile("add.u32 %0, %0, %1;\n\txor.b32 %0, %0, %2;" : "+r"(x) : "r"(b), "r"(c));
    return x;
  }
  static constexpr int kPerOp = 2;
};
struct IntMad : Defaults {
  using T = uint32_t;
  __device__ static T op(T x, T b, T c) {
    asm volatile("mad.lo.u32 %0, %0, %1, %2;" : "+r"(x) : "r"(b), "r"(c));
    return x;
  }
};
struct Fp64 : Defaults {
  using T = double;
  __device__ static T op(T x, T b, T c) {
    asm volatile("fma.rn.f64 %0, %0, %1, %2;" : "+d"(x) : "d"(b), "d"(c));
    return x;
  }
};
// rsqrt of a positive value stays finite and positive along the chain.
struct Sfu : Defaults {
  using T = float;
  __device__ static T op(T x, T, T) {
    asm volatile("rsqrt.approx.ftz.f32 %0, %0;" : "+f"(x));
    return x;
  }
};
struct Half2 : Defaults {
  using T = uint32_t;  // a packed f16x2
  __device__ static T op(T x, T b, T c) {
    asm volatile("fma.rn.f16x2 %0, %0, %1, %2;" : "+r"(x) : "r"(b), "r"(c));
    return x;
  }
  static constexpr int kLanes = 2;  // two f16 operations per lane
};

template <class U> __host__ __device__ constexpr int per_op() { return U::kPerOp; }
template <class U> __host__ __device__ constexpr int lanes() { return U::kLanes; }

// Dependent chain in one thread. The store of the result before the second
// clock read makes that read wait for the chain's last operation. The loop
// runs twice and the second pass counts: the first fetches its instructions.
template <class U>
__global__ void latency(typename U::T seed, typename U::T b, typename U::T c, long steps, long long* cycles,
                        typename U::T* sink) {
  typename U::T x = seed;
  long long t0 = 0, t1 = 0;
  for (int pass = 0; pass < 2; ++pass) {
    sink[1] = x;
    t0 = ub::clock_now();
#pragma unroll 32
    for (long i = 0; i < steps; ++i) x = U::op(x, b, c);
    sink[0] = x;
    t1 = ub::clock_now();
  }
  cycles[0] = t1 - t0;
}

// kChains independent chains per thread; each warp records its interval.
// (A second pass inside the kernel would not do as a warm-up: warps reach it
// at different times, so early ones would time their pass against the
// others' first.)
template <class U>
__global__ void throughput(typename U::T seed, typename U::T b, typename U::T c, long steps, ub::Span* spans,
                           typename U::T* sink) {
  typename U::T x[kChains];
  for (int k = 0; k < kChains; ++k) x[k] = seed;
  long long t0 = ub::clock_now();
  for (long i = 0; i < steps; ++i)
#pragma unroll
    for (int k = 0; k < kChains; ++k) x[k] = U::op(x[k], b, c);
  typename U::T acc = x[0];
  for (int k = 1; k < kChains; ++k) acc = U::op(acc, x[k], c);
  sink[blockIdx.x * blockDim.x + threadIdx.x] = acc;
  long long t1 = ub::clock_now();
  ub::record_span(spans, t0, t1, 32.0f * (steps + 1) * kChains * per_op<U>() * lanes<U>());
}

struct Buffers {
  long long* cycles;
  ub::Span* spans;
  void* sink;
  Buffers() {
    UB_CHECK(cudaMalloc(&cycles, 1024 * sizeof(long long)));
    UB_CHECK(cudaMalloc(&spans, 65536 * sizeof(ub::Span)));
    UB_CHECK(cudaMalloc(&sink, 1 << 20));
  }
  std::vector<long long> read(int n) const {
    std::vector<long long> v(n);
    UB_CHECK(cudaMemcpy(v.data(), cycles, n * sizeof(long long), cudaMemcpyDeviceToHost));
    return v;
  }
};

// Cycles per operation from two chain lengths, N and 2N: the difference
// leaves out what does not grow with N (clock reads, the final store).
template <class U>
double measure_latency(const Buffers& buf, typename U::T seed, typename U::T b, typename U::T c, long steps,
                       int threads = 1) {
  // ub::warm_pair: a first launch brings the code from DRAM into the L2 and
  // this SM's instruction cache, so that the two timed launches find it alike.
  auto cycles = ub::warm_pair([&](int k) {
    latency<U><<<1, threads>>>(seed, b, c, steps << k, buf.cycles, static_cast<typename U::T*>(buf.sink));
    UB_LAUNCHED();
    return buf.read(1)[0];
  });
  return static_cast<double>(cycles[1] - cycles[0]) / (steps * per_op<U>());
}

// Lane operations per cycle per SM (mean over the SMs used), from runs of
// `steps` and 2 x `steps` iterations (ub::differential_rate).
template <class U>
double measure_throughput(const Buffers& buf, typename U::T seed, typename U::T b, typename U::T c, long steps,
                          int ctas, int threads) {
  auto runs = ub::warm_pair([&](int k) {
    throughput<U><<<ctas, threads>>>(seed, b, c, steps << k, buf.spans, static_cast<typename U::T*>(buf.sink));
    UB_LAUNCHED();
    return ub::sm_totals(buf.spans, static_cast<size_t>(ctas) * threads / 32);
  });
  return ub::differential_rate(runs[0], runs[1]);
}

int main(int argc, char** argv) {
  const long steps = ub::arg(argc, argv, "steps", 512);
  const long tsteps = ub::arg(argc, argv, "tsteps", 128);
  const int ctas = static_cast<int>(std::min<long>(ub::arg(argc, argv, "ctas", 2), ub::props().multiProcessorCount));
  const int threads = static_cast<int>(ub::arg(argc, argv, "threads", 1024));
  // 1 fp32 latency only (the ctest subset); 2 the latencies; 3 throughputs and issue; 0 all
  const long only = ub::arg(argc, argv, "only", 0);
  Buffers buf;
  const uint32_t h_one = 0x3c003c00u, h_half = 0x38003800u;  // f16x2 (1, 1) and (0.5, 0.5)
  if (only != 3) {
    ub::emit("fp32_latency_cycles", measure_latency<Fp32>(buf, 1.0f, 0.999f, 0.001f, steps));
    if (only == 1) return 0;
    ub::emit("int32_add_latency_cycles", measure_latency<Int32>(buf, 1u, 3u, 5u, steps));
    ub::emit("int32_mad_latency_cycles", measure_latency<IntMad>(buf, 1u, 3u, 5u, steps));
    ub::emit("fp64_latency_cycles", measure_latency<Fp64>(buf, 1.0, 0.999, 0.001, steps));
    ub::emit("sfu_rsqrt_latency_cycles", measure_latency<Sfu>(buf, 2.0f, 0.0f, 0.0f, steps));
    ub::emit("fp16x2_latency_cycles", measure_latency<Half2>(buf, h_one, h_half, h_half, steps));
    if (only == 2) return 0;
  }
  ub::emit("fp32_throughput_ops_per_clk_per_sm", measure_throughput<Fp32>(buf, 1.0f, 0.999f, 0.001f, tsteps, ctas, threads));
  ub::emit("int32_throughput_ops_per_clk_per_sm", measure_throughput<Int32>(buf, 1u, 3u, 5u, tsteps, ctas, threads));
  ub::emit("int32_mad_throughput_ops_per_clk_per_sm", measure_throughput<IntMad>(buf, 1u, 3u, 5u, tsteps, ctas, threads));
  ub::emit("fp64_throughput_ops_per_clk_per_sm", measure_throughput<Fp64>(buf, 1.0, 0.999, 0.001, tsteps, ctas, threads));
  ub::emit("sfu_throughput_ops_per_clk_per_sm", measure_throughput<Sfu>(buf, 2.0f, 0.0f, 0.0f, tsteps, ctas, threads));
  ub::emit("fp16_throughput_ops_per_clk_per_sm", measure_throughput<Half2>(buf, h_one, h_half, h_half, tsteps, ctas, threads));
  // One warp: a dependent chain issues once per latency, independent chains
  // once per initiation interval of the unit.
  ub::emit("issue_dependent_cycles_per_inst", measure_latency<Fp32>(buf, 1.0f, 0.999f, 0.001f, steps, 32));
  double ops = measure_throughput<Fp32>(buf, 1.0f, 0.999f, 0.001f, steps / kChains, 1, 32);
  ub::emit("issue_independent_cycles_per_inst", 32.0 / ops);
  return 0;
}
