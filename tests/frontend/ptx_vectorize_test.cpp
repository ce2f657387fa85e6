// Shared loads ptxas merges into vector loads (frontend/ptx/vectorize.h):
// which groups merge, which load issues them, and the alignment they need.
#include "frontend/ptx/vectorize.h"

#include <gtest/gtest.h>

#include <string>

#include "frontend/ptx/parser.h"
#include "frontend/ptx_test_util.h"

namespace ws::ptx {
namespace {

Module parsed(const std::string& body) {
  return parse_module(".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k(.param .u64 a)\n{\n"
                      ".reg .b32 %r<32>;\n.reg .b64 %rd<32>;\n.reg .pred %p<8>;\n.reg .f32 %f<32>;\n"
                      ".reg .f64 %fd<8>;\n"
                      ".shared .align 4 .b8 tile[1024];\n.shared .align 4 .b8 small[12];\n" +
                          body + "\n}\n",
                      "t.ptx");
}

Module vectorized(const std::string& body) {
  Module m = parsed(body);
  vectorize_shared_loads_module(m);
  return m;
}

const Instruction& at(const Function& f, const std::string& prefix) { return test::inst(f, prefix); }

// A tile row (tile + tid.y * 64, then +0, +4, +8, +12) read between products,
// as an unrolled inner loop reads it: one LDS.128 where the first load stands.
const char* kRow = R"(
    mov.u32 %r1, %tid.y;
    shl.b32 %r2, %r1, 6;
    mov.u32 %r3, tile;
    add.s32 %r4, %r3, %r2;
    ld.shared.f32 %f1, [%r4];
    mul.f32 %f10, %f1, %f1;
    ld.shared.f32 %f2, [%r4+4];
    mul.f32 %f11, %f2, %f10;
    ld.shared.f32 %f3, [%r4+8];
    ld.shared.f32 %f4, [%r4+12];
    add.f32 %f12, %f3, %f4;
    ret;)";

TEST(PtxVectorize, ATileRowIsOneVectorLoadWhereItsFirstLoadStands) {
  Module m = vectorized(kRow);
  const Function& f = m.functions.front();
  const Instruction& head = at(f, "ld.shared.f32 %f1");
  EXPECT_EQ(head.merged_bytes, 16);
  EXPECT_EQ(head.merged_below, 0);
  ASSERT_EQ(head.merged_dsts.size(), 3u);
  EXPECT_EQ(head.merged_dsts[0], test::reg(f, "%f2"));
  EXPECT_FALSE(head.folded);
  EXPECT_TRUE(at(f, "ld.shared.f32 %f2").folded);
  EXPECT_TRUE(at(f, "ld.shared.f32 %f3").folded);
  EXPECT_TRUE(at(f, "ld.shared.f32 %f4").folded);
}

TEST(PtxVectorize, TheRegistersKnowTheirAlignment) {
  Module m = parsed(kRow);
  const Function& f = m.functions.front();
  std::vector<uint32_t> al = register_alignment(f, m);
  EXPECT_EQ(al[static_cast<size_t>(test::reg(f, "%r1"))], 1u);    // tid.y: anything
  EXPECT_EQ(al[static_cast<size_t>(test::reg(f, "%r2"))], 64u);   // tid.y << 6
  EXPECT_EQ(al[static_cast<size_t>(test::reg(f, "%r3"))], 16u);   // a 1 KB shared array, as ptxas places it
  EXPECT_EQ(al[static_cast<size_t>(test::reg(f, "%r4"))], 16u);
}

// A column (offsets 64 apart) and a base only known to be 4-byte aligned
// (tile + tid.x * 4) are read element by element, as in the SASS.
TEST(PtxVectorize, AColumnAndAnUnalignedBaseStayScalar) {
  Module m = vectorized(R"(
    mov.u32 %r1, %tid.x;
    shl.b32 %r2, %r1, 2;
    mov.u32 %r3, tile;
    add.s32 %r4, %r3, %r2;
    ld.shared.f32 %f1, [%r4];
    ld.shared.f32 %f2, [%r4+64];
    ld.shared.f32 %f3, [%r4+4];
    ld.shared.f32 %f4, [%r4+8];
    ld.shared.f32 %f5, [%r4+12];
    ret;)");
  for (const Instruction& in : m.functions.front().body) {
    EXPECT_EQ(in.merged_bytes, 0) << in.text;
    EXPECT_FALSE(in.folded) << in.text;
  }
}

// An 8-byte aligned pair (tile + tid.x * 8, +0 and +4): LDS.64; a double
// pair 16-byte aligned: LDS.128.
TEST(PtxVectorize, PairsMergeToTheirWidth) {
  Module m = vectorized(R"(
    mov.u32 %r1, %tid.x;
    shl.b32 %r2, %r1, 3;
    mov.u32 %r3, tile;
    add.s32 %r4, %r3, %r2;
    ld.shared.f32 %f1, [%r4];
    ld.shared.f32 %f2, [%r4+4];
    shl.b32 %r5, %r1, 4;
    add.s32 %r6, %r3, %r5;
    ld.shared.f64 %fd1, [%r6];
    ld.shared.f64 %fd2, [%r6+8];
    ret;)");
  const Function& f = m.functions.front();
  EXPECT_EQ(at(f, "ld.shared.f32 %f1").merged_bytes, 8);
  EXPECT_TRUE(at(f, "ld.shared.f32 %f2").folded);
  EXPECT_EQ(at(f, "ld.shared.f64 %fd1").merged_bytes, 16);
  EXPECT_TRUE(at(f, "ld.shared.f64 %fd2").folded);
}

// The first load in program order may be any of the group: the vector
// access starts below its own address.
TEST(PtxVectorize, TheIssuingLoadNeedNotBeTheLowest) {
  Module m = vectorized(R"(
    mov.u32 %r3, tile;
    ld.shared.f32 %f2, [%r3+20];
    ld.shared.f32 %f1, [%r3+16];
    ld.shared.f32 %f4, [%r3+28];
    ld.shared.f32 %f3, [%r3+24];
    ret;)");
  const Function& f = m.functions.front();
  const Instruction& head = at(f, "ld.shared.f32 %f2");
  EXPECT_EQ(head.merged_bytes, 16);
  EXPECT_EQ(head.merged_below, 4);
  EXPECT_TRUE(at(f, "ld.shared.f32 %f1").folded);
}

// Nothing merges across a shared store, a barrier or a label, nor when a
// member's register is used before its own load (the vector load would
// already have written it), nor in an array too small for ptxas to align.
TEST(PtxVectorize, StoresBarriersLabelsAndEarlyUsesKeepLoadsApart) {
  Module m = vectorized(R"(
    mov.u32 %r3, tile;
    ld.shared.f32 %f1, [%r3];
    st.shared.f32 [%r3+64], %f1;
    ld.shared.f32 %f2, [%r3+4];
    ld.shared.f32 %f3, [%r3+8];
    bar.sync 0;
    ld.shared.f32 %f4, [%r3+12];
  L1:
    ld.shared.f32 %f5, [%r3+16];
    add.f32 %f6, %f6, 1.0;
    ld.shared.f32 %f6, [%r3+20];
    mov.u32 %r4, small;
    ld.shared.f32 %f7, [%r4];
    ld.shared.f32 %f8, [%r4+4];
    ret;)");
  const Function& f = m.functions.front();
  for (const Instruction& in : f.body) {
    EXPECT_EQ(in.merged_bytes, 0) << in.text;
    EXPECT_FALSE(in.folded) << in.text;
  }
}

// A pointer stepped by 16 from an aligned start keeps its alignment through
// the loop; stepped by 4 it does not.
TEST(PtxVectorize, ALoopPointerKeepsTheAlignmentOfItsStep) {
  Module m = parsed(R"(
    mov.u32 %r1, tile;
    mov.u32 %r2, tile;
  LOOP:
    ld.shared.f32 %f1, [%r1];
    add.s32 %r1, %r1, 16;
    add.s32 %r2, %r2, 4;
    setp.lt.u32 %p1, %r1, 512;
    @%p1 bra LOOP;
    ret;)");
  const Function& f = m.functions.front();
  std::vector<uint32_t> al = register_alignment(f, m);
  EXPECT_EQ(al[static_cast<size_t>(test::reg(f, "%r1"))], 16u);
  EXPECT_EQ(al[static_cast<size_t>(test::reg(f, "%r2"))], 4u);
}

}  // namespace
}  // namespace ws::ptx
