// Register liveness over a PTX function's basic blocks (the scheduler's
// register pressure): loops carry values around, last reads end them,
// guarded writes do not.
#include "frontend/ptx/liveness.h"

#include <gtest/gtest.h>

#include "frontend/ptx_test_util.h"

namespace ws::ptx {
namespace {

TEST(PtxLiveness, LoopCarriedValuesAreLiveAcrossTheBackEdge) {
  Module m = test::parse_kernel_body(R"(
    mov.f32 %f1, 0f00000000;
    mov.u32 %r1, 0;
  L:
    ld.global.f32 %f2, [%rd1];
    add.f32 %f1, %f1, %f2;
    add.s32 %r1, %r1, 1;
    setp.lt.s32 %p1, %r1, %r2;
    @%p1 bra L;
    st.global.f32 [%rd3], %f1;
    ret;
  )");
  const Function& f = m.functions[0];
  Liveness live(f);
  size_t load = test::index_of(f, "ld.global.f32 %f2");
  RegSet at_load = live.live_before(load);
  // The sum, the counter, its bound and both pointers reach the load; the
  // loaded value does not (written there), nor the predicate (written later).
  for (const char* r : {"%f1", "%r1", "%r2", "%rd1", "%rd3"}) EXPECT_TRUE(at_load.has(test::reg(f, r))) << r;
  EXPECT_FALSE(at_load.has(test::reg(f, "%f2")));
  EXPECT_FALSE(at_load.has(test::reg(f, "%p1")));
  // After the loop only the store's operands are live.
  RegSet at_store = live.live_before(test::index_of(f, "st.global"));
  EXPECT_TRUE(at_store.has(test::reg(f, "%f1")));
  EXPECT_TRUE(at_store.has(test::reg(f, "%rd3")));
  EXPECT_FALSE(at_store.has(test::reg(f, "%r1")));
  EXPECT_FALSE(at_store.has(test::reg(f, "%rd1")));
  // Before the first instruction: only what the body reads before writing.
  RegSet at_entry = live.live_before(0);
  EXPECT_FALSE(at_entry.has(test::reg(f, "%f1")));
  EXPECT_TRUE(at_entry.has(test::reg(f, "%rd1")));
}

TEST(PtxLiveness, AGuardedWriteKeepsTheValueBeforeItLive) {
  Module m = test::parse_kernel_body(R"(
    mov.u32 %r1, 7;
    setp.eq.s32 %p1, %r2, 0;
    @%p1 mov.u32 %r1, 9;
    mov.u32 %r3, 5;
    st.global.u32 [%rd1], %r1;
    mov.u32 %r1, 1;
    st.global.u32 [%rd1], %r1;
    ret;
  )");
  const Function& f = m.functions[0];
  Liveness live(f);
  // %r1 = 7 may reach the first store past the guarded write.
  EXPECT_TRUE(live.live_before(test::index_of(f, "@%p1 mov")).has(test::reg(f, "%r1")));
  EXPECT_TRUE(live.live_before(test::index_of(f, "setp")).has(test::reg(f, "%r1")));
  // The unguarded `mov %r1, 1` ends the value the first store read.
  EXPECT_FALSE(live.live_before(test::index_of(f, "mov.u32 %r1, 1")).has(test::reg(f, "%r1")));
}

// nvcc's `if (tid < half) s[tid] += s[tid + half];` after predication: the
// loaded values are written and read only under @%p1. Nothing reads them
// when %p1 is false, so they are not live before the region (reduction's
// tree kept 24 such registers live from the kernel's entry before this rule).
TEST(PtxLiveness, APredicatedRegionsTemporariesEndAtItsStart) {
  Module m = test::parse_kernel_body(R"(
    setp.lt.u32 %p1, %r1, 64;
    @%p1 ld.shared.f32 %f1, [%r2];
    @%p1 ld.shared.f32 %f2, [%r2+256];
    @%p1 add.f32 %f3, %f1, %f2;
    @%p1 st.shared.f32 [%r2], %f3;
    bar.sync 0;
    ret;
  )");
  const Function& f = m.functions[0];
  std::vector<bool> local = guard_local_registers(f);
  EXPECT_TRUE(local[test::reg(f, "%f1")]);
  EXPECT_FALSE(local[test::reg(f, "%r1")]);  // read by the unguarded setp
  Liveness live(f);
  RegSet at_entry = live.live_before(0);
  for (const char* r : {"%f1", "%f2", "%f3"}) EXPECT_FALSE(at_entry.has(test::reg(f, r))) << r;
  EXPECT_TRUE(at_entry.has(test::reg(f, "%r2")));
}

}  // namespace
}  // namespace ws::ptx
