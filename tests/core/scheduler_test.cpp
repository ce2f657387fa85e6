#include <gtest/gtest.h>

#include <random>

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

// Answers readiness from a fixed mask and counts the warps it was asked about.
class MaskTest : public ReadyTest {
 public:
  explicit MaskTest(uint64_t ready) : ready_(ready) {}
  bool operator()(uint32_t slot) override {
    ++asked;
    return ready_ >> slot & 1;
  }
  int asked = 0;

 private:
  uint64_t ready_;
};

// pick_first must choose exactly what pick() over the full ready mask would,
// with the same remembered state afterwards, for any readiness pattern.
TEST(CoreScheduler, LazyPickMatchesFullPick) {
  for (const char* name : {"lrr", "gto"}) {
    auto full = make(name), lazy = make(name);
    std::mt19937_64 rng(7);
    uint64_t age = 0;
    for (uint32_t i = 0; i < 16; ++i) {
      full->on_warp_added(i, age);
      lazy->on_warp_added(i, age++);
    }
    for (int step = 0; step < 5000; ++step) {
      if (step % 37 == 0) {  // a slot gets a new, youngest warp
        uint32_t slot = static_cast<uint32_t>(rng() % 16);
        full->on_warp_added(slot, age);
        lazy->on_warp_added(slot, age++);
      }
      uint64_t candidates = rng() & 0xffff;
      uint64_t ready = candidates & rng() & rng();
      MaskTest test(ready);
      int got = lazy->pick_first(candidates, test);
      if (!ready) {
        EXPECT_EQ(got, -1);
        EXPECT_EQ(test.asked, std::popcount(candidates)) << name;  // every candidate was tested
        continue;
      }
      ASSERT_EQ(got, static_cast<int>(full->pick(ready))) << name << " step " << step;
    }
  }
}

TEST(CoreScheduler, LazyPickStopsAtTheFirstReadyWarp) {
  auto s = make("gto");
  for (uint32_t i = 0; i < 16; ++i) s->on_warp_added(i, i);
  MaskTest all(0xffff);
  EXPECT_EQ(s->pick_first(0xffff, all), 0);  // the oldest
  EXPECT_EQ(all.asked, 1);
  MaskTest later(0x8000);
  EXPECT_EQ(s->pick_first(0xffff, later), 15);  // greedy warp 0 stalled: the next oldest ready one
  EXPECT_EQ(later.asked, 16);
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
