// Folded PTX steps under the timing model (frontend/ptx/fuse.h): an index
// scaled by `mul.wide` into an `add.s64` issues as one instruction (ptxas's
// IMAD.WIDE), yet a load through that address still waits for the load that
// produced the index, so a chain of dependent loads costs what it did.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "exec/emu_test_util.h"
#include "exec/timed_test_util.h"

namespace ws::exec {
namespace {

constexpr int kHops = 24;

// Each hop loads the index of the next word from the word it reached.
std::string chase_ptx() {
  std::string body = "    ld.param.u64 %rd1, [p];\n    cvta.to.global.u64 %rd2, %rd1;\n    mov.u32 %r1, 0;\n";
  for (int i = 0; i < kHops; ++i) {  // fresh registers per hop, as nvcc writes them
    std::string m = "%rd" + std::to_string(3 + 2 * i), a = "%rd" + std::to_string(4 + 2 * i);
    std::string idx = "%r" + std::to_string(1 + i), next = "%r" + std::to_string(2 + i);
    body += "    mul.wide.u32 " + m + ", " + idx + ", 4;\n    add.s64 " + a + ", %rd2, " + m + ";\n    ld.global.u32 " +
            next + ", [" + a + "];\n";
  }
  body += "    st.global.u32 [%rd2], %r" + std::to_string(1 + kHops) + ";\n    ret;\n";
  return test::kernel_ptx("chase", ".param .u64 p", body);
}

struct Chase {
  uint64_t cycles = 0, warp_insts = 0;
  uint32_t last = 0;
};

Chase chase(bool fuse) {
  // Word w holds the index of the next hop's word, 33 words (a line or
  // more) further on.
  std::vector<uint32_t> words(4096);
  for (uint32_t i = 0, w = 0; i < kHops; ++i) w = words[w] = (i + 1) * 33 % 4096;
  test::TimedRun r = test::run_timed(chase_ptx(), "chase", words, "qv100",
                                     {"l1i.perfect=true", std::string("exec.ptx_fuse=") + (fuse ? "true" : "false")});
  return {r.cycles, r.warp_insts, r.words[0]};
}

TEST(PtxFuseTimed, AFoldedIndexStillWaitsForTheLoadThatProducedIt) {
  Chase fused = chase(true), plain = chase(false);
  EXPECT_EQ(fused.last, plain.last);
  // Per hop the multiply is folded; the cvta once.
  EXPECT_EQ(fused.warp_insts + kHops + 1, plain.warp_insts);
  // Each hop is a dependent miss either way (hundreds of cycles); without
  // the folded multiply's source the loads would all go out at once.
  EXPECT_NEAR(double(fused.cycles), double(plain.cycles), 0.05 * double(plain.cycles))
      << fused.cycles << " vs " << plain.cycles;
  EXPECT_GT(double(fused.cycles), kHops * 150.0);
}

// A short region every lane branches over still issues when ptxas
// predicates it: the warp issues its three instructions with no lane on
// and not the branch; the stored values are the same either way. (The
// branch goes to a barrier: one to the `ret` would be an `@P EXIT`.)
std::string skip_ptx(unsigned bound) {
  return test::kernel_ptx("skip", ".param .u64 p", R"(
    ld.param.u64 %rd1, [p];
    mov.u32 %r1, %tid.x;
    mul.wide.u32 %rd2, %r1, 4;
    add.s64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r1;
    setp.lt.u32 %p1, %r1, )" + std::to_string(bound) + R"(;
    @%p1 bra DONE;
    ld.global.u32 %r2, [%rd3];
    add.s32 %r3, %r2, 100;
    st.global.u32 [%rd3], %r3;
  DONE:
    bar.sync 0;
    ret;
  )");
}

TEST(PtxFuseTimed, ABranchedOverShortRegionIssuesPredicatedOff) {
  auto run = [](unsigned bound, unsigned region) {
    return test::run_timed(skip_ptx(bound), "skip", std::vector<uint32_t>(32), "qv100",
                           {"l1i.perfect=true", "exec.ptx_if_convert=" + std::to_string(region),
                            "exec.ptx_reconvergence=false"});  // the branch alone (no BSSY/BSYNC)
  };
  for (unsigned bound : {0u, 1u, 16u}) {  // lanes below `bound` skip: none, lane 0, lanes 0-15
    test::TimedRun predicated = run(bound, 8), branched = run(bound, 0);
    EXPECT_EQ(predicated.words, branched.words) << bound;
    EXPECT_EQ(predicated.words[16], 116u);
    EXPECT_EQ(predicated.warp_insts + 1, branched.warp_insts) << bound;  // no branch issued
  }
  test::TimedRun predicated = run(32, 8), branched = run(32, 0);  // every lane skips
  EXPECT_EQ(predicated.words, branched.words);
  EXPECT_EQ(predicated.words[16], 16u);
  EXPECT_EQ(predicated.warp_insts, branched.warp_insts - 1 + 3);
}

}  // namespace
}  // namespace ws::exec
