// exec.ptx_unroll keeps results: counted loops of each shape the unroller
// takes, with a different trip count in every lane (so that lanes of a warp
// take the unrolled copies and the original loop apart), give the sums and
// final counters that the loop as written gives and that the host computes.
#include <gtest/gtest.h>

#include <cstring>

#include "exec/device.h"
#include "exec/emu_test_util.h"
#include "frontend/ptx/parser.h"
#include "frontend/ptx/unroll.h"

namespace ws::exec {
namespace {

// Each lane t runs n = t + 1 passes of `sum += a[k]` and stores the sum and
// its counter's final value at out[2t], out[2t + 1]. %rd1 walks a, %r9 is n.
std::string counted_loop(const std::string& name, const std::string& init, const std::string& loop) {
  return test::kernel_ptx(name, ".param .u64 a, .param .u64 out", R"(
    ld.param.u64 %rd1, [a];
    ld.param.u64 %rd2, [out];
    mov.u32 %r8, %tid.x;
    add.s32 %r9, %r8, 1;
    mov.u32 %r5, 0;
)" + init + "  L:\n    ld.global.u32 %r6, [%rd1];\n    add.s32 %r5, %r5, %r6;\n    add.s64 %rd1, %rd1, 4;\n" + loop +
                                  R"(
    mul.wide.u32 %rd3, %r8, 8;
    add.s64 %rd4, %rd2, %rd3;
    st.global.u32 [%rd4], %r5;
    st.global.u32 [%rd4+4], %r1;
    ret;
)");
}

// nvcc's shapes: counting up to 0 (ne), up to n (lt), down with the test
// before the step (unsigned), and a negated branch on `>=` in steps of 3.
std::vector<std::string> shapes() {
  return {counted_loop("up_to_zero", "    neg.s32 %r1, %r9;\n",
                       "    add.s32 %r1, %r1, 1;\n    setp.ne.s32 %p1, %r1, 0;\n    @%p1 bra L;\n"),
          counted_loop("up_to_n", "    mov.u32 %r1, 0;\n",
                       "    add.s32 %r1, %r1, 1;\n    setp.lt.s32 %p1, %r1, %r9;\n    @%p1 bra L;\n"),
          counted_loop("down_test_first", "    mov.u32 %r1, %r9;\n",
                       "    setp.gt.u32 %p1, %r1, 1;\n    add.s32 %r1, %r1, -1;\n    @%p1 bra L;\n"),
          counted_loop("negated_by_three", "    mul.lo.s32 %r2, %r9, 3;\n    mov.u32 %r1, 0;\n",
                       "    add.s32 %r1, %r1, 3;\n    setp.ge.s32 %p1, %r1, %r2;\n    @!%p1 bra L;\n")};
}

std::vector<uint32_t> run(const std::string& ptx, const std::string& kernel, int unroll) {
  DeviceOptions o;
  o.print_summary = false;
  o.sets = {"exec.ptx_unroll=" + std::to_string(unroll)};
  Device dev(o);
  const LoadedModule& m = dev.program().load(ptx::parse_module(ptx, "t.ptx"));
  std::vector<uint32_t> a(64);
  for (uint32_t i = 0; i < a.size(); ++i) a[i] = 7 * i + 1;
  Addr pa = *dev.memory().allocate(a.size() * 4), pout = *dev.memory().allocate(64 * 4);
  dev.copy_to_device(pa, a.data(), a.size() * 4);
  Launch l;
  l.module = &m;
  l.kernel = m.ast.find_function(kernel);
  l.grid = Dim3{1, 1, 1}, l.block = Dim3{32, 1, 1};
  l.params.assign(16, 0);
  std::memcpy(l.params.data(), &pa, 8);
  std::memcpy(l.params.data() + 8, &pout, 8);
  LaunchResult lr = dev.launch(l, StreamRef{});
  EXPECT_TRUE(lr.ok) << lr.error;
  std::vector<uint32_t> out(64);
  dev.copy_to_host(out.data(), pout, out.size() * 4);
  dev.finish();
  return out;
}

TEST(PtxUnrollExec, EveryLoopShapeGivesTheResultsOfTheLoopAsWritten) {
  const char* names[] = {"up_to_zero", "up_to_n", "down_test_first", "negated_by_three"};
  std::vector<std::string> ptx = shapes();
  for (size_t s = 0; s < ptx.size(); ++s) {
    ptx::Module m = ptx::parse_module(ptx[s], "t.ptx");
    ASSERT_EQ(ptx::unroll_module(m, ptx::UnrollLimits{}).loops, 1u) << names[s] << ": not a loop the pass takes";
    std::vector<uint32_t> written = run(ptx[s], names[s], 1), unrolled = run(ptx[s], names[s], 4);
    EXPECT_EQ(unrolled, written) << names[s];
    for (uint32_t t = 0; t < 32; ++t) {
      uint32_t n = t + 1, sum = 0;
      for (uint32_t k = 0; k < n; ++k) sum += 7 * k + 1;
      EXPECT_EQ(unrolled[2 * t], sum) << names[s] << " lane " << t;
    }
  }
}

}  // namespace
}  // namespace ws::exec
