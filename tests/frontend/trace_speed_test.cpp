// Parse-rate measurement; disabled by default (run with
// --gtest_also_run_disabled_tests --gtest_filter='TraceSpeed*').
#include <chrono>
#include <cstdio>
#include <cstdlib>

#include "frontend/trace_test_util.h"
#include "frontend/trace/synth.h"

namespace ws::frontend {
namespace {

// $WARPSIM_SPEED_TRACE names an existing trace folder to time instead.
TEST(TraceSpeed, DISABLED_LinesPerSecond) {
  if (const char* t = std::getenv("WARPSIM_SPEED_TRACE")) {
    auto t0 = std::chrono::steady_clock::now();
    uint64_t n = test::count_workload(*open_trace_workload(t));
    double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::printf("parsed %llu instruction lines in %.3f s: %.2f M lines/s\n", (unsigned long long)n, secs, n / secs / 1e6);
    return;
  }
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
