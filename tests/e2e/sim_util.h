// Helpers for end-to-end tests: synthesise or locate a trace, simulate it
// in-process on a preset, and read back the totals.
#pragma once
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "config/config.h"
#include "frontend/trace/synth.h"
#include "frontend/trace/trace_reader.h"
#include "timing/gpu/gpu.h"
#include "timing/model.h"

namespace ws::test {

struct SimTotals {
  uint64_t cycles = 0, elapsed_cycles = 0, warp_insts = 0, thread_insts = 0;
  uint64_t dram_reads = 0, dram_writes = 0, l1_read_hits = 0, l1_reads = 0;
};

inline config::Config preset(const std::string& name, const std::vector<std::string>& sets = {}) {
  config::Config cfg;
  cfg.load_file(config::find_preset(name));
  for (const auto& s : sets) cfg.set_assignment(s);
  return cfg;
}

using Counters = std::vector<std::pair<std::string, uint64_t>>;

// Every command of a trace folder on the detailed model: each counter that
// changed, and "kernel cycles", the kernels' cycles summed.
inline Counters run_counters(const std::string& dir, const config::Config& cfg) {
  timing::Gpu gpu(cfg);
  auto work = frontend::open_trace_workload(dir);
  auto& reg = gpu.stats();
  stats::Snapshot start = reg.snapshot();
  uint64_t cycles = 0;
  while (auto cmd = work->next()) {
    if (auto* copy = std::get_if<ir::MemcpyHtoD>(&*cmd)) gpu.memcpy_htod(*copy);
    else cycles += gpu.run_kernel(*std::get<std::unique_ptr<ir::KernelSource>>(*cmd)).cycles;
  }
  Counters c = reg.diff(start, reg.snapshot());
  c.emplace_back("kernel cycles", cycles);
  return c;
}

// Through the timing model the configuration's gpu.model names.
inline SimTotals simulate(const std::string& trace_dir, const config::Config& cfg) {
  std::unique_ptr<timing::TimingModel> model = timing::make_timing_model(cfg);
  timing::TimingModel& gpu = *model;
  auto work = frontend::open_trace_workload(trace_dir);
  SimTotals t;
  auto& reg = gpu.stats();
  while (auto cmd = work->next()) {
    if (auto* copy = std::get_if<ir::MemcpyHtoD>(&*cmd)) {
      gpu.memcpy_htod(*copy);
      continue;
    }
    if (std::holds_alternative<ir::HostSync>(*cmd)) {
      gpu.host_sync();
      continue;
    }
    if (auto* c = std::get_if<ir::StreamCopy>(&*cmd)) {  // (exec's traces) run alone, kernels being run alone
      auto dir = c->to_device ? timing::CopyDirection::HostToDevice : timing::CopyDirection::DeviceToHost;
      if (gpu.queue_copy(timing::CopyWork{dir, c->device_addr, c->bytes, {}}, c->stream)) gpu.synchronize();
      else if (c->to_device) gpu.memcpy_htod(ir::MemcpyHtoD{c->device_addr, c->bytes});
      continue;
    }
    auto r = gpu.run_kernel(*std::get<std::unique_ptr<ir::KernelSource>>(*cmd));
    t.cycles += r.cycles;
    t.elapsed_cycles += r.elapsed_cycles();
    t.warp_insts += reg.sum("sm.*.warp_insts", r.before, r.after);
    t.thread_insts += reg.sum("sm.*.thread_insts", r.before, r.after);
  }
  t.dram_reads = reg.sum("dram.*.reads");
  t.dram_writes = reg.sum("dram.*.writes");
  t.l1_reads = reg.sum("sm.*.l1d.reads");
  t.l1_read_hits = reg.sum("sm.*.l1d.read_hits");
  return t;
}

// A fresh temporary folder holding a synthetic trace.
inline std::string synth(const frontend::SynthSpec& spec, const std::string& name) {
  auto dir = std::filesystem::temp_directory_path() / ("warpsim-e2e-" + name + "-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  frontend::write_synthetic(spec, dir.string());
  return dir.string();
}

// One of the real NVBit traces checked in under examples/traces (the same
// files as ../shared/traces), so that a fresh clone runs every test.
inline std::string example_trace(const std::string& name) {
  return (std::filesystem::path(WARPSIM_SOURCE_DIR) / "examples" / "traces" / name).string();
}

}  // namespace ws::test
