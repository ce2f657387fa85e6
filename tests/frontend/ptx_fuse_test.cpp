// Instructions ptxas merges into their neighbours (frontend/ptx/fuse.h):
// which ones are marked folded, and which sources their readers take over.
#include "frontend/ptx/fuse.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "frontend/ptx/parser.h"
#include "frontend/ptx/uniform.h"
#include "frontend/ptx_test_util.h"

namespace ws::ptx {
namespace {

Module fused(const std::string& body, const FuseOptions& o = {}) {
  Module m = parse_module(".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k(.param .u64 a)\n{\n"
                          ".reg .b16 %rs<8>;\n.reg .b32 %r<32>;\n.reg .b64 %rd<32>;\n.reg .pred %p<8>;\n.reg .f32 %f<32>;\n" +
                              body + "\n}\n",
                          "t.ptx");
  fuse_module(m, o);
  return m;
}

bool folded(const Function& f, const std::string& prefix) { return test::inst(f, prefix).folded; }

bool takes(const Function& f, const std::string& prefix, const std::string& reg) {
  const Instruction& in = test::inst(f, prefix);
  return std::find(in.fused_reads.begin(), in.fused_reads.end(), test::reg(f, reg)) != in.fused_reads.end();
}

// IMAD.WIDE: the scaled index and the add are one instruction, which reads
// the index (a load's result here) itself; cvta.to.global is no instruction.
TEST(PtxFuse, WideMultiplyIntoItsAddsAndCvtaAway) {
  Module m = fused(R"(
    ld.param.u64 %rd1, [a];
    cvta.to.global.u64 %rd2, %rd1;
    ld.global.u32 %r1, [%rd2];
    mul.wide.s32 %rd3, %r1, 4;
    add.s64 %rd4, %rd2, %rd3;
    add.s64 %rd5, %rd1, %rd3;
    ld.global.u32 %r2, [%rd4];
    st.global.u32 [%rd5], %r2;
    ret;)");
  const Function& f = m.functions.front();
  EXPECT_TRUE(folded(f, "cvta"));
  EXPECT_TRUE(folded(f, "mul.wide"));
  EXPECT_FALSE(folded(f, "add.s64 %rd4"));
  EXPECT_TRUE(takes(f, "add.s64 %rd4", "%r1"));   // the multiply's source
  EXPECT_TRUE(takes(f, "add.s64 %rd4", "%rd1"));  // through the folded cvta
  EXPECT_TRUE(takes(f, "add.s64 %rd5", "%r1"));
  EXPECT_TRUE(takes(f, "ld.global.u32 %r1", "%rd1"));
}

TEST(PtxFuse, AWideMultiplyReadByAnythingButA64BitAddStays) {
  Module m = fused(R"(
    ld.param.u64 %rd1, [a];
    mov.u32 %r1, %tid.x;
    mul.wide.s32 %rd3, %r1, 4;
    add.s64 %rd4, %rd1, %rd3;
    st.global.u64 [%rd4], %rd3;
    ret;)");
  EXPECT_FALSE(folded(m.functions.front(), "mul.wide"));
}

// ISETP takes one combining predicate; not.pred becomes a negated operand.
TEST(PtxFuse, PredicateLogicIntoTheComparison) {
  Module m = fused(R"(
    mov.u32 %r1, %tid.x;
    setp.gt.s32 %p1, %r1, 3;
    setp.lt.s32 %p2, %r1, 9;
    and.pred %p3, %p1, %p2;
    setp.ne.s32 %p4, %r1, 5;
    and.pred %p5, %p3, %p4;
    not.pred %p6, %p5;
    @%p6 bra DONE;
    setp.eq.s32 %p7, %r1, 7;
    or.pred %p1, %p7, %p5;
  DONE:
    ret;)");
  const Function& f = m.functions.front();
  EXPECT_TRUE(folded(f, "and.pred %p3"));  // into one of the two setps
  EXPECT_TRUE(folded(f, "and.pred %p5"));  // into setp %p4
  EXPECT_TRUE(folded(f, "not.pred"));
  EXPECT_FALSE(folded(f, "or.pred"));       // writes %p1, which has two definitions
  EXPECT_FALSE(folded(f, "setp.gt"));       // comparisons always issue
}

TEST(PtxFuse, AComparisonReadTwiceTakesNoCombination) {
  Module m = fused(R"(
    mov.u32 %r1, %tid.x;
    setp.gt.s32 %p1, %r1, 3;
    setp.lt.s32 %p2, %r1, 9;
    and.pred %p3, %p1, %p2;
    @%p1 add.s32 %r2, %r1, 1;
    @%p2 add.s32 %r3, %r1, 1;
    ret;)");
  EXPECT_FALSE(folded(m.functions.front(), "and.pred"));
}

// An immediate moved into a register folds into readers that have no
// immediate of their own; LEA merges a shift into a 32-bit add.
TEST(PtxFuse, ImmediatesAndShiftsFoldWhereTheReadersCanTakeThem) {
  Module m = fused(R"(
    mov.u32 %r1, %tid.x;
    mov.u32 %r2, 15;
    sub.s32 %r3, %r2, %r1;
    mov.u32 %r4, 16;
    add.s32 %r5, %r4, 3;
    shl.b32 %r6, %r1, 2;
    add.s32 %r7, %r5, %r6;
    shl.b32 %r8, %r1, 3;
    st.global.u32 [%rd1], %r8;
    @%p1 mov.u32 %r9, 1;
    add.s32 %r10, %r9, %r1;
    ret;)");
  const Function& f = m.functions.front();
  EXPECT_TRUE(folded(f, "mov.u32 %r2"));
  EXPECT_FALSE(folded(f, "mov.u32 %r4"));  // its reader adds an immediate already
  EXPECT_TRUE(folded(f, "shl.b32 %r6"));
  EXPECT_TRUE(takes(f, "add.s32 %r7", "%r1"));
  EXPECT_FALSE(folded(f, "shl.b32 %r8"));  // stored, not added
  EXPECT_FALSE(folded(f, "@%p1 mov"));     // guarded: only some threads write it
}

// nw's unrolled waves recompute `add.s32 %r117, %r139, -140` before each
// shared access; the SASS reads [R+imm] instead.
TEST(PtxFuse, AnImmediateAddReadOnlyAsAnAddressIsItsOffset) {
  Module m = fused(R"(
    mov.u32 %r1, %tid.x;
    shl.b32 %r2, %r1, 2;
    add.s32 %r3, %r2, -140;
    ld.shared.u32 %r4, [%r3+4];
    add.s32 %r5, %r2, -128;
    st.shared.u32 [%r5+64], %r4;
    add.s32 %r6, %r2, 8;
    st.shared.u32 [%r6], %r6;
    ret;)");
  const Function& f = m.functions.front();
  EXPECT_TRUE(folded(f, "add.s32 %r3"));
  EXPECT_TRUE(takes(f, "ld.shared", "%r2"));
  EXPECT_TRUE(folded(f, "add.s32 %r5"));
  EXPECT_FALSE(folded(f, "add.s32 %r6"));  // also stored as a value
  // The shift's readers are adds, but two of them became offsets: it is
  // an instruction of its own (IMAD.SHL), not a LEA.
  EXPECT_FALSE(folded(f, "shl.b32"));
}

// dot_partial's tree levels: `if (tid < k) s[tid] += s[tid + k]`, four
// instructions under a forward branch, predicated in the SASS.
// IMAD: a 32-bit product read only by 32-bit adds and subtracts is one
// instruction with each (the H100 SASS of image_pipeline's sobel:
// `IMAD R5, R10, -0x2, R5` for `mul.wide.u16` then `sub.s32`). An add of two
// products takes one of them; a product read by anything else stays.
TEST(PtxFuse, AProductIntoTheAddsThatReadIt) {
  Module m = fused(R"(
    mov.u32 %r1, %tid.x;
    mov.u32 %r2, %ctaid.x;
    mul.lo.s32 %r3, %r1, %r2;
    add.s32 %r4, %r3, 7;
    sub.s32 %r5, %r2, %r3;
    mul.lo.s32 %r6, %r1, 3;
    mul.lo.s32 %r7, %r2, 5;
    add.s32 %r8, %r6, %r7;
    mul.lo.s32 %r9, %r1, %r1;
    shl.b32 %r10, %r9, 2;
    cvt.u16.u32 %rs1, %r1;
    mul.wide.u16 %r11, %rs1, 2;
    sub.s32 %r12, %r8, %r11;
    add.s32 %r13, %r4, %r5;
    add.s32 %r14, %r13, %r12;
    add.s32 %r15, %r14, %r10;
    st.global.u32 [%r15], %r15;
    ret;)");
  const Function& f = m.functions.front();
  EXPECT_TRUE(folded(f, "mul.lo.s32 %r3"));  // into an add and a subtract
  EXPECT_TRUE(takes(f, "sub.s32 %r5", "%r1"));
  EXPECT_NE(folded(f, "mul.lo.s32 %r6"), folded(f, "mul.lo.s32 %r7"));  // one IMAD, one IMUL
  EXPECT_FALSE(folded(f, "mul.lo.s32 %r9"));  // read by a shift
  EXPECT_TRUE(folded(f, "mul.wide.u16"));     // a 32-bit result: IMAD
  EXPECT_TRUE(takes(f, "sub.s32 %r12", "%rs1"));
  Module xmad = fused(R"(
    mov.u32 %r1, %tid.x;
    mul.lo.s32 %r3, %r1, %r1;
    add.s32 %r4, %r3, 7;
    st.global.u32 [%r4], %r4;
    ret;)",
                      {.imad = false});
  EXPECT_FALSE(folded(xmad.functions.front(), "mul.lo.s32 %r3"));  // Maxwell, Pascal: XMAD
}

// FFMA: PTX lets the assembler contract a multiply and an add that name no
// rounding (gaussian's fan2: `mul.f32` then `sub.f32` is `FFMA R15, R6, -R13,
// R15` in the H100 SASS). An explicit rounding or a different flush mode
// keeps them apart.
TEST(PtxFuse, AFloatMultiplyContractsIntoItsAdd) {
  Module m = fused(R"(
    ld.global.f32 %f1, [%rd1];
    ld.global.f32 %f2, [%rd2];
    mul.f32 %f3, %f1, %f2;
    sub.f32 %f4, %f1, %f3;
    mul.rn.f32 %f5, %f1, %f2;
    add.f32 %f6, %f5, %f4;
    mul.f32 %f7, %f1, %f1;
    add.rn.f32 %f8, %f7, %f6;
    mul.ftz.f32 %f9, %f2, %f2;
    add.f32 %f10, %f9, %f8;
    st.global.f32 [%rd1], %f10;
    ret;)");
  const Function& f = m.functions.front();
  EXPECT_TRUE(folded(f, "mul.f32 %f3"));
  EXPECT_TRUE(takes(f, "sub.f32 %f4", "%f2"));
  EXPECT_FALSE(folded(f, "mul.rn.f32"));
  EXPECT_FALSE(folded(f, "mul.f32 %f7"));  // its add rounds explicitly
  EXPECT_FALSE(folded(f, "mul.ftz.f32"));
}

// sm_90's VIADDMNMX.RELU: `min(max(y - 1, 0), 127)` as nvcc writes it (add,
// min, max with 0) is one instruction, a clamp without the add (min, max
// with 0) one VIMNMX.RELU. Without the option (earlier ISAs: IADD3, IMNMX,
// IMNMX) nothing folds; a min read by a max with anything but 0 stays.
TEST(PtxFuse, ClampsAsOneInstructionFromSm90) {
  const char* body = R"(
    mov.u32 %r1, %tid.x;
    add.s32 %r2, %r1, -1;
    min.s32 %r3, %r2, 127;
    max.s32 %r4, %r3, 0;
    min.s32 %r5, %r1, 127;
    max.s32 %r6, %r5, 0;
    min.s32 %r7, %r1, 63;
    max.s32 %r8, %r7, 4;
    add.s32 %r9, %r1, 1;
    add.s32 %r10, %r9, %r8;
    add.s32 %r11, %r4, %r6;
    add.s32 %r12, %r11, %r10;
    add.s32 %r13, %r12, -10;
    add.s32 %r14, %r1, -10;
    max.s32 %r15, %r13, %r14;
    st.global.u32 [%r15], %r15;
    ret;)";
  Module on = fused(body, {.add_min_max = true});
  const Function& f = on.functions.front();
  EXPECT_TRUE(folded(f, "add.s32 %r2"));
  EXPECT_TRUE(folded(f, "min.s32 %r3"));
  EXPECT_FALSE(folded(f, "max.s32 %r4"));
  EXPECT_TRUE(takes(f, "max.s32 %r4", "%r1"));  // through the folded min and add
  EXPECT_TRUE(folded(f, "min.s32 %r5"));
  EXPECT_FALSE(folded(f, "min.s32 %r7"));  // a max with 4: VIMNMX twice
  EXPECT_FALSE(folded(f, "add.s32 %r9"));  // read by an add
  // nw's max of two sums (H100 SASS: `IADD3 R11, R11, -0xa` then
  // `VIADDMNMX R9, R10, R9, R11`): the max takes one of them.
  EXPECT_NE(folded(f, "add.s32 %r13"), folded(f, "add.s32 %r14"));
  Module off = fused(body);
  for (const char* p : {"add.s32 %r2", "min.s32 %r3", "min.s32 %r5"}) EXPECT_FALSE(folded(off.functions.front(), p)) << p;
}

