// The PTX loop unroller: which loops it takes (small, counted, one block, no
// barrier or predicated instruction) and what it makes of them (a guard, four
// copies writing distinct registers, the original loop for the last passes).
#include "frontend/ptx/unroll.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

#include "frontend/ptx/parser.h"
#include "frontend/ptx_test_util.h"
#include "frontend/ptx/schedule.h"

namespace ws::ptx {
namespace {

Module parse_body(const std::string& body) { return test::parse_kernel_body(body); }

size_t count(const Function& f, const std::string& prefix) {
  size_t n = 0;
  for (const Instruction& in : f.body) n += in.text.rfind(prefix, 0) == 0;
  return n;
}

// nvcc's loop of a dot product, unrolled by 4 already: the counter runs from
// -n up to 0 in steps of 4.
const char* kDotLoop = R"(
    mov.f32 %f9, 0f00000000;
  L:
    ld.global.f32 %f1, [%rd1];
    fma.rn.f32 %f2, %f1, %f1, %f9;
    ld.global.f32 %f3, [%rd1+4];
    fma.rn.f32 %f4, %f3, %f3, %f2;
    ld.global.f32 %f5, [%rd1+8];
    fma.rn.f32 %f6, %f5, %f5, %f4;
    ld.global.f32 %f7, [%rd1+12];
    fma.rn.f32 %f9, %f7, %f7, %f6;
    add.s64 %rd1, %rd1, 16;
    add.s32 %r1, %r1, 4;
    setp.ne.s32 %p1, %r1, 0;
    @%p1 bra L;
    st.global.f32 [%rd2], %f9;
    ret;
)";

TEST(PtxUnroll, CountedLoopBecomesFourCopiesAndTheOriginal) {
  Module m = parse_body(kDotLoop);
  Function& f = m.functions[0];
  size_t before = f.body.size();
  EXPECT_EQ(unroll_function(f, UnrollLimits{}).loops, 1u);
  // 4 copies of the 4 loads, and the original loop's 4.
  EXPECT_EQ(count(f, "ld.global"), 20u);
  // The guard (add, two setp, and.pred, bra), 3 copies without their exit
  // test and bra (10 each), the last copy (11) and its bra, a bra past the
  // original loop, the original loop (12).
  EXPECT_EQ(f.body.size(), before + 5 + 3 * 10 + 11 + 1 + 1);
  // The label still names the loop's first instruction, now the guard.
  EXPECT_EQ(f.body[f.labels.at("L")].text.rfind("(unrolled loop's guard) add", 0), 0u);
  // Every back edge still goes to L.
  for (const Instruction& in : f.body)
    if (in.opcode == "bra" && in.guard >= 0 && !in.guard_negated) {
      EXPECT_EQ(in.ops[0].label, f.labels.at("L"));
    }
}

// ptxas steps each induction register once per pass: the first three
// copies' `add %rd1, 16` and `add %r1, 4` are folded (run, not issued); the
// last copy's and the original loop's are not. ptxas's back edge tests for a
// whole pass itself and its remainder follows, so the guard block (add, two
// setp, and.pred, bra) and the bra past the original loop are folded too;
// nothing else is.
TEST(PtxUnroll, OnlyTheLastCopyStepsTheInductionRegisters) {
  Module m = parse_body(kDotLoop);
  Function& f = m.functions[0];
  unroll_function(f, UnrollLimits{});
  size_t folded = 0, guard = 0;
  for (const Instruction& in : f.body) {
    if (!in.folded) continue;
    if (in.text.rfind("(unrolled loop's guard)", 0) == 0) {
      ++guard;
      continue;
    }
    ++folded;
    EXPECT_EQ(in.opcode, "add") << in.text;
    EXPECT_EQ(in.ops[2].kind, Operand::Kind::Imm) << in.text;
  }
  EXPECT_EQ(folded, 3u * 2);
  EXPECT_EQ(guard, 5u + 1u);
  size_t unfolded_steps = 0;
  for (const Instruction& in : f.body)
    if (in.opcode == "add" && !in.folded && in.ops.size() == 3 && in.ops[2].kind == Operand::Kind::Imm &&
        in.text.find("guard") == std::string::npos)
      ++unfolded_steps;
  EXPECT_EQ(unfolded_steps, 2u + 2u);  // the last copy's two, the original loop's two
}

TEST(PtxUnroll, CopiesWriteDistinctRegistersSoTheirLoadsCanRiseTogether) {
  Module m = parse_body(kDotLoop);
  Function& f = m.functions[0];
  unroll_function(f, UnrollLimits{});
  schedule_function(f);
  // In the unrolled block (after the guard's bra), the 16 loads write 16
  // registers, and the scheduler puts all of them (with the pointer
  // increments between them) before the first fma.
  std::set<int32_t> dsts;
  size_t loads_first = 0;
  for (size_t i = f.labels.at("L") + 5; f.body[i].opcode != "fma"; ++i)
    if (f.body[i].opcode == "ld") ++loads_first, dsts.insert(f.body[i].ops[0].reg);
  EXPECT_EQ(loads_first, 16u);
  EXPECT_EQ(dsts.size(), 16u);
}

TEST(PtxUnroll, LoopsItLeavesAlone) {
  auto unrolled = [](const std::string& body) {
    Module m = parse_body(body);
    return unroll_function(m.functions[0], UnrollLimits{}).loops;
  };
  // The shape it takes, counting up to an invariant bound.
  EXPECT_EQ(unrolled("L:\n ld.global.f32 %f1, [%rd1];\n add.f32 %f2, %f2, %f1;\n add.s64 %rd1, %rd1, 4;\n"
                     " add.s32 %r1, %r1, 1;\n setp.lt.s32 %p1, %r1, %r2;\n @%p1 bra L;\n ret;"), 1u);
  // A barrier in the body.
  EXPECT_EQ(unrolled("L:\n bar.sync 0;\n add.s32 %r1, %r1, 1;\n setp.lt.s32 %p1, %r1, %r2;\n @%p1 bra L;\n ret;"), 0u);
  // A predicated instruction in the body.
  EXPECT_EQ(unrolled("L:\n @%p2 add.f32 %f2, %f2, %f1;\n add.s32 %r1, %r1, 1;\n setp.lt.s32 %p1, %r1, %r2;\n"
                     " @%p1 bra L;\n ret;"), 0u);
  // A bound the body changes.
  EXPECT_EQ(unrolled("L:\n add.s32 %r2, %r2, 3;\n add.s32 %r1, %r1, 1;\n setp.lt.s32 %p1, %r1, %r2;\n"
                     " @%p1 bra L;\n ret;"), 0u);
  // A counter stepped twice, or by a register.
  EXPECT_EQ(unrolled("L:\n add.s32 %r1, %r1, 1;\n add.s32 %r1, %r1, 1;\n setp.lt.s32 %p1, %r1, %r2;\n"
                     " @%p1 bra L;\n ret;"), 0u);
  EXPECT_EQ(unrolled("L:\n add.s32 %r1, %r1, %r3;\n setp.lt.s32 %p1, %r1, %r2;\n @%p1 bra L;\n ret;"), 0u);
  // Counting up towards a lower bound (the test cannot be a count).
  EXPECT_EQ(unrolled("L:\n add.s32 %r1, %r1, 1;\n setp.gt.s32 %p1, %r1, %r2;\n @%p1 bra L;\n ret;"), 0u);
  // `#pragma unroll 1`: nvcc marks the loop with `.pragma "nounroll"`, and
  // ptxas keeps it rolled.
  EXPECT_EQ(unrolled("L:\n .pragma \"nounroll\";\n ld.global.f32 %f1, [%rd1];\n add.f32 %f2, %f2, %f1;\n"
                     " add.s64 %rd1, %rd1, 4;\n add.s32 %r1, %r1, 1;\n setp.lt.s32 %p1, %r1, %r2;\n @%p1 bra L;\n ret;"),
            0u);
  // A warp collective.
  EXPECT_EQ(unrolled("L:\n shfl.sync.bfly.b32 %r5, %r5, 1, 31, -1;\n add.s32 %r1, %r1, 1;\n"
                     " setp.lt.s32 %p1, %r1, %r2;\n @%p1 bra L;\n ret;"), 0u);
  // More than 32 instructions.
  std::string big = "L:\n";
  for (int i = 0; i < 31; ++i) big += " add.f32 %f2, %f2, %f1;\n";
  EXPECT_EQ(unrolled(big + " add.s32 %r1, %r1, 1;\n setp.lt.s32 %p1, %r1, %r2;\n @%p1 bra L;\n ret;"), 0u);
  // Factor 1 is off.
  Module m = parse_body(kDotLoop);
  EXPECT_EQ(unroll_function(m.functions[0], UnrollLimits{.factor = 1}).loops, 0u);
}

}  // namespace
}  // namespace ws::ptx
