// End-to-end runs on the real NVBit traces in examples/traces.
#include "e2e/sim_util.h"

namespace ws::test {
namespace {

TEST(E2eRealTraces, VectorAddIs344WarpInstructionsOnEveryPreset) {
  std::string dir = example_trace("vectoradd-100-32-trace");
  for (const char* gpu : {"qv100", "rtx2060", "rtx3070", "a100", "h100", "gtx480", "k20"}) {
    SimTotals t = simulate(dir, preset(gpu));
    EXPECT_EQ(t.warp_insts, 344u) << gpu;
    // 32 warps of a 1024-thread CTA: a few thousand cycles; the elapsed time
    // adds the launch latency before the first (and only) kernel.
    EXPECT_GT(t.cycles, 300u) << gpu;
    EXPECT_LT(t.cycles, 15000u) << gpu;
    EXPECT_EQ(t.elapsed_cycles - t.cycles, uint64_t(preset(gpu).get<int64_t>("gpu.kernel_launch_latency"))) << gpu;
  }
}

TEST(E2eRealTraces, MatrixMulIs4416WarpInstructions) {
  std::string dir = example_trace("matrixmul-32-32-trace");
  SimTotals t = simulate(dir, preset("qv100"));
  EXPECT_EQ(t.warp_insts, 4416u);
  // Every warp executes full-mask instructions except predicated-off ones, so
  // thread instructions lie between 1/32 of and exactly 32 times the warp count.
  EXPECT_LE(t.thread_insts, 32u * 4416u);
  EXPECT_GT(t.thread_insts, 4416u);
}

// The launch latency comes before the kernel's cycles (which a profiler
// would report) and shows only in the elapsed time.
TEST(E2eRealTraces, LaunchLatencyIsOutsideKernelCycles) {
  std::string dir = example_trace("vectoradd-100-32-trace");
  SimTotals with = simulate(dir, preset("qv100", {"dram.tREFI=0"}));
  SimTotals without = simulate(dir, preset("qv100", {"gpu.kernel_launch_latency=0", "dram.tREFI=0"}));
  // Refresh off, so only the phase of the other clock domains against the
  // start differs: a cycle at most.
  EXPECT_NEAR(double(with.cycles), double(without.cycles), 1.0);
  EXPECT_NEAR(double(with.elapsed_cycles - without.elapsed_cycles), 5000.0, 1.0);
}

}  // namespace
}  // namespace ws::test