TEST(PtxIfConvert, ShortStraightRegionsUnderAForwardBranchArePredicated) {
  Module m = fused(R"(
    mov.u32 %r1, %tid.x;
    setp.gt.u32 %p1, %r1, 127;
    @%p1 bra L1;
    ld.shared.f32 %f1, [%r1];
    ld.shared.f32 %f2, [%r1+512];
    add.f32 %f3, %f2, %f1;
    st.shared.f32 [%r1], %f3;
  L1:
    bar.sync 0;
    setp.gt.u32 %p2, %r1, 63;
    @%p2 bra L2;
    ld.shared.f32 %f4, [%r1];
    bar.sync 0;
    st.shared.f32 [%r1], %f4;
  L2:
    setp.gt.u32 %p3, %r1, 31;
    @%p3 bra L3;
    add.f32 %f5, %f1, %f1;
    add.f32 %f6, %f5, %f1;
    add.f32 %f7, %f6, %f1;
    add.f32 %f8, %f7, %f1;
    add.f32 %f9, %f8, %f1;
    st.shared.f32 [%r1], %f9;
  L3:
    bar.sync 0;
    @%p1 bra L4;
    add.f32 %f10, %f1, %f1;
  L4:
    ret;)");
  Function& f = m.functions.front();
  EXPECT_EQ(if_convert_function(f, 4), 1u);
  EXPECT_EQ(test::inst(f, "@%p1 bra").if_converted_end, f.labels.at("L1"));
  EXPECT_EQ(test::inst(f, "@%p2 bra").if_converted_end, -1);  // a barrier inside
  EXPECT_EQ(test::inst(f, "@%p3 bra").if_converted_end, -1);  // six instructions, over the limit of 4
  EXPECT_EQ(test::inst(f, "@%p1 bra L4").if_converted_end, -1);  // to a `ret`: an `@P EXIT`, which issues
  EXPECT_EQ(if_convert_function(f, 8), 2u);                       // the first again, and the third now fits
}

