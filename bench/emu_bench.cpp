// Functional PTX emulator speed, in thread instructions per host second, on
// two fixed kernels: an FMA/integer loop (compute) and a grid-stride
// load-add-store loop over 16 MiB (memory).
#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "bench_kernels.h"
#include "exec/device_memory.h"
#include "exec/emulator.h"
#include "exec/program.h"
#include "frontend/ptx/parser.h"

namespace {

const std::string kPtx = std::string(ws::bench::kPtxHeader) + ws::bench::kComputeKernel + ws::bench::kStreamKernel;

struct Setup {
  ws::exec::DeviceMemory mem;
  ws::exec::Program program{mem};
  ws::exec::Emulator emu{mem, 80};
  const ws::exec::LoadedModule* module = &program.load(ws::ptx::parse_module(kPtx, "emu_bench.ptx"));

  ws::exec::Launch launch(const char* kernel, uint32_t ctas, std::vector<uint64_t> words) {
    return ws::bench::make_launch(*module, kernel, ctas, words);
  }
};

void report(benchmark::State& state, uint64_t thread_insts, uint64_t warp_insts) {
  state.counters["thread_insts_per_s"] = benchmark::Counter(double(thread_insts), benchmark::Counter::kIsRate);
  state.counters["warp_insts_per_s"] = benchmark::Counter(double(warp_insts), benchmark::Counter::kIsRate);
  state.counters["thread_insts"] = benchmark::Counter(double(thread_insts) / double(state.iterations()));
}

void BM_EmuCompute(benchmark::State& state) {
  Setup s;
  const uint32_t ctas = 64;
  ws::Addr out = *s.mem.allocate(ctas * 256 * 4);
  ws::exec::Launch l = s.launch("compute", ctas, {out, 200});
  uint64_t threads = 0, warps = 0;
  for (auto _ : state) {
    ws::exec::LaunchResult r = s.emu.run(l);
    if (!r.ok) state.SkipWithError(r.error.c_str());
    threads += r.thread_insts, warps += r.warp_insts;
  }
  report(state, threads, warps);
}

void BM_EmuStream(benchmark::State& state) {
  Setup s;
  const uint32_t n = 4u << 20, ctas = 160;
  ws::Addr dst = *s.mem.allocate(n * 4), src = *s.mem.allocate(n * 4);
  s.mem.fill(src, 1, n * 4);
  ws::exec::Launch l = s.launch("stream", ctas, {dst, src, n});
  uint64_t threads = 0, warps = 0;
  for (auto _ : state) {
    ws::exec::LaunchResult r = s.emu.run(l);
    if (!r.ok) state.SkipWithError(r.error.c_str());
    threads += r.thread_insts, warps += r.warp_insts;
  }
  report(state, threads, warps);
}

BENCHMARK(BM_EmuCompute)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(3);
BENCHMARK(BM_EmuStream)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(3);

}  // namespace
