// Activity gating is a speed device, not a model change: a run that ticks
// only components with work (the default) must give the same statistics,
// counter for counter, as one that ticks every component on every edge of its
// clock (gpu.activity_gating = false). Exceptions (docs/architecture.md): an
// idle DRAM channel performs the refreshes it skipped, and the precharges
// before them, only when it is next ticked (back-dated, so timing is exact),
// which leaves dram.*.refreshes and dram.*.precharges short by a kernel's
// trailing idle stretch; and a gated channel attributes each span between
// its ticks to one stall reason (dram.*.refresh_stall_cycles and
// row_stall_cycles may split their sum differently by a few cycles).
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "e2e/sim_util.h"

namespace ws::test {
namespace {

// The counters but the lazy ones (above).
Counters gating_counters(const std::string& dir, const config::Config& cfg) {
  Counters all = run_counters(dir, cfg), kept;
  for (auto& c : all) {
    bool lazy = c.first.starts_with("dram.") &&
                (c.first.ends_with(".refreshes") || c.first.ends_with(".precharges") ||
                 c.first.ends_with(".refresh_stall_cycles") || c.first.ends_with(".row_stall_cycles"));
    if (!lazy) kept.push_back(c);
  }
  return kept;
}

void expect_gating_changes_nothing(const std::string& dir, const std::string& gpu,
                                   std::vector<std::string> sets = {}) {
  Counters gated = gating_counters(dir, preset(gpu, sets));
  sets.push_back("gpu.activity_gating=false");
  Counters ungated = gating_counters(dir, preset(gpu, sets));
  ASSERT_EQ(gated.size(), ungated.size());
  size_t differing = 0;
  for (size_t i = 0; i < gated.size(); ++i)
    if (gated[i] != ungated[i] && ++differing <= 5)
      ADD_FAILURE() << gpu << ": " << gated[i].first << " gated " << gated[i].second << " ungated "
                    << ungated[i].second;
  EXPECT_EQ(differing, 0u);
  uint64_t insts = 0;
  for (auto& c : gated)
    if (c.first.ends_with(".warp_insts")) insts += c.second;
  EXPECT_GT(insts, 0u);  // the run did something
}

frontend::SynthSpec spec(const std::string& kind, uint32_t ctas, uint32_t threads, uint32_t iterations) {
  frontend::SynthSpec s;
  s.kind = kind;
  s.ctas = ctas;
  s.threads_per_cta = threads;
  s.iterations = iterations;
  return s;
}

// DRAM-bound: L2 slices wait on full DRAM queues, fills on full L2 queues.
TEST(E2eGating, StreamingKernelGivesIdenticalCountersUngated) {
  frontend::SynthSpec s = spec("stream", 160, 256, 4);
  s.footprint_bytes = uint64_t{160} * 256 * 4 * 4;
  std::string dir = synth(s, "gating-stream");
  expect_gating_changes_nothing(dir, "qv100");
  expect_gating_changes_nothing(dir, "qv100", {"dram.scheduler=fcfs"});
  expect_gating_changes_nothing(dir, "qv100", {"gpu.partitions=sm-memory", "gpu.threads=2"});
  expect_gating_changes_nothing(dir, "qv100", {"gpu.partitions=sm-memory", "gpu.sm_groups=3", "gpu.threads=2"});
  expect_gating_changes_nothing(dir, "rtx2060");
  expect_gating_changes_nothing(dir, "gtx480");
  expect_gating_changes_nothing(dir, "gtx480", {"gpu.partitions=sm-memory", "gpu.sm_groups=2"});
}

TEST(E2eGating, PointerChaseAndComputeGiveIdenticalCountersUngated) {
  std::string chase = synth(spec("chase", 4, 32, 60), "gating-chase");
  expect_gating_changes_nothing(chase, "qv100");
  expect_gating_changes_nothing(chase, "h100");
  // Idle stretches: the windows must fall where they do ungated, and a
  // kernel end at the last edge with work, not at its window's end.
  expect_gating_changes_nothing(chase, "qv100", {"gpu.partitions=sm-memory"});
  expect_gating_changes_nothing(chase, "h100", {"gpu.partitions=sm-memory", "gpu.sm_groups=2", "gpu.threads=2"});
  std::string compute = synth(spec("compute", 80, 256, 8), "gating-compute");
  expect_gating_changes_nothing(compute, "qv100", {"core.scheduler=lrr"});
}

TEST(E2eGating, RealTraceGivesIdenticalCountersUngated) {
  std::string mm = example_trace("matrixmul-32-32-trace");
  expect_gating_changes_nothing(mm, "qv100");
  expect_gating_changes_nothing(mm, "a100");
}

}  // namespace
}  // namespace ws::test
