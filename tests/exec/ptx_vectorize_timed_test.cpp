// Shared loads ptxas merges into one vector load (frontend/ptx/vectorize.h)
// under the timing model: the results are those of the loads as written,
// the warp issues one LDS.128 for four LDS, and the sum that reads the
// merged loads' registers waits for the vector load's data.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "exec/emu_test_util.h"
#include "exec/timed_test_util.h"

namespace ws::exec {
namespace {

// Lane t writes t * 3 into tile[t], then reads the four words of row
// (t & 7) (tile + (t & 7) * 16, offsets 0, 4, 8, 12) and stores their sum.
std::string row_sum_ptx() {
  return test::kernel_ptx("row_sum", ".param .u64 p", R"(
    ld.param.u64 %rd1, [p];
    mov.u32 %r1, %tid.x;
    mov.u32 %r2, tile;
    shl.b32 %r3, %r1, 2;
    add.s32 %r4, %r2, %r3;
    mul.lo.u32 %r5, %r1, 3;
    st.shared.u32 [%r4], %r5;
    bar.sync 0;
    and.b32 %r6, %r1, 7;
    shl.b32 %r7, %r6, 4;
    add.s32 %r8, %r2, %r7;
    ld.shared.u32 %r10, [%r8];
    ld.shared.u32 %r11, [%r8+4];
    ld.shared.u32 %r12, [%r8+8];
    ld.shared.u32 %r13, [%r8+12];
    add.s32 %r14, %r10, %r11;
    add.s32 %r15, %r12, %r13;
    add.s32 %r16, %r14, %r15;
    mul.wide.u32 %rd2, %r1, 4;
    add.s64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r16;
    ret;
  )",
                          ".shared .align 4 .b8 tile[128];");
}

TEST(PtxVectorizeTimed, FourRowLoadsIssueAsOneWithTheSameResults) {
  auto run = [](bool vectorize) {
    return test::run_timed(row_sum_ptx(), "row_sum", std::vector<uint32_t>(32, 0), "qv100",
                           {"l1i.perfect=true", std::string("exec.ptx_vectorize=") + (vectorize ? "true" : "false")});
  };
  test::TimedRun merged = run(true), plain = run(false);
  for (uint32_t t = 0; t < 32; ++t) {
    uint32_t row = t & 7;
    EXPECT_EQ(merged.words[t], 3 * (16 * row + 6)) << "lane " << t;  // 3 * (4r + 4r+1 + 4r+2 + 4r+3)
    EXPECT_EQ(plain.words[t], merged.words[t]) << "lane " << t;
  }
  EXPECT_EQ(merged.warp_insts + 3, plain.warp_insts);
  // The adds wait for the shared data either way (the shared latency, 19
  // cycles on QV100, is on the path): three fewer issues, not a free load.
  EXPECT_LE(merged.cycles, plain.cycles);
  EXPECT_GT(merged.cycles + 8, plain.cycles);
}

}  // namespace
}  // namespace ws::exec
