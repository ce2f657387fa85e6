// core.ldc_issue_interval under exec --timing: a kernel's parameter loads
// are LDCs of its constant bank (exec.param_bank), which ptxas puts 8
// cycles apart; a clock read after four of them sees the spacing.
#include <gtest/gtest.h>

#include "exec/device.h"
#include "exec/emu_test_util.h"
#include "frontend/ptx/parser.h"

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
  DeviceOptions o;
  o.timing = true;
  o.print_summary = false;
  o.sets = {"l1i.perfect=true", "core.ldc_issue_interval=" + std::to_string(interval)};
  Device dev(o);
  const LoadedModule& m = dev.program().load(ptx::parse_module(kFourParams, "t.ptx"));
  Addr p = *dev.memory().allocate(256);
  uint32_t a = 1, b = 20, c = 300;
  LaunchResult lr = dev.launch(test::one_warp(m, "four", test::param_bytes(p, a, b, c)), StreamRef{});
  EXPECT_TRUE(lr.ok) << lr.error;
  uint32_t out[2] = {};
  dev.copy_to_host(out, p, 8);
  dev.finish();
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
