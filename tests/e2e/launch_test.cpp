// Kernel launch accounting: a launch queued behind a running kernel overlaps
// its launch work with it and pays only gpu.kernel_launch_overhead; a launch
// after a host synchronisation pays gpu.kernel_launch_latency. Neither is
// part of a kernel's `cycles`.
#include <fstream>
#include <sstream>

#include "e2e/sim_util.h"
#include "timing/model.h"

namespace ws::test {
namespace {

// A one-warp kernel launched `n` times, with a HostSync line before every
// launch but the first when `sync_between`. The synthesiser's memcpy lines
// stay in front.
std::string repeated_kernel(const std::string& name, int n, bool sync_between) {
  frontend::SynthSpec s;
  s.kind = "compute";
  s.ctas = 1;
  s.threads_per_cta = 32;
  s.iterations = 1;
  std::string dir = synth(s, name);
  std::string copies, line;
  std::ifstream in(dir + "/kernelslist.g");
  while (std::getline(in, line))
    if (line.rfind("MemcpyHtoD", 0) == 0) copies += line + "\n";
  in.close();
  std::ofstream list(dir + "/kernelslist.g");
  list << copies;
  for (int k = 0; k < n; ++k) list << (sync_between && k > 0 ? "HostSync\n" : "") << "kernel-1.traceg\n";
  return dir;
}

uint64_t param(const config::Config& cfg, const char* name) { return uint64_t(cfg.get<int64_t>(name)); }

TEST(E2eLaunch, BackToBackKernelsPayTheOverheadNotTheLatency) {
  auto cfg = preset("qv100");
  SimTotals t = simulate(repeated_kernel("launch-queued", 10, false), cfg);
  uint64_t latency = param(cfg, "gpu.kernel_launch_latency"), overhead = param(cfg, "gpu.kernel_launch_overhead");
  ASSERT_LT(overhead, latency);
  EXPECT_EQ(t.elapsed_cycles - t.cycles, latency + 9 * overhead);
  // The kernels themselves are short: beyond their fixed work, the timeline
  // is mostly launch gaps.
  EXPECT_LT(t.cycles - 10 * timing::kernel_fixed_cycles(cfg), 10 * overhead);
}

TEST(E2eLaunch, HostSyncBeforeALaunchMakesItPayTheFullLatency) {
  auto cfg = preset("qv100");
  SimTotals t = simulate(repeated_kernel("launch-synced", 10, true), cfg);
  EXPECT_EQ(t.elapsed_cycles - t.cycles, 10 * param(cfg, "gpu.kernel_launch_latency"));
}

// Code stays cached across launches of the same kernel: with code that
// starts in DRAM (l2.code_loaded=false) only the first launch reads it from
// there; later ones find it in the L2 (or the SM's L1I). (Two launches
// against ten, so that the first launch's last prefetches, which may still
// be in DRAM when a kernel ends, are counted in both.)
TEST(E2eLaunch, RelaunchedKernelFindsItsCodeCached) {
  auto cfg = preset("qv100", {"l2.code_loaded=false"});
  SimTotals two = simulate(repeated_kernel("launch-two", 2, false), cfg);
  SimTotals ten = simulate(repeated_kernel("launch-ten", 10, false), cfg);
  EXPECT_GT(two.dram_reads, 0u);  // cold code
  EXPECT_EQ(ten.dram_reads, two.dram_reads);
  EXPECT_LT(ten.cycles, 5 * two.cycles);  // later launches do not wait for DRAM
}

// By default the module load has written the code through the L2: even the
// first launch reads none of it from DRAM (the kernel touches no data), and
// it is faster than the first launch of code that starts in DRAM.
TEST(E2eLaunch, LoadedCodeIsInTheL2AtTheFirstLaunch) {
  SimTotals loaded = simulate(repeated_kernel("launch-one", 1, false), preset("qv100"));
  SimTotals cold = simulate(repeated_kernel("launch-one", 1, false), preset("qv100", {"l2.code_loaded=false"}));
  EXPECT_EQ(loaded.dram_reads, 0u);
  EXPECT_GT(cold.dram_reads, 0u);
  EXPECT_LT(loaded.cycles, cold.cycles);
}

}  // namespace
}  // namespace ws::test

namespace ws::test {
namespace {

// gpu.kernel_fixed_cycles is work inside each kernel before its first CTA:
// every kernel's cycles grow by exactly that much (the CTAs start later and
// run as before: a perfect instruction cache and clocks of one frequency keep
// everything else equal), and the launch gaps do not change.
TEST(E2eLaunch, FixedKernelCyclesAreInsideEachKernel) {
  std::string dir = repeated_kernel("launch-fixed", 4, true);
  std::vector<std::string> sets = {"l1i.perfect=true", "clock.dram_mhz=1132"};
  SimTotals base = simulate(dir, preset("qv100", sets));
  sets.push_back("gpu.kernel_fixed_cycles=3000");
  SimTotals fixed = simulate(dir, preset("qv100", sets));
  EXPECT_EQ(fixed.cycles, base.cycles + 4 * 3000);
  EXPECT_EQ(fixed.elapsed_cycles - fixed.cycles, base.elapsed_cycles - base.cycles);  // same gaps
  EXPECT_EQ(fixed.warp_insts, base.warp_insts);
}

// gpu.kernel_fixed_ns is the same work given as a time: turned into cycles at
// the core clock (rounded up), on top of gpu.kernel_fixed_cycles.
TEST(E2eLaunch, FixedKernelTimeIsTurnedIntoCyclesAtTheCoreClock) {
  std::string dir = repeated_kernel("launch-fixed-ns", 4, true);
  std::vector<std::string> sets = {"l1i.perfect=true", "gpu.kernel_fixed_cycles=0", "gpu.kernel_fixed_ns=0"};
  SimTotals base = simulate(dir, preset("qv100", sets));
  sets.back() = "gpu.kernel_fixed_ns=1000.5";  // 1,132.57 cycles at qv100's 1,132 MHz
  EXPECT_EQ(timing::kernel_fixed_cycles(preset("qv100", sets)), 1133u);
  SimTotals fixed = simulate(dir, preset("qv100", sets));
  EXPECT_EQ(fixed.cycles, base.cycles + 4 * 1133);
  EXPECT_EQ(fixed.warp_insts, base.warp_insts);
  sets.push_back("gpu.kernel_fixed_cycles=7");
  sets.push_back("clock.core_mhz=2000");
  EXPECT_EQ(timing::kernel_fixed_cycles(preset("qv100", sets)), 2001u + 7u);
  // The presets: qv100 assumes the H100's measured empty-kernel time; h100
  // keeps its measured cycles alone.
  EXPECT_EQ(timing::kernel_fixed_cycles(preset("qv100")), 2315u);
  EXPECT_EQ(timing::kernel_fixed_cycles(preset("h100")), 3725u);
}

}  // namespace
}  // namespace ws::test
