// The instruction fetch unit alone, with a fake L2 that answers every request
// a fixed number of cycles after it is sent.
#include <gtest/gtest.h>

#include <deque>

#include "config/config.h"
#include "stats/stats.h"
#include "timing/core/fetch_unit.h"

namespace ws::timing {
namespace {

constexpr uint32_t kInstBytes = 16;  // Volta+ instructions
constexpr uint32_t kInstsPerLine = kLineBytes / kInstBytes;

// Stands in for the SM that ticks the unit (it only needs to be wakeable).
class Owner : public Clocked {
 public:
  void tick() override {}
  Tick next_event() const override { return kNever; }
};

struct FetchBench {
  config::Config cfg;
  stats::Registry reg;
  ClockDomain clk{"core", ClockPeriod{1000}};
  Owner owner;
  Port<MemRequest> to_l2{1 << 16};
  std::unique_ptr<FetchUnit> unit;
  uint32_t l2_latency = 100;
  std::deque<std::pair<Cycle, MemRequest>> l2_pending;
  uint64_t l2_reads = 0;    // requests (one per line)
  uint64_t l2_sectors = 0;  // the sectors they name
  Cycle now = 0;

  explicit FetchBench(const std::vector<std::string>& sets = {}) {
    for (const char* s : {"l1i.latency=10", "l1i.prefetch_lines=0", "l0i.size_kb=1", "l0i.ways=8"})
      cfg.set_assignment(s);
    for (const auto& s : sets) cfg.set_assignment(s);
    unit = std::make_unique<FetchUnit>(cfg, stats::Scope(reg, "sm.0"), clk, 0, 4);
    unit->connect(&to_l2, &owner);
    unit->begin_kernel(0x1000'0000);
  }
  // One cycle: the fake L2 takes what was sent and answers what is due.
  void step() {
    clk.set_now(now);
    unit->tick(now);
    while (to_l2.ready(clk.now_tick())) {
      MemRequest r = to_l2.front();
      to_l2.pop();
      EXPECT_EQ(r.client, MemClient::Inst);
      ++l2_reads;
      l2_sectors += r.sector_count();
      l2_pending.emplace_back(now + l2_latency, r);
    }
    while (!l2_pending.empty() && l2_pending.front().first <= now) {
      MemRequest r = l2_pending.front().second;
      r.is_reply = true;
      unit->from_l2().push(r, clk.tick_of(now + 1));
      l2_pending.pop_front();
    }
    ++now;
  }
  // Fetches `pc` for (subcore, slot) and advances until the instruction is
  // available; returns the cycles it waited.
  Cycle fetch_and_wait(uint32_t subcore, uint32_t slot, uint64_t pc) {
    Cycle start = now;
    Cycle ready = unit->fetch(subcore, slot, pc, now);
    while (ready == FetchUnit::kWaiting) {
      step();
      for (const auto& w : unit->woken())
        if (w.slot == slot) ready = w.ready;
      unit->woken().clear();
    }
    while (now < ready) step();
    return now - start;
  }
  // One warp runs `n` instructions of straight-line code from `pc0`, one per
  // cycle when its line is there; returns the cycles taken.
  Cycle run_straight(uint32_t subcore, uint64_t pc0, uint32_t n) {
    Cycle start = now;
    for (uint32_t i = 0; i < n; ++i) {
      fetch_and_wait(subcore, 0, pc0 + uint64_t{i} * kInstBytes);
      step();
    }
    return now - start;
  }
  uint64_t stat(const char* name) const { return reg.sum(name); }
};

TEST(CoreFetch, ColdLineComesFromTheL2AsFourSectors) {
  FetchBench b;
  Cycle waited = b.fetch_and_wait(0, 0, 0);
  // One request for the line's four sectors, answered 100 cycles later and
  // seen a cycle after; then the L1I-to-L0 latency.
  EXPECT_NEAR(double(waited), 100 + 1 + 10, 1);
  EXPECT_EQ(b.l2_reads, 1u);
  EXPECT_EQ(b.l2_sectors, 4u);
  EXPECT_EQ(b.stat("sm.0.l1i.misses"), 1u);
}

TEST(CoreFetch, CodeLargerThanTheL0MissesOncePerLineAndHitsTheL1IOnTheSecondPass) {
  FetchBench b;  // 1 KB L0 = 8 lines
  const uint32_t lines = 32, n = lines * kInstsPerLine;
  b.run_straight(0, 0, n);
  EXPECT_EQ(b.stat("sm.0.l0i.misses"), lines);
  EXPECT_EQ(b.stat("sm.0.l1i.misses"), lines);
  EXPECT_EQ(b.l2_reads, lines);
  EXPECT_EQ(b.l2_sectors, 4u * lines);
  // Second pass (a loop, or the next CTA on this sub-core): the code no
  // longer fits the L0, so every line misses it again, but the L1I has it all.
  Cycle second = b.run_straight(0, 0, n);
  EXPECT_EQ(b.stat("sm.0.l0i.misses"), 2u * lines);
  EXPECT_EQ(b.stat("sm.0.l1i.misses"), lines);
  EXPECT_EQ(b.stat("sm.0.l1i.hits"), lines);
  EXPECT_EQ(second, Cycle{n} + lines * 10);  // a cycle per instruction, 10 more per line
}

TEST(CoreFetch, CodeThatFitsTheL0HitsOnTheSecondPass) {
  FetchBench b;
  const uint32_t n = 4 * kInstsPerLine;  // 4 lines, the L0 holds 8
  b.run_straight(0, 0, n);
  Cycle second = b.run_straight(0, 0, n);
  EXPECT_EQ(b.stat("sm.0.l0i.misses"), 4u);
  EXPECT_EQ(second, Cycle{n});
}

TEST(CoreFetch, SubcoresShareTheL1IButNotTheL0) {
  FetchBench b;
  b.run_straight(0, 0, 2 * kInstsPerLine);
  uint64_t reads = b.l2_reads;
  Cycle other = b.run_straight(1, 0, 2 * kInstsPerLine);
  EXPECT_EQ(b.l2_reads, reads);  // no new L2 traffic
  EXPECT_EQ(b.stat("sm.0.l0i.misses"), 4u);
  EXPECT_EQ(other, Cycle{2} * kInstsPerLine + 2 * 10);
}

TEST(CoreFetch, WarpsMissingTheSameLineMergeIntoOneRead) {
  FetchBench b;
  EXPECT_EQ(b.unit->fetch(0, 0, 0, 0), FetchUnit::kWaiting);
  EXPECT_EQ(b.unit->fetch(0, 4, 16, 0), FetchUnit::kWaiting);
  EXPECT_EQ(b.unit->fetch(2, 6, 32, 0), FetchUnit::kWaiting);
  for (int c = 0; c < 150; ++c) b.step();
  EXPECT_EQ(b.l2_reads, 1u);
  EXPECT_EQ(b.stat("sm.0.l1i.merges"), 2u);
  EXPECT_EQ(b.unit->woken().size(), 3u);
}

TEST(CoreFetch, SequentialPrefetchHidesMostOfTheL2LatencyOfStraightLineCode) {
  const uint32_t lines = 32, n = lines * kInstsPerLine;
  FetchBench none, ahead({"l1i.prefetch_lines=4"});
  Cycle slow = none.run_straight(0, 0, n);
  Cycle fast = ahead.run_straight(0, 0, n);
  // Without prefetch every line costs an L2 round trip (~114 cycles).
  EXPECT_GT(double(slow), lines * 114.0);
  // With four lines requested ahead, one round trip covers about four lines.
  EXPECT_LT(double(fast), 0.6 * double(slow));
  EXPECT_EQ(ahead.stat("sm.0.l1i.prefetches") + 1, ahead.stat("sm.0.l1i.misses"));
  // Every line of the code plus the prefetches past its end.
  EXPECT_EQ(ahead.stat("sm.0.l1i.misses"), lines + 4u);
}

TEST(CoreFetch, PrefetchesDroppedForWantOfAnMshrAreAskedForAgain) {
  // Eight lines ahead but four reads in flight: each access to a new line
  // can only add the one line whose read just completed. Those left out
  // before must be asked for again then, or the warp meets them as demand
  // misses and waits a whole round trip for each.
  const uint32_t lines = 64, n = lines * kInstsPerLine;
  FetchBench b({"l1i.prefetch_lines=8", "l1i.mshrs=4"});
  Cycle took = b.run_straight(0, 0, n);
  uint64_t demand = b.stat("sm.0.l1i.misses") - b.stat("sm.0.l1i.prefetches");
  EXPECT_LE(demand, 2u);  // the first line (and at most one more)
  // Four lines per round trip of ~104 cycles: about 26 cycles per line.
  EXPECT_NEAR(double(took) / lines, 104.0 / 4, 6.0);
}

TEST(CoreFetch, PerfectFetchNeverWaits) {
  FetchBench b({"l1i.perfect=true"});
  EXPECT_EQ(b.run_straight(0, 0, 64), Cycle{64});
  EXPECT_EQ(b.l2_reads, 0u);
}

TEST(CoreFetch, WithoutAnL0TheL1IFeedsTheWarpsDirectly) {
  FetchBench b({"l0i.size_kb=0"});
  b.run_straight(0, 0, 2 * kInstsPerLine);
  Cycle second = b.run_straight(0, 0, 2 * kInstsPerLine);
  EXPECT_EQ(second, Cycle{2} * kInstsPerLine);  // L1I hits cost nothing more
  EXPECT_EQ(b.stat("sm.0.l0i.misses"), 0u);
}

TEST(CoreFetch, KernelsWithDifferentCodeBasesDoNotShareLines) {
  FetchBench b;
  b.run_straight(0, 0, kInstsPerLine);
  b.unit->begin_kernel(0x2000'0000);
  b.run_straight(0, 0, kInstsPerLine);
  EXPECT_EQ(b.stat("sm.0.l1i.misses"), 2u);
  b.unit->begin_kernel(0x1000'0000);  // the first kernel again: still cached
  b.run_straight(0, 0, kInstsPerLine);
  EXPECT_EQ(b.stat("sm.0.l1i.misses"), 2u);
}

// l1i.warm_start: the L1I holds the kernel's code at its start (a profiler's
// replay): the first pass reads nothing from the L2 and pays the L1I-to-L0
// latency per line; code larger than the L1I still misses on the next pass,
// and a new launch finds its code again.
TEST(CoreFetch, WarmStartFindsTheCodeInTheL1IOncePerLaunch) {
  FetchBench b({"l1i.warm_start=true", "l1i.size_kb=1", "l1i.ways=8"});  // 8 lines
  const uint32_t lines = 4, n = lines * kInstsPerLine;
  EXPECT_EQ(b.run_straight(0, 0, n), Cycle{n} + lines * 10);
  EXPECT_EQ(b.l2_reads, 0u);
  EXPECT_EQ(b.stat("sm.0.l1i.hits"), lines);

  const uint32_t big = 16 * kInstsPerLine;  // twice the L1I
  b.run_straight(1, 0x1000, big);
  EXPECT_EQ(b.l2_reads, 0u);  // every line there at the start
  b.run_straight(1, 0x1000, big);
  EXPECT_EQ(b.l2_reads, 16u);  // evicted by the first pass: from the L2
  b.unit->begin_kernel(0x1000'0000);  // the next launch starts warm again
  uint64_t before = b.l2_reads;
  b.run_straight(2, 0x1000, big);
  EXPECT_EQ(b.l2_reads, before);

  FetchBench cold({"l1i.size_kb=1", "l1i.ways=8"});
  cold.run_straight(0, 0, n);
  EXPECT_EQ(cold.l2_reads, lines);
}

}  // namespace
}  // namespace ws::timing
