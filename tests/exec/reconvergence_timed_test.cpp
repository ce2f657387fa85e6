// ptxas's BSSY and BSYNC around a branched region (frontend/ptx/fuse.h,
// mark_reconvergence_function) issue in the timing stream: a warp that
// runs a thread-dependent `@p bra` around an atomic K times issues 2K more
// instructions with them than without (exec.ptx_reconvergence), and the
// same loop on a parameter's predicate issues none.
#include <gtest/gtest.h>

#include <string>

#include "exec/emu_test_util.h"
#include "exec/timed_test_util.h"

namespace ws::exec {
namespace {

constexpr int kRegions = 16;

// Word 0: the counter; word 1: a limit the kernel reads (1 << 30).
std::string regions_ptx(bool on_tid) {
  std::string body = "    ld.param.u64 %rd1, [p];\n    ld.param.u32 %r9, [n];\n    mov.u32 %r1, %tid.x;\n";
  body += on_tid ? "    setp.gt.u32 %p1, %r1, 15;\n" : "    setp.gt.u32 %p1, %r9, 15;\n";
  for (int i = 0; i < kRegions; ++i) {
    std::string l = "L" + std::to_string(i);
    body += "    @%p1 bra " + l + ";\n    atom.global.add.u32 %r2, [%rd1], %r1;\n    add.s32 %r3, %r3, %r2;\n" + l +
            ":\n    add.s32 %r4, %r4, 1;\n";
  }
  body += "    st.global.u32 [%rd1+8], %r4;\n    ret;\n";
  return test::kernel_ptx("regions", ".param .u64 p, .param .u32 n", body);
}

uint64_t warp_insts(bool on_tid, bool reconvergence) {
  std::vector<uint8_t> n(4, 0);  // n = 0: the parameter's predicate is false, every lane runs the regions
  test::TimedRun r = test::run_timed(regions_ptx(on_tid), "regions", std::vector<uint32_t>(4), "h100",
                                     {"l1i.perfect=true", std::string("exec.ptx_reconvergence=") +
                                                               (reconvergence ? "true" : "false")},
                                     {}, n);
  return r.warp_insts;
}

TEST(ReconvergenceTimed, DivergentRegionsIssueBssyAndBsync) {
  EXPECT_EQ(warp_insts(true, true), warp_insts(true, false) + 2u * kRegions);
  EXPECT_EQ(warp_insts(false, true), warp_insts(false, false));  // uniform: ptxas needs no BSSY
}

}  // namespace
}  // namespace ws::exec
