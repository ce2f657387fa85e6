// Counter-name patterns ('*' = one whole segment) and the stats registry that
// sums over them.
#include <gtest/gtest.h>

#include <vector>

#include "config/param.h"
#include "stats/stats.h"

namespace ws {
namespace {

TEST(NameMatches, StarMatchesExactlyOneNonEmptySegment) {
  using config::name_matches;
  EXPECT_TRUE(name_matches("sm.*.warp_insts", "sm.3.warp_insts"));
  EXPECT_TRUE(name_matches("sm.*.l1d.reads", "sm.79.l1d.reads"));
  EXPECT_TRUE(name_matches("*", "dram"));
  EXPECT_TRUE(name_matches("a.*.*", "a.b.c"));
  EXPECT_TRUE(name_matches("same.name", "same.name"));
  EXPECT_FALSE(name_matches("sm.*.warp_insts", "sm.3.l1d.warp_insts"));
  EXPECT_FALSE(name_matches("sm.*.warp_insts", "sm.warp_insts"));
  EXPECT_FALSE(name_matches("sm.*.warp_insts", "sm..warp_insts"));
  EXPECT_FALSE(name_matches("sm.*.warp_insts", "sm.3.warp_insts.x"));
  EXPECT_FALSE(name_matches("sm.*", "sm.3."));
  EXPECT_FALSE(name_matches("sm.*.reads", "l2.3.reads"));
  EXPECT_FALSE(name_matches("sm.3*.reads", "sm.31.reads"));  // '*' inside a segment is literal
  EXPECT_TRUE(name_matches("sm.3*.reads", "sm.3*.reads"));
  EXPECT_FALSE(name_matches("*", ""));
  EXPECT_FALSE(name_matches("a.b", "a.c"));
}

TEST(StatsRegistry, CounterIsFoundAgainByName) {
  stats::Registry reg;
  stats::Counter& a = reg.counter("sm.0.warp_insts", "first");
  reg.counter("sm.1.warp_insts").inc(5);
  reg.counter("l2.0.reads").inc(7);
  EXPECT_EQ(&reg.counter("sm.0.warp_insts"), &a);
  a.inc(2);
  EXPECT_EQ(reg.size(), 3u);
  EXPECT_EQ(reg.desc(0), "first");
  EXPECT_EQ(reg.sum("sm.*.warp_insts"), 7u);
  EXPECT_EQ(reg.sum("*.*.reads"), 7u);
  stats::Snapshot before(reg.size(), 0), after = reg.snapshot();
  EXPECT_EQ(reg.sum("sm.*.warp_insts", before, after), 7u);
}

// Sums remember which counters match a pattern; ones registered later count too.
TEST(StatsRegistry, SumSeesCountersRegisteredAfterIt) {
  stats::Registry reg;
  reg.counter("sm.0.reads").inc(1);
  EXPECT_EQ(reg.sum("sm.*.reads"), 1u);
  reg.counter("sm.1.reads").inc(10);
  reg.counter("sm.1.writes").inc(100);
  EXPECT_EQ(reg.sum("sm.*.reads"), 11u);
  EXPECT_EQ(reg.sum("sm.*.writes"), 100u);
  reg.counter("sm.0.reads").inc(1);
  EXPECT_EQ(reg.sum("sm.*.reads"), 12u);
}

// The largest change between two snapshots, not the largest value: an SM busy
// before the window but idle in it does not count.
TEST(StatsRegistry, MaxIsTheLargestChangeOverTheWindow) {
  stats::Registry reg;
  reg.counter("sm.0.active_cycles").inc(100);
  reg.counter("sm.1.active_cycles").inc(10);
  reg.counter("l2.0.active_cycles").inc(1000);
  stats::Snapshot before = reg.snapshot();
  reg.counter("sm.0.active_cycles").inc(5);
  reg.counter("sm.1.active_cycles").inc(30);
  reg.counter("sm.2.active_cycles").inc(20);  // registered inside the window
  stats::Snapshot after = reg.snapshot();
  EXPECT_EQ(reg.max("sm.*.active_cycles", before, after), 30u);
  EXPECT_EQ(reg.max("sm.*.idle_cycles", before, after), 0u);
  EXPECT_EQ(reg.max("sm.*.active_cycles", stats::Snapshot(reg.size(), 0), after), 105u);
}

// Patterns are matched against the counters with their last segment; a '*'
// there, an exact name, one-segment names and a leaf first seen after the
// pattern was summed still give the full sum.
TEST(StatsRegistry, SumByLeafAgreesWithEveryPatternShape) {
  stats::Registry reg;
  EXPECT_EQ(reg.sum("sm.*.stores"), 0u);
  reg.counter("sm.0.loads").inc(1);
  reg.counter("sm.1.stores").inc(2);
  reg.counter("l2.0.stores").inc(4);
  reg.counter("stores").inc(8);
  reg.counter("sm.2.x.stores").inc(16);
  EXPECT_EQ(reg.sum("sm.*.stores"), 2u);
  EXPECT_EQ(reg.sum("*.*.stores"), 6u);
  EXPECT_EQ(reg.sum("sm.1.*"), 2u);
  EXPECT_EQ(reg.sum("sm.*.*"), 3u);
  EXPECT_EQ(reg.sum("stores"), 8u);
  EXPECT_EQ(reg.sum("*"), 8u);
  EXPECT_EQ(reg.sum("l2.0.stores"), 4u);
  EXPECT_EQ(reg.sum("sm.*.*.stores"), 16u);
  EXPECT_EQ(reg.sum("sm.*.nothing"), 0u);
}

}  // namespace
}  // namespace ws
