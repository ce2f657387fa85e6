// Simulation speed on fixed synthetic workloads, in warp instructions per host
// second (single-threaded, QV100 preset). `make bench` runs this.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "common/huge_pages.h"
#include "config/config.h"
#include "frontend/trace/synth.h"
#include "frontend/trace/trace_reader.h"
#include "timing/abstract/block_table.h"
#include "timing/model.h"

namespace {

namespace fs = std::filesystem;
using ws::frontend::SynthSpec;

// About 500,000 warp instructions each (the reference size).
SynthSpec stream_spec() {
  SynthSpec s;
  s.kind = "stream";
  s.ctas = 640;
  s.threads_per_cta = 256;
  s.iterations = 16;
  s.footprint_bytes = uint64_t{640} * 256 * 16 * 4;
  return s;
}
// The same per-SM work on a tenth of the GPU (see BM_StreamQv100Slice).
SynthSpec stream_slice_spec() {
  SynthSpec s = stream_spec();
  s.ctas = 64;
  s.footprint_bytes = uint64_t{64} * 256 * 16 * 4;
  return s;
}
SynthSpec compute_spec() {
  SynthSpec s;
  s.kind = "compute";
  s.ctas = 320;
  s.threads_per_cta = 256;
  s.iterations = 24;
  s.chains = 4;
  return s;
}

std::string prepare(const SynthSpec& spec, const std::string& name) {
  fs::path dir = fs::temp_directory_path() / ("warpsim-bench-" + name);
  fs::remove_all(dir);
  ws::frontend::write_synthetic(spec, dir.string());
  return dir.string();
}

void simulate(benchmark::State& state, const SynthSpec& spec, const std::string& name,
              const std::vector<std::string>& overrides = {}) {
  std::string dir = prepare(spec, name);
  ws::config::Config cfg;
  cfg.load_file(ws::config::find_preset("qv100"));
  for (const std::string& o : overrides) cfg.set_assignment(o);
  uint64_t warp_insts = 0, cycles = 0;
  for (auto _ : state) {
    std::unique_ptr<ws::timing::TimingModel> model = ws::timing::make_timing_model(cfg);
    ws::timing::TimingModel& gpu = *model;
    auto work = ws::frontend::open_trace_workload(dir);
    while (auto cmd = work->next()) {
      if (auto* k = std::get_if<std::unique_ptr<ws::ir::KernelSource>>(&*cmd)) {
        auto r = gpu.run_kernel(**k);
        cycles += r.cycles;
        warp_insts += gpu.stats().sum("sm.*.warp_insts", r.before, r.after);
      } else {
        gpu.memcpy_htod(std::get<ws::ir::MemcpyHtoD>(*cmd));
      }
    }
  }
  state.counters["warp_insts_per_s"] = benchmark::Counter(static_cast<double>(warp_insts), benchmark::Counter::kIsRate);
  state.counters["warp_insts"] = benchmark::Counter(static_cast<double>(warp_insts) / state.iterations());
  state.counters["sim_cycles"] = benchmark::Counter(static_cast<double>(cycles) / state.iterations());
}

// One engine on one thread (gpu.partitions = one): the series these two
// names have measured since the start.
void BM_StreamQv100(benchmark::State& s) { simulate(s, stream_spec(), "stream", {"gpu.partitions=one"}); }
void BM_ComputeQv100(benchmark::State& s) { simulate(s, compute_spec(), "compute", {"gpu.partitions=one"}); }
// Split into the SMs' and the memory system's partitions (docs/parallel.md),
// the SMs in one partition, on one thread and on two: the partitioned
// model's cost, and what a second thread gives (stats are the same for both).
void BM_StreamQv100Split1(benchmark::State& s) {
  simulate(s, stream_spec(), "stream-split1", {"gpu.sm_groups=1", "gpu.threads=1"});
}
void BM_StreamQv100Split2(benchmark::State& s) {
  simulate(s, stream_spec(), "stream-split2", {"gpu.sm_groups=1", "gpu.threads=2"});
}
void BM_ComputeQv100Split2(benchmark::State& s) {
  simulate(s, compute_spec(), "compute-split2", {"gpu.sm_groups=1", "gpu.threads=2"});
}
// The default layout: the SMs in two groups and the memory system, three
// partitions, the dispatcher between windows (gpu.sm_groups), on one
// thread and on two (the default takes the host's CPUs).
void BM_StreamQv100Groups1(benchmark::State& s) { simulate(s, stream_spec(), "stream-groups1", {"gpu.threads=1"}); }
void BM_ComputeQv100Groups1(benchmark::State& s) {
  simulate(s, compute_spec(), "compute-groups1", {"gpu.threads=1"});
}
void BM_StreamQv100Groups2(benchmark::State& s) { simulate(s, stream_spec(), "stream-groups2", {"gpu.threads=2"}); }
void BM_ComputeQv100Groups2(benchmark::State& s) {
  simulate(s, compute_spec(), "compute-groups2", {"gpu.threads=2"});
}
// The abstract model (docs/abstract-model.md) on the same workloads: its
// speedup is the ratio of the rates side by side in one run.
// Block entries are characterised afresh in every iteration (no disk cache),
// so the rate includes that cost; the PerInst variants take one event per
// instruction (abstract.block_max = 1, the model before blocks).
void BM_StreamQv100Abstract(benchmark::State& s) {
  simulate(s, stream_spec(), "stream-abs", {"gpu.model=abstract", "abstract.block_cache=off"});
}
void BM_ComputeQv100Abstract(benchmark::State& s) {
  simulate(s, compute_spec(), "compute-abs", {"gpu.model=abstract", "abstract.block_cache=off"});
}
void BM_StreamQv100AbstractPerInst(benchmark::State& s) {
  simulate(s, stream_spec(), "stream-abs1", {"gpu.model=abstract", "abstract.block_cache=off", "abstract.block_max=1"});
}
void BM_ComputeQv100AbstractPerInst(benchmark::State& s) {
  simulate(s, compute_spec(), "compute-abs1", {"gpu.model=abstract", "abstract.block_cache=off", "abstract.block_max=1"});
}
// The floor under any trace-driven model: reading every instruction of the
// same traces (parsing included) and nothing else. The abstract model's rate
// cannot exceed this one.
void read_only(benchmark::State& state, const SynthSpec& spec, const std::string& name) {
  std::string dir = prepare(spec, name);
  uint64_t warp_insts = 0;
  ws::ir::WarpInst inst;
  for (auto _ : state) {
    auto work = ws::frontend::open_trace_workload(dir);
    while (auto cmd = work->next()) {
      auto* k = std::get_if<std::unique_ptr<ws::ir::KernelSource>>(&*cmd);
      if (!k) continue;
      while (auto cta = (*k)->next_cta())
        for (uint32_t w = 0; w < cta->num_warps(); ++w)
          while (cta->next_into(w, inst)) ++warp_insts;
    }
  }
  state.counters["warp_insts_per_s"] = benchmark::Counter(static_cast<double>(warp_insts), benchmark::Counter::kIsRate);
}
void BM_TraceReadStream(benchmark::State& s) { read_only(s, stream_spec(), "stream-read"); }
void BM_TraceReadCompute(benchmark::State& s) { read_only(s, compute_spec(), "compute-read"); }
// Pre-characterisation of one block: the compute loop's body (four FFMA
// chains, the loop counter, compare, branch) on the QV100 unit table.
void BM_CharacteriseBlock(benchmark::State& state) {
  ws::config::Config cfg;
  cfg.load_file(ws::config::find_preset("qv100"));
  auto params = ws::timing::abstract::CoreTimingParams::from(cfg);
  std::vector<ws::ir::WarpInst> block(7);
  for (uint16_t c = 0; c < 4; ++c) {
    block[c].n_dst = 1, block[c].dst[0] = static_cast<uint16_t>(8 + c);
    block[c].n_src = 3, block[c].src = {static_cast<uint16_t>(8 + c), 2, 3};
  }
  block[4].n_dst = 1, block[4].n_src = 1, block[4].dst[0] = block[4].src[0] = 0;
  block[5].n_src = 1, block[5].src[0] = 0;
  block[6].kind = ws::ir::OpKind::Branch;
  auto sp = std::find_if(params.units.begin(), params.units.end(), [](const auto& u) { return u.name == "sp"; });
  std::vector<int16_t> units(7, static_cast<int16_t>(sp - params.units.begin()));
  for (auto _ : state)
    benchmark::DoNotOptimize(ws::timing::abstract::characterise(block.data(), units.data(), 7, params));
}
// A diagnostic beside BM_StreamQv100: a tenth of QV100 (8 SMs, 4 channels,
// the L2 scaled to 768 KB so that the 1 MB stream still misses to DRAM) runs
// the same per-SM work, and every sector takes the same path through the
// model, but the whole model's state fits the host's caches. Its rate is what
// the model's host instructions allow; the full GPU's lower rate is that plus
// the host's cache misses on ten times the state (docs/performance.md,
// "Fourth round of 2026-11-25").
void BM_StreamQv100Slice(benchmark::State& s) {
  simulate(s, stream_slice_spec(), "stream-slice",
           {"gpu.partitions=one", "gpu.sms=8", "l2.channels=4", "l2.size_kb=768"});
}

BENCHMARK(BM_StreamQv100)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(3);
BENCHMARK(BM_ComputeQv100)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(3);
BENCHMARK(BM_StreamQv100Slice)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(10);
BENCHMARK(BM_StreamQv100Split1)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(3);
BENCHMARK(BM_StreamQv100Split2)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(3);
BENCHMARK(BM_ComputeQv100Split2)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(3);
BENCHMARK(BM_StreamQv100Groups1)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(3);
BENCHMARK(BM_ComputeQv100Groups1)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(3);
BENCHMARK(BM_StreamQv100Groups2)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(3);
BENCHMARK(BM_ComputeQv100Groups2)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(3);
BENCHMARK(BM_StreamQv100Abstract)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(10);
BENCHMARK(BM_ComputeQv100Abstract)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(10);
BENCHMARK(BM_StreamQv100AbstractPerInst)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(10);
BENCHMARK(BM_ComputeQv100AbstractPerInst)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(10);
BENCHMARK(BM_TraceReadStream)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(10);
BENCHMARK(BM_TraceReadCompute)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(10);
BENCHMARK(BM_CharacteriseBlock)->Unit(benchmark::kMicrosecond);

}  // namespace

// As `warpsim run` does, so that the figures are what the CLI gives.
int main(int argc, char** argv) {
  ws::reexec_with_huge_pages(argv);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
