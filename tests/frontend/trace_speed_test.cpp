// Parse-rate measurement; disabled by default (run with
// --gtest_also_run_disabled_tests --gtest_filter='TraceSpeed*').
#include <chrono>
#include <cstdio>

#include "frontend/trace_test_util.h"
#include "frontend/trace/synth.h"

namespace ws::frontend {
namespace {

TEST(TraceSpeed, DISABLED_LinesPerSecond) {
  SynthSpec s{.kind = "stream", .ctas = 64, .threads_per_cta = 256, .iterations = 1000};
  auto dir = test::temp_dir("speed");
  write_synthetic(s, dir.string());
  auto t0 = std::chrono::steady_clock::now();
  uint64_t n = test::count_workload(*open_trace_workload(dir.string()));
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_EQ(n, synth_instruction_count(s));
  std::filesystem::remove_all(dir);
  std::printf("parsed %llu instruction lines in %.3f s: %.2f M lines/s\n", (unsigned long long)n, secs, n / secs / 1e6);
}

}  // namespace
}  // namespace ws::frontend
