// End-to-end runs on the real NVBit traces in ../shared/traces.
#include "e2e/sim_util.h"

namespace ws::test {
namespace {

TEST(E2eRealTraces, VectorAddIs344WarpInstructionsOnEveryPreset) {
  std::string dir = shared_trace("vectoradd-100-32-trace");
  if (dir.empty()) GTEST_SKIP() << "../shared/traces not found: skipping the real-trace runs";
  for (const char* gpu : {"qv100", "rtx2060", "rtx3070", "a100", "h100", "gtx480", "k20"}) {
    SimTotals t = simulate(dir, preset(gpu));
    EXPECT_EQ(t.warp_insts, 344u) << gpu;
    // 32 warps of a 1024-thread CTA; cycles include the 5000-cycle launch latency.
    EXPECT_GT(t.cycles, 5000u) << gpu;
    EXPECT_LT(t.cycles, 20000u) << gpu;
  }
}

TEST(E2eRealTraces, MatrixMulIs4416WarpInstructions) {
  std::string dir = shared_trace("matrixmul-32-32-trace");
  if (dir.empty()) GTEST_SKIP() << "../shared/traces not found: skipping the real-trace runs";
  SimTotals t = simulate(dir, preset("qv100"));
  EXPECT_EQ(t.warp_insts, 4416u);
  // Every warp executes full-mask instructions except predicated-off ones, so
  // thread instructions lie between 1/32 of and exactly 32 times the warp count.
  EXPECT_LE(t.thread_insts, 32u * 4416u);
  EXPECT_GT(t.thread_insts, 4416u);
}

TEST(E2eRealTraces, LaunchLatencyIsPartOfKernelCycles) {
  std::string dir = shared_trace("vectoradd-100-32-trace");
  if (dir.empty()) GTEST_SKIP() << "../shared/traces not found";
  SimTotals with = simulate(dir, preset("qv100"));
  SimTotals without = simulate(dir, preset("qv100", {"gpu.kernel_launch_latency=0"}));
  EXPECT_EQ(with.cycles - without.cycles, 5000u);
}

}  // namespace
}  // namespace ws::test
