// The register banks and collector units of one sub-core, on their own.
#include <gtest/gtest.h>

#include <initializer_list>

#include "timing/core/operand_collector.h"

namespace ws::timing {
namespace {

ir::WarpInst reads(std::initializer_list<uint16_t> srcs) {
  ir::WarpInst i;
  i.active_mask = 0xffffffff;
  for (uint16_t r : srcs) i.src[i.n_src++] = r;
  return i;
}

// Volta/Turing: two banks, each delivering two registers a cycle.
constexpr RegFileSpec kVolta{2, 2, 1, false};
// Maxwell/Pascal: four banks of one register a cycle.
constexpr RegFileSpec kPascal{4, 1, 1, false};

TEST(OperandCollector, ThreeSourcesInOneTwoReadBankTakeAnExtraCycle) {
  OperandCollector oc(kVolta);
  auto c = oc.collect(reads({1, 3, 5}), 0, 10);  // all odd: bank 1 reads 3 registers, 2 a cycle
  EXPECT_EQ(c.dispatch, 12u);
  EXPECT_EQ(c.conflicts, 1u);
}

TEST(OperandCollector, SourcesSpreadOverBanksReadInOneCycle) {
  OperandCollector oc(kVolta);
  auto c = oc.collect(reads({1, 2, 3}), 0, 10);  // bank 1 twice (its two reads), bank 0 once
  EXPECT_EQ(c.dispatch, 11u);
  EXPECT_EQ(c.conflicts, 0u);
  OperandCollector p(kPascal);
  c = p.collect(reads({4, 5, 6}), 0, 10);  // banks 0, 1, 2
  EXPECT_EQ(c.dispatch, 11u);
}

TEST(OperandCollector, OneReadBanksSerialiseEveryRegisterInTheSameBank) {
  OperandCollector oc(kPascal);
  auto c = oc.collect(reads({0, 4, 8}), 0, 10);  // all in bank 0: three cycles
  EXPECT_EQ(c.dispatch, 13u);
  EXPECT_EQ(c.conflicts, 2u);
}

TEST(OperandCollector, ARegisterNamedTwiceIsReadOnce) {
  OperandCollector oc(kPascal);
  EXPECT_EQ(oc.collect(reads({3, 3, 7}), 0, 10).dispatch, 12u);  // R3 and R7: two reads of bank 3
  EXPECT_EQ(oc.collect(reads({1, 1}), 1, 20).dispatch, 21u);
}

TEST(OperandCollector, ABankBusyWithAnEarlierInstructionDelaysTheNext) {
  OperandCollector oc(RegFileSpec{2, 2, 4, false});  // units enough that only banks matter
  EXPECT_EQ(oc.collect(reads({1, 3, 5}), 0, 10).dispatch, 12u);  // bank 1 booked for cycles 10 and 11
  auto c = oc.collect(reads({7}), 1, 11);                          // bank 1 again: waits for cycle 12
  EXPECT_EQ(c.dispatch, 13u);
  EXPECT_EQ(c.conflicts, 0u);  // not its own conflict
  EXPECT_EQ(oc.collect(reads({2}), 2, 12).dispatch, 13u);  // bank 0 was free throughout
}

TEST(OperandCollector, IssueWaitsWhileEveryCollectorUnitIsBusy) {
  OperandCollector one(kVolta);
  one.collect(reads({1, 3, 5}), 0, 10);  // holds the only unit until its operands are read at 12
  Cycle wake = 0;
  EXPECT_FALSE(one.has_unit(11, wake));
  EXPECT_EQ(wake, 12u);
  EXPECT_TRUE(one.has_unit(12, wake));

  OperandCollector two(RegFileSpec{2, 2, 2, false});
  two.collect(reads({1, 3, 5}), 0, 10);
  EXPECT_TRUE(two.has_unit(11, wake));  // the second unit takes the next instruction
  two.collect(reads({2}), 1, 11);        // bank 0: done at 12
  EXPECT_FALSE(two.has_unit(11, wake));
  EXPECT_EQ(wake, 12u);
}

TEST(OperandCollector, ReuseSkipsARegisterTheSameWarpReadInTheSamePositionJustBefore) {
  RegFileSpec ampere{2, 1, 1, true};
  OperandCollector oc(ampere);
  EXPECT_EQ(oc.collect(reads({2, 3}), 0, 10).dispatch, 11u);
  // R2 again in position 0: from the reuse cache, so only R4 is read (bank 0).
  EXPECT_EQ(oc.collect(reads({2, 4}), 0, 11).dispatch, 12u);
  // Another warp in between: the cache no longer holds warp 0's operands.
  oc.collect(reads({1}), 1, 12);
  EXPECT_EQ(oc.collect(reads({2, 4}), 0, 13).dispatch, 15u);
  // A position change is not a hit either.
  EXPECT_EQ(oc.collect(reads({4, 2}), 0, 15).dispatch, 17u);

  ampere.reuse = false;
  OperandCollector off(ampere);
  off.collect(reads({2, 3}), 0, 10);
  EXPECT_EQ(off.collect(reads({2, 4}), 0, 11).dispatch, 13u);
}

TEST(OperandCollector, ARegisterThePreviousInstructionWroteIsReadAgain) {
  OperandCollector oc(RegFileSpec{2, 1, 1, true});
  ir::WarpInst first = reads({2, 3});
  first.n_dst = 1;
  first.dst[0] = 2;  // R2 = f(R2, R3): the cached R2 is stale
  oc.collect(first, 0, 10);
  EXPECT_EQ(oc.collect(reads({2, 4}), 0, 11).dispatch, 13u);  // R2 and R4 both read from bank 0
}

TEST(OperandCollector, ANewWarpInTheSlotInheritsNoReuse) {
  OperandCollector oc(RegFileSpec{2, 1, 1, true});
  oc.collect(reads({2, 3}), 0, 10);
  oc.forget_warp(0);
  EXPECT_EQ(oc.collect(reads({2, 4}), 0, 11).dispatch, 13u);
}

TEST(OperandCollector, ZeroBanksIsOff) {
  EXPECT_FALSE(OperandCollector(RegFileSpec{0, 1, 1, false}).enabled());
  EXPECT_TRUE(OperandCollector(kVolta).enabled());
}

}  // namespace
}  // namespace ws::timing
