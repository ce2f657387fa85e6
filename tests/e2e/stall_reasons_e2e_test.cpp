// Stall attribution through the whole detailed model: a real trace on every
// SM, its per-kernel counts against the SMs' own occupancy integral, run to run.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "e2e/sim_util.h"

namespace ws::test {
namespace {

// Each kernel's stall counts of one run, in order; with `warp_cycles`, its
// occupancy integral, and checks that each instruction was selected once.
std::vector<timing::StallCounts> kernel_stalls(const std::string& trace, const config::Config& cfg,
                                               std::vector<uint64_t>* warp_cycles = nullptr) {
  std::unique_ptr<timing::TimingModel> gpu = timing::make_timing_model(cfg);
  auto work = frontend::open_trace_workload(trace);
  std::vector<timing::StallCounts> out;
  while (auto cmd = work->next()) {
    auto* kernel = std::get_if<std::unique_ptr<ir::KernelSource>>(&*cmd);
    if (!kernel) continue;  // (copies do not matter here)
    timing::KernelResult r = gpu->run_kernel(**kernel);
    out.push_back(r.own.stalls);
    if (!warp_cycles) continue;
    warp_cycles->push_back(gpu->stats().sum("sm.*.warp_cycles", r.before, r.after));
    EXPECT_EQ(r.own.stalls[static_cast<size_t>(timing::Stall::Selected)], r.own.warp_insts);
  }
  return out;
}

uint64_t total(const timing::StallCounts& n) {
  uint64_t t = 0;
  for (uint64_t c : n) t += c;
  return t;
}

TEST(E2eStallReasons, EveryResidentWarpCycleIsAttributedOnceAndRunsAgree) {
  std::string trace = example_trace("matrixmul-32-32-trace");
  config::Config cfg = preset("qv100");
  std::vector<uint64_t> warp_cycles;
  std::vector<timing::StallCounts> a = kernel_stalls(trace, cfg, &warp_cycles), b = kernel_stalls(trace, cfg);
  ASSERT_FALSE(a.empty());
  EXPECT_EQ(a, b);
  for (size_t k = 0; k < a.size(); ++k) {
    EXPECT_GT(total(a[k]), 0u);
    EXPECT_EQ(total(a[k]), warp_cycles[k]) << "kernel " << k;  // the kernel ran alone
  }
}

TEST(E2eStallReasons, OffLeavesTimingAsItIs) {
  std::string trace = example_trace("matrixmul-32-32-trace");
  SimTotals on = simulate(trace, preset("qv100"));
  SimTotals off = simulate(trace, preset("qv100", {"stats.stall_reasons=false"}));
  EXPECT_EQ(on.cycles, off.cycles);
  EXPECT_EQ(on.dram_reads, off.dram_reads);
  EXPECT_EQ(kernel_stalls(trace, preset("qv100", {"stats.stall_reasons=false"})).at(0), timing::StallCounts{});
}

}  // namespace
}  // namespace ws::test
