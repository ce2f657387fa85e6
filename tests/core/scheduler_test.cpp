#include <gtest/gtest.h>

#include "timing/core/warp_scheduler.h"

namespace ws::timing {
namespace {

std::unique_ptr<WarpScheduler> make(const std::string& name) {
  return SchedulerRegistry::instance().create("core.scheduler", name, SchedulerArgs{16});
}

TEST(CoreScheduler, LrrRotatesOverReadyWarps) {
  auto s = make("lrr");
  for (uint32_t i = 0; i < 4; ++i) s->on_warp_added(i, i);
  uint64_t all = 0b1111;
  EXPECT_EQ(s->pick(all), 1u);  // starts after slot 0
  EXPECT_EQ(s->pick(all), 2u);
  EXPECT_EQ(s->pick(all), 3u);
  EXPECT_EQ(s->pick(all), 0u);  // wraps around
  EXPECT_EQ(s->pick(0b1001), 3u);
}

TEST(CoreScheduler, GtoStaysGreedyThenFallsBackToOldest) {
  auto s = make("gto");
  s->on_warp_added(0, 30);
  s->on_warp_added(1, 10);  // oldest
  s->on_warp_added(2, 20);
  EXPECT_EQ(s->pick(0b111), 1u);  // oldest first
  EXPECT_EQ(s->pick(0b111), 1u);  // greedy while it stays ready
  EXPECT_EQ(s->pick(0b101), 2u);  // warp 1 stalled: next oldest (age 20)
  EXPECT_EQ(s->pick(0b111), 2u);  // greedy on the new one
}

TEST(CoreScheduler, UnknownNameListsChoices) {
  try {
    make("two-level-magic");
    FAIL();
  } catch (const ConfigError& e) {
    std::string m = e.what();
    EXPECT_NE(m.find("core.scheduler"), std::string::npos);
    EXPECT_NE(m.find("gto"), std::string::npos);
    EXPECT_NE(m.find("lrr"), std::string::npos);
  }
}

}  // namespace
}  // namespace ws::timing