// Branches ptxas keeps (not predicated) around a region: BSSY ahead of the
// branch and BSYNC at its target when the predicate may differ between
// lanes; nothing when it is uniform (a parameter's), when the target is a
// `ret` (`@P EXIT`), or when the region is an if/else's lone jump.
TEST(PtxReconvergence, DivergentBranchesAroundKeptRegionsAreBssyAndBsync) {
  Module m = fused(R"(
    ld.param.u64 %rd1, [a];
    cvta.to.global.u64 %rd2, %rd1;
    ld.global.u32 %r9, [%rd2];
    mov.u32 %r1, %tid.x;
    setp.gt.u32 %p1, %r1, 127;
    @%p1 bra L1;
    atom.global.add.u32 %r2, [%rd2], 1;
    st.global.u32 [%rd2+4], %r2;
  L1:
    setp.gt.u32 %p2, %r9, 7;
    @%p2 bra L2;
    atom.global.add.u32 %r3, [%rd2], 1;
  L2:
    cvt.u32.u64 %r4, %rd1;
    setp.gt.u32 %p3, %r4, 7;
    @%p3 bra L3;
    atom.global.add.u32 %r5, [%rd2], 1;
  L3:
    @%p1 bra L4;
    bra.uni L5;
  L4:
    atom.global.add.u32 %r6, [%rd2], 1;
  L5:
    @%p1 bra L6;
    atom.global.add.u32 %r7, [%rd2], 1;
  L6:
    ret;)");
  Function& f = m.functions.front();
  EXPECT_EQ(if_convert_function(f, 8), 0u);  // every region has an atomic
  EXPECT_EQ(mark_reconvergence_function(f), 2u);
  EXPECT_TRUE(test::inst(f, "@%p1 bra L1").bssy);  // on %tid.x
  EXPECT_EQ(f.body[static_cast<size_t>(f.labels.at("L1"))].bsync, 1u);
  EXPECT_TRUE(test::inst(f, "@%p2 bra").bssy);  // on a loaded value
  EXPECT_EQ(f.body[static_cast<size_t>(f.labels.at("L2"))].bsync, 1u);
  EXPECT_FALSE(test::inst(f, "@%p3 bra").bssy);     // on a parameter: uniform
  EXPECT_FALSE(test::inst(f, "@%p1 bra L4").bssy);  // an if/else's skeleton
  EXPECT_FALSE(test::inst(f, "@%p1 bra L6").bssy);  // to the `ret`: an `@P EXIT`
  EXPECT_EQ(f.body[static_cast<size_t>(f.labels.at("L3"))].bsync, 0u);
}

