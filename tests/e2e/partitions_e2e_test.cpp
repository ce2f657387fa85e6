// gpu.partitions = sm-memory splits the model into the SMs' partition (or
// gpu.sm_groups of them) and the memory system's, advanced window by window
// (docs/parallel.md): every
// counter must be the same for any gpu.threads, and the timing close to the
// single engine's (the partitioned model differs only in the crossbar's
// SM-side links: part of the latency on the wire, credit flow control).
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "e2e/sim_util.h"

namespace ws::test {
namespace {

uint64_t value(const Counters& c, const std::string& name) {
  for (auto& [k, v] : c)
    if (k == name) return v;
  ADD_FAILURE() << "no counter " << name;
  return 0;
}

uint64_t warp_insts(const Counters& c) {
  uint64_t n = 0;
  for (auto& [k, v] : c)
    if (k.starts_with("sm.") && k.ends_with(".warp_insts")) n += v;
  return n;
}

// Same counters with 1, 2 and 3 threads; cycles within `tolerance` of the
// single engine's. `groups`: gpu.sm_groups.
void expect_threads_change_nothing(const std::string& dir, const std::string& gpu, double tolerance,
                                   int groups = 1) {
  Counters one = run_counters(dir, preset(gpu));
  std::vector<Counters> runs;
  std::string layout = "gpu.sm_groups=" + std::to_string(groups);
  for (const char* threads : {"gpu.threads=1", "gpu.threads=2", "gpu.threads=3"})
    runs.push_back(run_counters(dir, preset(gpu, {"gpu.partitions=sm-memory", layout, threads})));
  for (size_t t = 1; t < runs.size(); ++t) {
    ASSERT_EQ(runs[t].size(), runs[0].size());
    size_t differing = 0;
    for (size_t i = 0; i < runs[0].size(); ++i)
      if (runs[t][i] != runs[0][i] && ++differing <= 5)
        ADD_FAILURE() << gpu << ", " << t + 1 << " threads: " << runs[t][i].first << " " << runs[t][i].second
                      << ", 1 thread " << runs[0][i].second;
    EXPECT_EQ(differing, 0u);
  }
  auto single = static_cast<double>(value(one, "kernel cycles"));
  auto split = static_cast<double>(value(runs[0], "kernel cycles"));
  EXPECT_GT(single, 0);
  EXPECT_NEAR(split / single, 1.0, tolerance) << gpu << ": " << split << " cycles partitioned, " << single << " not";
  EXPECT_EQ(warp_insts(one), warp_insts(runs[0]));  // (per SM they may differ: CTAs placed later)
}

TEST(E2ePartitions, StreamGivesTheSameCountersForAnyThreadCount) {
  frontend::SynthSpec s;
  s.kind = "stream";
  s.ctas = 160;
  s.threads_per_cta = 256;
  s.iterations = 4;
  s.footprint_bytes = uint64_t{160} * 256 * 4 * 4;
  std::string dir = synth(s, "partitions-stream");
  expect_threads_change_nothing(dir, "qv100", 0.02);
  expect_threads_change_nothing(dir, "h100", 0.02);
}

TEST(E2ePartitions, RealTraceGivesTheSameCountersForAnyThreadCount) {
  expect_threads_change_nothing(example_trace("matrixmul-32-32-trace"), "qv100", 0.02);
  expect_threads_change_nothing(example_trace("vectoradd-100-32-trace"), "a100", 0.02);
}

// SM groups: the dispatcher plans each window's CTAs before it. Several
// waves of short CTAs (each SM frees and refills its slots many times) and
// a real trace; group counts that do not divide the SMs evenly.
TEST(E2ePartitions, SmGroupsGiveTheSameCountersForAnyThreadCount) {
  frontend::SynthSpec s;
  s.kind = "stream";
  s.ctas = 2000;
  s.threads_per_cta = 128;
  s.iterations = 1;
  s.footprint_bytes = uint64_t{2000} * 128 * 4;
  std::string dir = synth(s, "partitions-waves");
  expect_threads_change_nothing(dir, "qv100", 0.03, 2);
  expect_threads_change_nothing(dir, "h100", 0.03, 3);
  expect_threads_change_nothing(example_trace("matrixmul-32-32-trace"), "qv100", 0.03, 4);
}

TEST(E2ePartitions, UnknownLayoutIsAConfigError) {
  EXPECT_THROW(timing::Gpu(preset("qv100", {"gpu.partitions=by-sm"})), ConfigError);
  // One engine: nothing to share, no groups.
  EXPECT_THROW(timing::Gpu(preset("qv100", {"gpu.partitions=one", "gpu.threads=2"})), ConfigError);
  EXPECT_THROW(timing::Gpu(preset("qv100", {"gpu.partitions=sm-memory", "icnt.input_latency=25"})), ConfigError);
  EXPECT_THROW(timing::Gpu(preset("qv100", {"gpu.partitions=one", "gpu.sm_groups=2"})), ConfigError);
  EXPECT_THROW(timing::Gpu(preset("qv100", {"gpu.partitions=sm-memory", "gpu.sm_groups=81"})), ConfigError);
}

}  // namespace
}  // namespace ws::test
