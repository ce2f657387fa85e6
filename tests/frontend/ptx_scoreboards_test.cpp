// Dependency counters of global loads (ptx/scoreboards.h), assigned as
// ptxas's sm_90 code for PolyBench's gemm assigns them.
#include "frontend/ptx/scoreboards.h"

#include <gtest/gtest.h>

#include <string>

#include "frontend/ptx_test_util.h"

namespace ws::ptx {
namespace {

uint8_t counter_of(const Function& f, const std::string& prefix) {
  for (const Instruction& in : f.body)
    if (in.text.rfind(prefix, 0) == 0) return in.scoreboard;
  ADD_FAILURE() << "no instruction " << prefix;
  return 0xff;
}

// Five load pairs in flight, each read by one FMA of a chain: the first
// three pairs get a counter each and the fourth too; with none left, the
// fifth pair shares the fourth's, so the fourth FMA waits for both pairs.
// After the first FMA frees counter 1, the next load takes it again.
TEST(PtxScoreboards, LoadsShareTheLastCounterWhenNoneIsFree) {
  Module m = test::parse_kernel_body(R"(
    ld.global.f32 %f1, [%rd1];
    ld.global.f32 %f2, [%rd2];
    ld.global.f32 %f3, [%rd1+4];
    ld.global.f32 %f4, [%rd2+4];
    ld.global.f32 %f5, [%rd1+8];
    ld.global.f32 %f6, [%rd2+8];
    ld.global.f32 %f7, [%rd1+12];
    ld.global.f32 %f8, [%rd2+12];
    ld.global.f32 %f9, [%rd1+16];
    ld.global.f32 %f10, [%rd2+16];
    fma.rn.f32 %f20, %f1, %f2, %f20;
    ld.global.f32 %f11, [%rd1+20];
    fma.rn.f32 %f20, %f3, %f4, %f20;
    fma.rn.f32 %f20, %f5, %f6, %f20;
    fma.rn.f32 %f20, %f7, %f8, %f20;
    fma.rn.f32 %f20, %f9, %f10, %f20;
    fma.rn.f32 %f20, %f11, %f11, %f20;
  )");
  Function& f = m.functions[0];
  EXPECT_EQ(assign_scoreboards_function(f, 4), 2u);  // the fifth pair shares
  EXPECT_EQ(counter_of(f, "ld.global.f32 %f1,"), 1);
  EXPECT_EQ(counter_of(f, "ld.global.f32 %f2,"), 1);  // same consumer: same counter
  EXPECT_EQ(counter_of(f, "ld.global.f32 %f3,"), 2);
  EXPECT_EQ(counter_of(f, "ld.global.f32 %f5,"), 3);
  EXPECT_EQ(counter_of(f, "ld.global.f32 %f7,"), 4);
  EXPECT_EQ(counter_of(f, "ld.global.f32 %f9,"), 4);
  EXPECT_EQ(counter_of(f, "ld.global.f32 %f10,"), 4);
  EXPECT_EQ(counter_of(f, "ld.global.f32 %f11,"), 1);  // freed by the first FMA
  for (const Instruction& in : f.body) {
    if (in.opcode == "fma") {
      EXPECT_EQ(in.scoreboard, 0) << in.text;
    }
  }
}

// Shared, parameter and constant loads return in order (ptxas rotates them
// through the counters, and waiting for one's own register is exact), and
// an atomic whose result nothing reads is a reduction: none of them counts.
TEST(PtxScoreboards, OnlyOutOfOrderResultsCount) {
  Module m = test::parse_kernel_body(R"(
    ld.shared.f32 %f1, [%r1];
    ld.param.u64 %rd3, [%rd6];
    ld.const.f32 %f2, [%rd4];
    atom.global.add.u32 %r5, [%rd1], 1;
    atom.global.add.u32 %r6, [%rd1], 1;
    ld.f32 %f3, [%rd2];
    ld.local.f32 %f4, [%rd5];
    add.f32 %f5, %f1, %f2;
    add.u32 %r7, %r6, 1;
    add.f32 %f6, %f3, %f4;
  )");
  Function& f = m.functions[0];
  assign_scoreboards_function(f, 4);
  EXPECT_EQ(counter_of(f, "ld.shared"), 0);
  EXPECT_EQ(counter_of(f, "ld.param"), 0);
  EXPECT_EQ(counter_of(f, "ld.const"), 0);
  EXPECT_EQ(counter_of(f, "atom.global.add.u32 %r5"), 0);
  EXPECT_NE(counter_of(f, "atom.global.add.u32 %r6"), 0);
  EXPECT_NE(counter_of(f, "ld.f32"), 0);    // generic: may be global
  EXPECT_NE(counter_of(f, "ld.local"), 0);
  // Counting is off with no counters.
  assign_scoreboards_function(f, 0);
  for (const Instruction& in : f.body) EXPECT_EQ(in.scoreboard, 0) << in.text;
}

// Each basic block starts with every counter free.
TEST(PtxScoreboards, EachBlockStartsWithFreeCounters) {
  Module m = test::parse_kernel_body(R"(
    ld.global.f32 %f1, [%rd1];
    ld.global.f32 %f2, [%rd1+4];
    @%p1 bra L;
    ld.global.f32 %f3, [%rd1+8];
  L:
    ld.global.f32 %f4, [%rd1+12];
    add.f32 %f5, %f1, %f2;
    add.f32 %f6, %f3, %f4;
  )");
  Function& f = m.functions[0];
  assign_scoreboards_function(f, 1);
  EXPECT_EQ(counter_of(f, "ld.global.f32 %f1,"), 1);
  EXPECT_EQ(counter_of(f, "ld.global.f32 %f3,"), 1);
  EXPECT_EQ(counter_of(f, "ld.global.f32 %f4,"), 1);
}

}  // namespace
}  // namespace ws::ptx
