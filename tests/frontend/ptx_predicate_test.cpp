// Predication of short forward branches (frontend/ptx/predicate.h): which
// branches go, what guards their regions take, how labels move, and that the
// scheduler then issues a tile's loads before its stores.
#include "frontend/ptx/predicate.h"

#include <gtest/gtest.h>

#include <string>

#include "frontend/ptx/parser.h"
#include "frontend/ptx/schedule.h"
#include "frontend/ptx_test_util.h"

namespace ws::ptx {
namespace {

Module parsed(const std::string& body) { return test::parse_kernel_body(body); }

using test::index_of;

// The tiled matrix product's loop body as nvcc writes it: each tile's load
// is branched around when out of bounds, and its shared store follows the
// label. Predicated, the body is one block, and the scheduler issues the
// second load before the first store (as the sm_90 SASS: LDG, LDG, STS, STS).
constexpr const char* kTileLoads = R"(
    ld.param.u64 %rd1, [a];
    mov.u32 %r1, %tid.x;
    mov.f32 %f1, 0f00000000;
    mov.f32 %f2, 0f00000000;
    setp.gt.u32 %p1, %r1, 100;
    @%p1 bra L1;
    ld.global.f32 %f1, [%rd1];
  L1:
    st.shared.f32 [%r1], %f1;
    setp.gt.u32 %p2, %r1, 200;
    @%p2 bra L2;
    ld.global.f32 %f2, [%rd1+4096];
  L2:
    st.shared.f32 [%r1+128], %f2;
    bar.sync 0;
    ret;)";

TEST(PtxPredicate, TileLoadsBecomeOneBlockAndTheLoadsGoFirst) {
  Module m = parsed(kTileLoads);
  Function& f = m.functions.front();
  EXPECT_EQ(predicate_regions_function(f, 8), 2u);
  EXPECT_EQ(f.labels.count("L1") + f.labels.count("L2"), 0u);  // nothing jumps there any more
  const Instruction& first = test::inst(f, "ld.global.f32 %f1");
  EXPECT_EQ(first.guard, test::reg(f, "%p1"));
  EXPECT_TRUE(first.guard_negated);  // runs where the branch was not taken
  const Instruction& second = test::inst(f, "ld.global.f32 %f2");
  EXPECT_EQ(second.guard, test::reg(f, "%p2"));
  EXPECT_TRUE(second.guard_negated);
  EXPECT_LT(test::inst(f, "st.shared.f32 [%r1]").guard, 0);  // after the label: every lane
  schedule_function(f);
  EXPECT_LT(index_of(f, "ld.global.f32 %f2"), index_of(f, "st.shared.f32 [%r1]"));
  EXPECT_LT(index_of(f, "ld.global.f32 %f1"), index_of(f, "st.shared.f32 [%r1]"));
  EXPECT_LT(index_of(f, "setp.gt.u32 %p2"), index_of(f, "ld.global.f32 %f2"));  // its guard
}

TEST(PtxPredicate, WithoutPredicationTheSecondLoadWaitsBehindTheFirstStore) {
  Module m = parsed(kTileLoads);
  Function& f = m.functions.front();
  schedule_function(f);
  EXPECT_GT(index_of(f, "ld.global.f32 %f2"), index_of(f, "st.shared.f32 [%r1]"));
}

// A region that writes its own predicate, one over the size limit and one
// with a barrier stay branches; a label another branch still jumps to stays,
// at the same instruction.
TEST(PtxPredicate, RegionsThatCannotBePredicatedStay) {
  Module m = parsed(R"(
    mov.u32 %r1, %tid.x;
    setp.gt.u32 %p1, %r1, 100;
    @%p1 bra L1;
    add.u32 %r2, %r1, 1;
    setp.gt.u32 %p1, %r2, 7;
  L1:
    @%p1 bra L2;
    add.u32 %r3, %r1, 2;
    add.u32 %r4, %r3, 2;
    add.u32 %r5, %r4, 2;
    add.u32 %r6, %r5, 2;
    add.u32 %r7, %r6, 2;
  L2:
    setp.gt.u32 %p2, %r1, 50;
    @%p2 bra L3;
    bar.sync 0;
  L3:
    setp.gt.u32 %p3, %r1, 60;
    @%p3 bra L4;
    add.u32 %r8, %r1, 3;
    @%p2 bra L4;
    add.u32 %r9, %r1, 4;
  L4:
    st.shared.u32 [%r1], %r9;
    ret;)");
  Function& f = m.functions.front();
  EXPECT_EQ(predicate_regions_function(f, 4), 1u);  // only `@%p2 bra L4` (one add)
  EXPECT_LT(test::inst(f, "add.u32 %r2").guard, 0);  // its region sets %p1
  EXPECT_LT(test::inst(f, "add.u32 %r3").guard, 0);  // five instructions, over 4
  EXPECT_EQ(test::inst(f, "add.u32 %r9").guard, test::reg(f, "%p2"));
  ASSERT_EQ(f.labels.count("L4"), 1u);  // `@%p3 bra L4` still jumps there
  EXPECT_EQ(f.body[static_cast<size_t>(f.labels.at("L4"))].text.rfind("st.shared.u32", 0), 0u);
  EXPECT_EQ(f.body[static_cast<size_t>(f.labels.at("L3"))].text.rfind("setp.gt.u32 %p3", 0), 0u);
  EXPECT_EQ(test::inst(f, "@%p3 bra").ops[0].label, f.labels.at("L4"));
  EXPECT_EQ(test::inst(f, "@%p2 bra L3").ops[0].label, f.labels.at("L3"));
}

}  // namespace
}  // namespace ws::ptx
