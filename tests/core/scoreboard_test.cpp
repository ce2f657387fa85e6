#include <gtest/gtest.h>

#include <map>
#include <random>

#include "timing/core/scoreboard.h"

namespace ws::timing {
namespace {

TEST(CoreScoreboard, WaitsForTheLatestListedWriteAndForgetsFinishedOnes) {
  Scoreboard sb;
  sb.set(4, 10);
  sb.set(6, kPending);
  uint16_t r4 = 4, both[] = {4, 6}, other = 9;
  EXPECT_EQ(sb.ready_at(&r4, 1, 5), 10u);
  EXPECT_EQ(sb.ready_at(both, 2, 5), kPending);
  EXPECT_EQ(sb.ready_at(&other, 1, 5), 0u);
  EXPECT_EQ(sb.ready_at(&r4, 1, 10), 0u);  // written by cycle 10
  sb.set(6, 12);                           // the memory reply came
  EXPECT_EQ(sb.all_done(11), 12u);
  EXPECT_EQ(sb.all_done(12), 0u);
  EXPECT_TRUE(sb.empty());
}

// Many writes in flight (past the inline entries) behave as a plain map.
TEST(CoreScoreboard, ManyWritesInFlightMatchAMap) {
  Scoreboard sb;
  std::map<uint16_t, Cycle> ref;
  std::mt19937_64 rng(3);
  for (Cycle now = 0; now < 4000; ++now) {
    for (int k = 0; k < 3; ++k) {
      auto reg = static_cast<uint16_t>(rng() % 24);
      Cycle ready = rng() % 8 == 0 ? kPending : now + 1 + rng() % 40;
      sb.set(reg, ready);
      ref[reg] = ready;
    }
    uint16_t ask[3] = {static_cast<uint16_t>(rng() % 24), static_cast<uint16_t>(rng() % 24),
                       static_cast<uint16_t>(rng() % 24)};
    Cycle want = 0;
    for (uint16_t r : ask)
      if (auto it = ref.find(r); it != ref.end() && it->second > now) want = std::max(want, it->second);
    ASSERT_EQ(sb.ready_at(ask, 3, now), want) << "cycle " << now;
    ASSERT_EQ(sb.ready_at(ask, 1, ask + 1, 2, now), want) << "two lists, cycle " << now;
    if (now % 97 == 0)
      for (auto& [reg, ready] : ref)
        if (ready == kPending) sb.set(reg, ready = now);  // replies arrive
  }
}

// A register on a dependency counter (ptx/scoreboards.h) is ready when every
// write in flight on that counter is: a consumer of the first of two loads
// sharing a counter waits for the second; other counters and registers
// without one do not hold it.
TEST(CoreScoreboard, ARegisterOnACounterWaitsForEveryWriteOnIt) {
  Scoreboard sb;
  sb.set(1, kPending, RegSource::L1tex, 3);
  sb.set(2, kPending, RegSource::L1tex, 3);
  sb.set(5, kPending, RegSource::L1tex, 4);
  sb.set(7, kPending, RegSource::L1tex);
  uint16_t r1 = 1, r5 = 5;
  sb.set(1, 20);  // the first load's reply
  EXPECT_EQ(sb.ready_at(&r1, 1, 10), kPending);  // the second is still out
  sb.set(2, 40);
  EXPECT_EQ(sb.ready_at(&r1, 1, 10), 40u);
  EXPECT_EQ(sb.ready_at(&r1, 1, 25), 40u);  // its own write is done, the counter is not
  sb.set(5, 30);
  EXPECT_EQ(sb.ready_at(&r5, 1, 10), 30u);  // counter 4 alone; register 7 has none
  EXPECT_EQ(sb.ready_at(&r1, 1, 40), 0u);
}

// The write a stalled instruction waited for (RegDep, read by the stall
// attribution) is the counter's last one even when the look that finds the
// instruction ready comes after the counter drained: the consumer of the
// first load waited until 40 for the second, not until 20 for its own.
TEST(CoreScoreboard, TheWaitOnACounterIsCreditedToItsLastWrite) {
  Scoreboard sb;
  sb.set(1, kPending, RegSource::L1tex, 3);
  sb.set(2, kPending, RegSource::L1tex, 3);
  uint16_t r1 = 1;
  RegDep dep;
  sb.set(1, 20);
  EXPECT_EQ(sb.ready_at(&r1, 1, nullptr, 0, 21, dep), kPending);  // looks while the second is out
  EXPECT_EQ(dep.ready, kPending);
  sb.set(2, 40);
  EXPECT_EQ(sb.ready_at(&r1, 1, nullptr, 0, 45, dep), 0u);  // the next look: all done
  EXPECT_EQ(dep.ready, 40u);
  EXPECT_EQ(dep.source, RegSource::L1tex);
  RegDep fresh;  // an instruction that never saw the counter in flight is not charged for it
  sb.set(1, kPending, RegSource::L1tex, 3);
  sb.set(1, 50);
  EXPECT_EQ(sb.ready_at(&r1, 1, nullptr, 0, 60, fresh), 0u);
  EXPECT_EQ(fresh.ready, 50u);
}

// core.lsu_operand_latency: an LD/ST-unit reader of a fixed-latency result
// waits its write's lsu_extra more; an ALU reader and an output dependence
// do not.
TEST(CoreScoreboard, AnLsuReaderWaitsTheExtraCycles) {
  Scoreboard sb;
  sb.set(3, 10, RegSource::Fixed, 0, 4);
  uint16_t r3 = 3;
  RegDep dep;
  EXPECT_EQ(sb.ready_at(&r3, 1, nullptr, 0, 5, dep), 10u);
  EXPECT_EQ(sb.ready_at(&r3, 1, nullptr, 0, 5, dep, RegReader{true}), 14u);
  EXPECT_EQ(dep.ready, 14u);  // the wait is attributed to the write
  EXPECT_EQ(sb.ready_at(nullptr, 0, &r3, 1, 5, dep, RegReader{true}), 10u);  // rewriting it: no extra
  // Done for an ALU reader at 10, still listed for an LD/ST-unit one.
  EXPECT_EQ(sb.ready_at(&r3, 1, nullptr, 0, 11, dep), 0u);
  EXPECT_EQ(sb.ready_at(&r3, 1, nullptr, 0, 12, dep, RegReader{true}), 14u);
  EXPECT_EQ(sb.ready_at(&r3, 1, nullptr, 0, 14, dep, RegReader{true}), 0u);
  EXPECT_TRUE(sb.empty());
  // A rewrite without the extra (a load's result) drops it.
  sb.set(3, 20, RegSource::Fixed, 0, 4);
  sb.set(3, 30, RegSource::L1tex);
  EXPECT_EQ(sb.ready_at(&r3, 1, nullptr, 0, 25, dep, RegReader{true}), 30u);
}

// core.cross_pipe_cycles: a reader in the other pipe waits the write's cross
// cycles more; one in the same pipe, or on no ALU pipe, does not.
TEST(CoreScoreboard, AReaderInTheOtherPipeWaitsTheCrossCycles) {
  Scoreboard sb;
  sb.set(4, 10, RegSource::Fixed, 0, 0, kFmaPipe, 1);
  uint16_t r4 = 4;
  RegDep dep;
  EXPECT_EQ(sb.ready_at(&r4, 1, nullptr, 0, 5, dep, RegReader{false, kFmaPipe}), 10u);
  EXPECT_EQ(sb.ready_at(&r4, 1, nullptr, 0, 5, dep, RegReader{false, kAluPipe}), 11u);
  EXPECT_EQ(sb.ready_at(&r4, 1, nullptr, 0, 5, dep, RegReader{false, kNoPipe}), 10u);
  EXPECT_EQ(sb.ready_at(&r4, 1, nullptr, 0, 10, dep, RegReader{false, kAluPipe}), 11u);  // still listed
  EXPECT_EQ(sb.ready_at(&r4, 1, nullptr, 0, 11, dep, RegReader{false, kAluPipe}), 0u);
  EXPECT_TRUE(sb.empty());
}

}  // namespace
}  // namespace ws::timing
