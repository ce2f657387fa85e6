// Shared by the microbenchmarks: error checks, arguments, key=value output,
// clock reads and pointer chains. Plain CUDA only, so every program runs
// unchanged on a real GPU (sm_70 and newer) and under `warpsim exec --timing`.
#pragma once
#include <cuda_runtime.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#define UB_CHECK(call)                                                                           \
  do {                                                                                           \
    cudaError_t err_ = (call);                                                                   \
    if (err_ != cudaSuccess) {                                                                   \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(err_)); \
      std::exit(1);                                                                              \
    }                                                                                            \
  } while (0)

// After a launch: configuration errors, then faults during the kernel.
#define UB_LAUNCHED()               \
  do {                              \
    UB_CHECK(cudaGetLastError());   \
    UB_CHECK(cudaDeviceSynchronize()); \
  } while (0)

namespace ub {

// Sizes come from `name=value` arguments, else from UBENCH_<NAME> in the
// environment, else the default: small defaults keep simulated runs to
// seconds; a real GPU takes larger ones (`scripts/ubench-run.sh --native`).
inline long arg(int argc, char** argv, const char* name, long fallback) {
  size_t len = std::strlen(name);
  for (int i = 1; i < argc; ++i)
    if (std::strncmp(argv[i], name, len) == 0 && argv[i][len] == '=') return std::atol(argv[i] + len + 1);
  std::string env = "UBENCH_";
  for (size_t i = 0; i < len; ++i) env += static_cast<char>(std::toupper(static_cast<unsigned char>(name[i])));
  if (const char* v = std::getenv(env.c_str())) return std::atol(v);
  return fallback;
}

// One result line. Keys carry their unit (`_cycles`, `_bytes_per_clk`, ...)
// so the tuner reads them without a schema.
// `decimals`: 2 by default; more where one step of the last digit is many
// cycles (launch costs in us), so that `warpsim tune` can invert the figure.
inline void emit(const char* key, double value, int decimals = 2) {
  if (value == static_cast<double>(static_cast<long long>(value)))
    std::printf("%s=%lld\n", key, static_cast<long long>(value));
  else
    std::printf("%s=%.*f\n", key, decimals, value);
  std::fflush(stdout);
}

inline void note(const char* text) { std::printf("# %s\n", text); }

inline cudaDeviceProp props() {
  cudaDeviceProp p{};
  int dev = 0;
  UB_CHECK(cudaGetDevice(&dev));
  UB_CHECK(cudaGetDeviceProperties(&p, dev));
  return p;
}

// Core clock in MHz as the device reports it (cudaDevAttrClockRate is kHz).
inline double core_mhz() {
  int khz = 0, dev = 0;
  UB_CHECK(cudaGetDevice(&dev));
  UB_CHECK(cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, dev));
  return khz / 1000.0;
}

// Elapsed milliseconds between two recorded events.
struct EventTimer {
  cudaEvent_t start{}, stop{};
  EventTimer() {
    UB_CHECK(cudaEventCreate(&start));
    UB_CHECK(cudaEventCreate(&stop));
  }
  ~EventTimer() {
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
  }
  void begin() { UB_CHECK(cudaEventRecord(start)); }
  float end_ms() {
    UB_CHECK(cudaEventRecord(stop));
    UB_CHECK(cudaEventSynchronize(stop));
    float ms = 0;
    UB_CHECK(cudaEventElapsedTime(&ms, start, stop));
    return ms;
  }
};

// The core clock. The "memory" clobber keeps the compiler from moving the
// read across the loads and stores that a measurement brackets.
__device__ __forceinline__ long long clock_now() {
  long long t;
  asm volatile("mov.u64 %0, %%clock64;" : "=l"(t)::"memory");
  return t;
}

__device__ __forceinline__ unsigned sm_id() {
  unsigned id;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(id));
  return id;
}