// A tile loop's bound check on its induction variable (written twice, from a
// parameter and in the loop) is uniform when the loop's own branch is, as
// ptxas sees it: no BSSY. The same check on a variable that a thread-dependent
// branch may skip is not.
TEST(PtxReconvergence, InductionVariablesOfUniformLoopsAreUniform) {
  Module m = fused(R"(
    ld.param.u64 %rd1, [a];
    cvta.to.global.u64 %rd2, %rd1;
    cvt.u32.u64 %r1, %rd1;
    mov.u32 %r2, 0;
    mov.u32 %r5, %tid.x;
  LOOP:
    setp.ge.u32 %p1, %r2, %r1;
    @%p1 bra SKIP;
    atom.global.add.u32 %r3, [%rd2], 1;
  SKIP:
    add.s32 %r2, %r2, 256;
    setp.lt.u32 %p2, %r2, 4096;
    @%p2 bra LOOP;
    mov.u32 %r4, 0;
    setp.gt.u32 %p3, %r5, 7;
    @%p3 bra NEXT;
    add.s32 %r4, %r4, 1;
  NEXT:
    setp.ge.u32 %p4, %r4, %r1;
    @%p4 bra END;
    atom.global.add.u32 %r6, [%rd2], 1;
  END:
    st.global.u32 [%rd2], %r4;
    ret;)");
  Function& f = m.functions.front();
  EXPECT_TRUE(UniformRegs::through_control(f).reg(test::reg(f, "%r2")));
  EXPECT_FALSE(UniformRegs(f).reg(test::reg(f, "%r2")));  // the aggregation's analysis: one definition only
  EXPECT_FALSE(UniformRegs::through_control(f).reg(test::reg(f, "%r4")));  // written under %tid's branch
  EXPECT_EQ(if_convert_function(f, 8), 1u);  // the one-add region under %p3 is predicated
  mark_reconvergence_function(f);
  EXPECT_FALSE(test::inst(f, "@%p1 bra").bssy);
  EXPECT_FALSE(test::inst(f, "@%p3 bra").bssy);
  EXPECT_TRUE(test::inst(f, "@%p4 bra").bssy);
}

