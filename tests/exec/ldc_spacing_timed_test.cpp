// core.ldc_issue_interval under exec --timing: a kernel's parameter loads
// are LDCs of its constant bank (exec.param_bank), which ptxas puts 8
// cycles apart; a clock read after four of them sees the spacing.
#include <gtest/gtest.h>

#include "exec/timed_warp.h"

namespace ws::exec {
namespace {

const std::string kFourParams = test::kernel_ptx("four", ".param .u64 p, .param .u32 a, .param .u32 b, .param .u32 c", R"(
    mov.u32 %r20, %clock;
    ld.param.u32 %r1, [a];
    ld.param.u32 %r2, [b];
    ld.param.u32 %r3, [c];
    ld.param.u64 %rd1, [p];
    mov.u32 %r21, %clock;
    sub.s32 %r22, %r21, %r20;
    st.global.u32 [%rd1], %r22;
    add.s32 %r4, %r1, %r2;
    add.s32 %r5, %r4, %r3;
    st.global.u32 [%rd1+4], %r5;
    ret;
)");

// Cycles from before the parameter loads to after them (and the sum of the
// three u32 parameters, to check they were read).
std::pair<uint32_t, uint32_t> run(int interval) {
  uint32_t a = 1, b = 20, c = 300;
  test::TimedWarp t;
  t.sets = {"core.ldc_issue_interval=" + std::to_string(interval)};
  t.more_params = test::param_bytes(a, b, c);
  std::vector<uint32_t> out = test::run_timed_warp(kFourParams, "four", t, 2);
  return {out[0], out[1]};
}

TEST(LdcSpacingTimed, ParameterLoadsIssueTheIntervalApart) {
  auto [close, sum1] = run(1);
  auto [spaced, sum8] = run(8);
  EXPECT_EQ(sum1, 321u);
  EXPECT_EQ(sum8, 321u);
  // Four LDCs: the last issues 3 x 8 cycles after the first instead of 3 x 1.
  EXPECT_EQ(spaced - close, 3u * 7) << close << " vs " << spaced;
}

}  // namespace
}  // namespace ws::exec