// The interval one warp spent on a measured loop, on its SM's clock, and the
// work it did in it. Warps write their own slot and no barrier follows the
// clock reads (a barrier right after a clock read makes the reading wait on
// other warps; and warpsim's timed mode still reads some of those early).
struct Span {
  long long t0, t1;
  unsigned sm;
  float work;
};

__device__ __forceinline__ void record_span(Span* spans, long long t0, long long t1, float work) {
  if (threadIdx.x % 32 != 0) return;
  const unsigned warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
  spans[warp] = Span{t0, t1, sm_id(), work};
}

// The issue-burst benchmarks' timed part (lsu_queue, mio_queue): N
// independent loads `load(i)` back to back between two clock reads, their
// results used only after the second; twice (the first pass warms what the
// loads need), the second pass recorded. Returns the results' sum.
template <int N, class Load>
__device__ __forceinline__ unsigned timed_burst(const Load& load, Span* spans) {
  unsigned v[N], sum = 0;
  for (int pass = 0; pass < 2; ++pass) {
    long long t0 = clock_now();
#pragma unroll
    for (int i = 0; i < N; ++i) v[i] = load(i);
    long long t1 = clock_now();
#pragma unroll
    for (int i = 0; i < N; ++i) sum += v[i];
    if (pass == 1) record_span(spans, t0, t1, float(N));
  }
  return sum;
}

// The issue-burst benchmarks (lsu_queue, mio_queue): `launch()` runs the
// kernel, twice (the first launch pays the code's fetch); then the mean over
// the `warps` recorded spans of (t1 - t0) / per.
template <class Launch>
double mean_span_per(Launch launch, const Span* dev_spans, size_t warps, double per) {
  for (int k = 0; k < 2; ++k) {
    launch();
    UB_LAUNCHED();
  }
  std::vector<Span> s(warps);
  UB_CHECK(cudaMemcpy(s.data(), dev_spans, warps * sizeof(Span), cudaMemcpyDeviceToHost));
  double total = 0;
  for (const Span& x : s) total += double(x.t1 - x.t0) / per;
  return total / double(s.size());
}

// Per SM (clocks of different SMs are not comparable): the SM's work and
// the cycles from its first warp's start to its last warp's end.
struct SmTotal {
  double work = 0, cycles = 0;
};

inline std::map<unsigned, SmTotal> sm_totals(const Span* dev_spans, size_t warps) {
  std::vector<Span> spans(warps);
  UB_CHECK(cudaMemcpy(spans.data(), dev_spans, warps * sizeof(Span), cudaMemcpyDeviceToHost));
  std::map<unsigned, std::pair<long long, long long>> interval;
  std::map<unsigned, SmTotal> out;
  for (const Span& s : spans) {
    auto it = interval.try_emplace(s.sm, s.t0, s.t1).first;
    it->second.first = std::min(it->second.first, s.t0);
    it->second.second = std::max(it->second.second, s.t1);
    out[s.sm].work += s.work;
  }
  for (auto& [sm, t] : out) t.cycles = static_cast<double>(interval[sm].second - interval[sm].first);
  return out;
}

// The two runs of a differential measurement, after one discarded run(0).
// The first launch of a kernel reads its code from DRAM and the first one
// on an SM finds that SM's instruction cache cold (on a real GPU and in
// warpsim alike); paid by the short run only, that would not cancel in the
// difference. The discarded run leaves the code equally warm for both.
// `run(k)` launches run k (k = 0 short, 1 long), waits and returns what it
// measured; braced initialisers evaluate in order.
template <class Run>
auto warm_pair(Run run) -> std::array<decltype(run(0)), 2> {
  run(0);
  return {run(0), run(1)};
}

// Work per cycle per SM from a short and a long run of the same launch: the
// differences leave out what both pay alike (warps starting at different
// times, the last warp's tail; instruction fetch once both find the code
// equally warm, see warm_pair). Mean over the SMs of both runs.
inline double differential_rate(const std::map<unsigned, SmTotal>& shorter, const std::map<unsigned, SmTotal>& longer) {
  double sum = 0;
  int n = 0;
  for (const auto& [sm, b] : longer) {
    auto a = shorter.find(sm);
    if (a == shorter.end() || b.cycles <= a->second.cycles) continue;
    sum += (b.work - a->second.work) / (b.cycles - a->second.cycles), ++n;
  }
  return n ? sum / n : 0;
}

