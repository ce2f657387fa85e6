// Misses in flight per SM (MSHR throughput): one CTA of 1024 threads on one
// SM; every lane of every load touches its own 128 B line of a region that
// is in L2 but has never been in this SM's L1 (ld.global.ca, each line
// read once), `unroll` independent loads per thread. By Little's law the
// lines in flight are (lines per cycle) x (one miss's latency); the latency
// is a single-thread chase of the same kind of miss.
//   args: loads=N (per thread, default 8)
#include "ubench.h"

__global__ void misses(const char* region, long loads, ub::Span* spans, uint32_t* sink) {
  const size_t lane_line = size_t{blockIdx.x * blockDim.x + threadIdx.x} * 128;
  const size_t stride = size_t{gridDim.x} * blockDim.x * 128;
  uint32_t acc = 0;
  long long t0 = ub::clock_now();
#pragma unroll 8
  for (long i = 0; i < loads; ++i) acc ^= static_cast<uint32_t>(ub::ld_ca(reinterpret_cast<const uint64_t*>(region + lane_line + i * stride)));
  sink[threadIdx.x] = acc;
  long long t1 = ub::clock_now();
  ub::record_span(spans, t0, t1, 32.0f * loads);
}

int main(int argc, char** argv) {
  const long loads = ub::arg(argc, argv, "loads", 8);
  const int threads = 1024;
  // The short run reads part / 2, the long run (2 x loads) the next part,
  // the latency chase the third part, the warm-up run the half part after.
  const size_t part = size_t{threads} * 128 * 2 * loads;
  char* region;
  ub::Span* spans;
  uint32_t* sink;
  long long* cycles;
  UB_CHECK(cudaMalloc(&region, 3 * part + part / 2));
  UB_CHECK(cudaMalloc(&spans, 32 * sizeof(ub::Span)));
  UB_CHECK(cudaMalloc(&sink, 4096));
  UB_CHECK(cudaMalloc(&cycles, sizeof(long long)));
  // Copies from the host pass through the L2 (on the GPU and in warpsim), so
  // the region is there and has never been in any L1.
  std::vector<char> zeros(2 * part, 0);
  UB_CHECK(cudaMemcpy(region, zeros.data(), 2 * part, cudaMemcpyHostToDevice));
  // The chase is this program's first launch of chase_global: a chase over 8
  // other lines of the third part first brings its code into the caches
  // (the chain image written next overwrites them; they are not read again).
  auto warm = ub::upload_chain(region + 2 * part + part / 2, 8 * 128, ub::strided(8, 128));
  ub::chase_global<false><<<1, 1>>>(warm, 0, 8, cycles, reinterpret_cast<uint64_t*>(sink));
  UB_LAUNCHED();
  auto start = ub::upload_chain(region + 2 * part, part, ub::strided(256, 128));
  ub::chase_global<false><<<1, 1>>>(start, 0, 256, cycles, reinterpret_cast<uint64_t*>(sink));
  UB_LAUNCHED();
  long long c = 0;
  UB_CHECK(cudaMemcpy(&c, cycles, sizeof c, cudaMemcpyDeviceToHost));
  const double latency = static_cast<double>(c) / 256;
  // A discarded run over the last part / 2 warms the code without bringing
  // any line of the timed runs into the L1.
  auto run = [&](const char* from, long n) {
    misses<<<1, threads>>>(from, n, spans, sink);
    UB_LAUNCHED();
    return ub::sm_totals(spans, threads / 32);
  };
  run(region + 3 * part, loads);
  const std::map<unsigned, ub::SmTotal> runs[2] = {run(region, loads), run(region + part / 2, 2 * loads)};
  const double lines_per_clk = ub::differential_rate(runs[0], runs[1]);
  ub::emit("l1_miss_lines_per_clk_per_sm", lines_per_clk);
  ub::emit("l1_miss_latency_cycles", latency);
  ub::emit("l1_misses_in_flight_per_sm", lines_per_clk * latency);
  return 0;
}