// In a predicated region (predicate.h) the producer and its readers carry
// one guard: the merged SASS instruction takes it, so the producer folds.
// A reader under another guard, or none, keeps it issued.
TEST(PtxFuse, GuardedProducerFoldsIntoReadersUnderTheSameGuard) {
  Module m = fused(R"(
    ld.param.u64 %rd1, [a];
    mov.u32 %r1, %tid.x;
    setp.gt.u32 %p1, %r1, 100;
    @!%p1 mul.wide.s32 %rd3, %r1, 4;
    @!%p1 add.s64 %rd4, %rd1, %rd3;
    @!%p1 ld.global.f32 %f1, [%rd4];
    @!%p1 mul.wide.s32 %rd5, %r1, 8;
    add.s64 %rd6, %rd1, %rd5;
    ld.global.f32 %f2, [%rd6];
    st.global.f32 [%rd6], %f1;
    ret;)");
  const Function& f = m.functions.front();
  EXPECT_TRUE(folded(f, "@!%p1 mul.wide.s32 %rd3"));
  EXPECT_TRUE(takes(f, "@!%p1 add.s64 %rd4", "%r1"));
  EXPECT_FALSE(folded(f, "@!%p1 mul.wide.s32 %rd5"));  // read by an unguarded add
}

}  // namespace
}  // namespace ws::ptx