// Loads with an explicit cache operator: .ca caches in L1 and L2, .cg in
// L2 only (the L2 latency and bandwidth benchmarks bypass the L1 with it).
__device__ __forceinline__ uint64_t ld_ca(const uint64_t* p) {
  uint64_t v;
  asm volatile("ld.global.ca.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
  return v;
}
__device__ __forceinline__ uint64_t ld_cg(const uint64_t* p) {
  uint64_t v;
  asm volatile("ld.global.cg.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
  return v;
}

// Follows a pointer chain from `start`: `warm` untimed steps, then `steps`
// timed ones; cycles[0] gets the timed interval. Storing the pointer before
// each clock read makes the read wait for the last load (issue is in
// order), so the interval holds whole latencies.
template <bool kBypassL1>
__global__ void chase_global(const uint64_t* start, long warm, long steps, long long* cycles, uint64_t* sink) {
  const uint64_t* p = start;
  for (long i = 0; i < warm; ++i) p = reinterpret_cast<const uint64_t*>(kBypassL1 ? ld_cg(p) : ld_ca(p));
  sink[1] = reinterpret_cast<uint64_t>(p);
  long long t0 = clock_now();
#pragma unroll 8
  for (long i = 0; i < steps; ++i) p = reinterpret_cast<const uint64_t*>(kBypassL1 ? ld_cg(p) : ld_ca(p));
  sink[0] = reinterpret_cast<uint64_t>(p);
  long long t1 = clock_now();
  *cycles = t1 - t0;
}

// A pointer chain: element k of `order` holds the device address of element
// k+1 (the last one points back to the first). Offsets are in bytes from
// `base`, each 8-byte aligned.
inline std::vector<uint64_t> chain_image(uint64_t base, size_t bytes, const std::vector<size_t>& order) {
  std::vector<uint64_t> image(bytes / 8, 0);
  for (size_t k = 0; k < order.size(); ++k) image[order[k] / 8] = base + order[(k + 1) % order.size()];
  return image;
}

// Offsets 0, stride, 2*stride, ... (count of them).
inline std::vector<size_t> strided(size_t count, size_t stride) {
  std::vector<size_t> order(count);
  for (size_t k = 0; k < count; ++k) order[k] = k * stride;
  return order;
}

// `count` distinct slots of `stride` bytes out of `slots`, in a fixed
// pseudo-random order (so prefetchers and open DRAM rows do not help).
inline std::vector<size_t> shuffled(size_t count, size_t slots, size_t stride) {
  std::vector<size_t> pick(slots);
  for (size_t k = 0; k < slots; ++k) pick[k] = k;
  uint64_t s = 0x9e3779b97f4a7c15ull;
  for (size_t k = slots - 1; k > 0; --k) {  // Fisher-Yates with a fixed xorshift seed: deterministic
    s ^= s << 13, s ^= s >> 7, s ^= s << 17;
    std::swap(pick[k], pick[s % (k + 1)]);
  }
  std::vector<size_t> order(count);
  for (size_t k = 0; k < count; ++k) order[k] = pick[k] * stride;
  return order;
}

// Copies a chain over `order` into device memory at `dev` (bytes long);
// returns its first element.
inline const uint64_t* upload_chain(void* dev, size_t bytes, const std::vector<size_t>& order) {
  auto image = chain_image(reinterpret_cast<uint64_t>(dev), bytes, order);
  UB_CHECK(cudaMemcpy(dev, image.data(), bytes, cudaMemcpyHostToDevice));
  return reinterpret_cast<const uint64_t*>(static_cast<char*>(dev) + order[0]);
}

}  // namespace ub
