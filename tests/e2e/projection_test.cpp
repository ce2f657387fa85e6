// Intra-kernel projection (sampling.project_kernels): a kernel whose IPC has
// settled stops dispatching after a wave and projects the rest.
#include <gtest/gtest.h>

#include "e2e/sim_util.h"

namespace ws::test {
namespace {

// The only kernel of a one-kernel trace, simulated on its own GPU.
timing::KernelResult run_one(const std::string& dir, const config::Config& cfg) {
  timing::Gpu gpu(cfg);
  auto work = frontend::open_trace_workload(dir);
  timing::KernelResult r;
  while (auto cmd = work->next()) {
    if (auto* copy = std::get_if<ir::MemcpyHtoD>(&*cmd)) gpu.memcpy_htod(*copy);
    if (auto* k = std::get_if<std::unique_ptr<ir::KernelSource>>(&*cmd)) r = gpu.run_kernel(**k);
  }
  return r;
}

// 8 SMs, 8 CTAs of 256 threads each at a time: 64 per wave, 512 CTAs = 8 waves
// of identical FFMA work, so the IPC is steady after the first wave.
const std::vector<std::string> kSmall = {"gpu.sms=8", "gpu.kernel_launch_latency=0", "l1i.perfect=true"};

std::string compute_trace() {
  frontend::SynthSpec s;
  s.kind = "compute";
  s.ctas = 512;
  s.threads_per_cta = 256;
  s.iterations = 16;
  return synth(s, "projection-compute");
}

TEST(KernelProjection, SteadyKernelStopsEarlyAndProjectsWithinTwoPercent) {
  std::string dir = compute_trace();
  timing::KernelResult full = run_one(dir, preset("qv100", kSmall));
  std::vector<std::string> sets = kSmall;
  sets.push_back("sampling.project_kernels=true");
  timing::KernelResult p = run_one(dir, preset("qv100", sets));
  EXPECT_FALSE(full.projection.projected);
  ASSERT_TRUE(p.projection.projected);
  EXPECT_EQ(p.projection.ctas_total, 512u);
  EXPECT_LT(p.projection.ctas_simulated, 512u / 2);  // stopped well before the end
  EXPECT_GE(p.projection.ctas_simulated, 64u);       // but after a full wave
  EXPECT_LT(p.cycles, full.cycles);                   // only the simulated CTAs' time
  EXPECT_NEAR(double(p.projection.cycles), double(full.cycles), 0.02 * double(full.cycles));
  EXPECT_DOUBLE_EQ(p.projection.scale, 512.0 / double(p.projection.ctas_simulated));
}

// A kernel that fits in one wave never stops: no CTA is left to project.
TEST(KernelProjection, OneWaveKernelRunsWhole) {
  frontend::SynthSpec s;
  s.kind = "compute";
  s.ctas = 32;
  s.threads_per_cta = 256;
  s.iterations = 64;
  std::vector<std::string> sets = kSmall;
  sets.push_back("sampling.project_kernels=true");
  timing::KernelResult p = run_one(synth(s, "projection-onewave"), preset("qv100", sets));
  EXPECT_FALSE(p.projection.projected);
}

// With a zero tolerance the IPC of a real kernel is never exactly constant:
// nothing stops, and the kernel's figures are those of the full run.
TEST(KernelProjection, UnsettledIpcDoesNotStop) {
  std::string dir = compute_trace();
  std::vector<std::string> sets = kSmall;
  timing::KernelResult full = run_one(dir, preset("qv100", sets));
  sets.insert(sets.end(), {"sampling.project_kernels=true", "sampling.ipc_stdev=0"});
  timing::KernelResult p = run_one(dir, preset("qv100", sets));
  EXPECT_FALSE(p.projection.projected);
  EXPECT_EQ(p.cycles, full.cycles);
}

}  // namespace
}  // namespace ws::test
