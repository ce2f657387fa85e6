// core.lsu_operand_latency under exec --timing: a store that reads an add's
// result issues that many cycles after the add (ptxas's stall count before
// an LD/ST-unit reader), an add that reads it after the unit's latency.
#include <gtest/gtest.h>

#include "exec/timed_warp.h"

namespace ws::exec {
namespace {

// Cycles between two clock reads around an add and its reader: a store of
// the sum (out[0]) or another add (out[1]). The first store waits for the
// parameter load (a constant-cache miss) before the clocks start.
const std::string kReaders = test::kernel_ptx("readers", ".param .u64 p", R"(
    ld.param.u64 %rd1, [p];
    mov.u32 %r9, %tid.x;
    st.global.u32 [%rd1+16], %r9;
    mov.u32 %r20, %clock;
    add.s32 %r1, %r20, %r9;
    st.global.u32 [%rd1+8], %r1;
    mov.u32 %r21, %clock;
    add.s32 %r2, %r21, %r9;
    add.s32 %r3, %r2, 1;
    mov.u32 %r22, %clock;
    sub.s32 %r23, %r21, %r20;
    sub.s32 %r24, %r22, %r21;
    st.global.u32 [%rd1], %r23;
    st.global.u32 [%rd1+4], %r24;
    st.global.u32 [%rd1+12], %r3;
    ret;
)");

std::pair<uint32_t, uint32_t> run(int latency) {
  test::TimedWarp t;
  t.sets = {"core.units.int.latency=4", "core.lsu_operand_latency=" + std::to_string(latency)};
  std::vector<uint32_t> out = test::run_timed_warp(kReaders, "readers", t, 2);
  return {out[0], out[1]};
}

TEST(LsuOperandTimed, AStoreReadsAnAddsResultTheLatencyAfterIt) {
  auto [store0, add0] = run(0);
  auto [store8, add8] = run(8);
  // The store waits 8 cycles after the add instead of the int unit's 4.
  EXPECT_EQ(store8 - store0, 8u - 4u) << store0 << " vs " << store8;
  EXPECT_EQ(add8, add0);  // an ALU reader is not held
}

}  // namespace
}  // namespace ws::exec
