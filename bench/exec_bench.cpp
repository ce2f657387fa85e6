// Execution-driven timing speed: a PTX streaming kernel run by exec::Device
// with --timing semantics on QV100 (emulation on demand + the cycle-level
// model), in warp instructions per host second, as for traces.
#include <benchmark/benchmark.h>

#include <string>

#include "bench_kernels.h"
#include "exec/device.h"
#include "frontend/ptx/parser.h"

namespace {

// 640 CTAs x 256 threads update 4 Mi floats (dst += 2 * src: 32 MiB read, 16 MiB written).
void BM_ExecTimedStreamQv100(benchmark::State& state) {
  const uint32_t n = 4u << 20, ctas = 640;
  uint64_t warps = 0;
  double cycles = 0;
  for (auto _ : state) {
    ws::exec::DeviceOptions o;
    o.timing = true;
    o.print_summary = false;
    ws::exec::Device dev(o);
    const ws::exec::LoadedModule& m = dev.program().load(
        ws::ptx::parse_module(std::string(ws::bench::kPtxHeader) + ws::bench::kStreamKernel, "exec_bench.ptx"));
    ws::Addr dst = *dev.memory().allocate(n * 4), src = *dev.memory().allocate(n * 4);
    ws::exec::Launch l = ws::bench::make_launch(m, "stream", ctas, {dst, src, n});
    double before = dev.now_ns();
    ws::exec::LaunchResult r = dev.launch(l);
    if (!r.ok) state.SkipWithError(r.error.c_str());
    warps += r.warp_insts;
    cycles = (dev.now_ns() - before) * 1132.0 / 1e3;  // QV100 core clock
  }
  state.counters["warp_insts_per_s"] = benchmark::Counter(double(warps), benchmark::Counter::kIsRate);
  state.counters["warp_insts"] = benchmark::Counter(double(warps) / double(state.iterations()));
  state.counters["sim_cycles"] = cycles;
}

BENCHMARK(BM_ExecTimedStreamQv100)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(2);

}  // namespace
