// isa/ptx.toml under the timing model. [expand]: a 32-bit remainder by a
// register issues as the sequence ptxas makes of it (nine dependent integer
// instructions ahead of its own), so a chain of remainders costs ten
// integer latencies each where a chain of adds costs one. Fences carry
// their scope (MEMBAR.CTA / .GPU / .SYS) and hold the warp for that scope's
// latency.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "exec/device.h"
#include "exec/emu_test_util.h"
#include "frontend/ptx/parser.h"

namespace ws::exec {
namespace {

constexpr int kChain = 16;

// out = x op d op d ... (kChain times), x = 1000003, d = the parameter; an
// op without operands (a fence) is repeated kChain times instead, and a
// reduction adds 1 to out kChain times.
std::string chain_ptx(const std::string& op) {
  std::string body = "    ld.param.u64 %rd1, [p];\n    ld.param.u32 %r2, [d];\n    mov.u32 %r1, 1000003;\n";
  bool fence = op.rfind("membar", 0) == 0, red = op.rfind("red", 0) == 0 || op.rfind("atom", 0) == 0;
  if (red) body += "    st.global.u32 [%rd1], 0;\n";
  for (int i = 0; i < kChain; ++i)
    body += "    " + op + (fence ? ";\n" : op.rfind("atom", 0) == 0 ? " %r3, [%rd1], 1;\n" : red ? " [%rd1], 1;\n" : " %r1, %r1, %r2;\n");
  if (!red) body += "    st.global.u32 [%rd1], %r1;\n";
  body += "    ret;\n";
  return test::kernel_ptx("chain", ".param .u64 p, .param .u32 d", body);
}

struct Result {
  uint64_t cycles = 0, warp_insts = 0, drain = 0;
  uint32_t value = 0;
};

Result run(const std::string& op, uint32_t d, std::vector<std::string> sets = {}) {
  auto out = std::filesystem::temp_directory_path() / ("warpsim-expand-" + op + "-" + std::to_string(::getpid()));
  std::filesystem::remove_all(out);
  DeviceOptions o;
  o.timing = true;
  o.print_summary = false;
  o.out_dir = out.string();
  o.sets = std::move(sets);
  o.sets.push_back("l1i.perfect=true");
  Result r;
  {
    Device dev(o);
    const LoadedModule& m = dev.program().load(ptx::parse_module(chain_ptx(op), "t.ptx"));
    Addr p = *dev.memory().allocate(4);
    Launch l;
    l.module = &m;
    l.kernel = m.ast.find_function("chain");
    l.grid = Dim3{1, 1, 1}, l.block = Dim3{32, 1, 1};
    l.params.assign(12, 0);
    std::memcpy(l.params.data(), &p, 8);
    std::memcpy(l.params.data() + 8, &d, 4);
    LaunchResult lr = dev.launch(l, StreamRef{});
    EXPECT_TRUE(lr.ok) << lr.error;
    dev.copy_to_host(&r.value, p, 4);
    dev.finish();
  }
  std::ifstream f(out / "stats.json");
  auto k = nlohmann::json::parse(f)["kernels"][0];
  r.cycles = k["cycles"].get<uint64_t>();
  r.warp_insts = k["warp_insts"].get<uint64_t>();
  r.drain = k["stall"]["drain"].get<uint64_t>();
  std::filesystem::remove_all(out);
  return r;
}

TEST(PtxExpandTimed, RemainderByARegisterIsTenDependentIntegerInstructions) {
  Result rem = run("rem.s32", 1000), add = run("add.s32", 1000);
  EXPECT_EQ(rem.value, 3u);  // 1000003 % 1000, then 3 % 1000 ...
  EXPECT_EQ(add.value, 1000003u + kChain * 1000u);
  EXPECT_EQ(rem.warp_insts, add.warp_insts + 9u * kChain);
  // qv100's integer pipe: 4 cycles from issue to a dependent issue. Each
  // remainder adds nine of them to the chain.
  double extra = double(rem.cycles) - double(add.cycles);
  EXPECT_NEAR(extra / kChain, 9 * 4.0, 4.0) << rem.cycles << " vs " << add.cycles;
}

// A float division is ptxas's fast path: MUFU.RCP, FCHK, four FFMA, the
// final FFMA, then `@!P0 BRA` over the slow path's call: seven instructions
// more than a multiply, the BRA waiting for FCHK's predicate.
TEST(PtxExpandTimed, FloatDivisionIssuesItsFastPathWithItsBranches) {
  Result div = run("div.rn.f32", 0x3f800000), mul = run("mul.rn.f32", 0x3f800000);  // d = 1.0f
  EXPECT_EQ(div.value, 1000003u);  // x / 1.0f, as many times: the bits unchanged
  EXPECT_EQ(div.warp_insts, mul.warp_insts + 7u * kChain);
  // At least the five dependent FFMA latencies and the MUFU's per division.
  EXPECT_GT(double(div.cycles) - double(mul.cycles), kChain * 5 * 4.0) << div.cycles << " vs " << mul.cycles;
}

const std::vector<std::string> kFenceSets = {"core.fence_cta_latency=10", "core.fence_latency=300",
                                             "core.fence_sys_latency=900"};

// A GPU or system fence is its MEMBAR (that scope's latency) and then ERRBAR,
// CGAERRBAR, CCTL.IVALL (SM-local: the CTA latency each); a CTA fence is the
// MEMBAR alone.
TEST(PtxExpandTimed, FencesHoldTheWarpForTheirScopesLatency) {
  Result cta = run("membar.cta", 1, kFenceSets), gpu = run("membar.gl", 1, kFenceSets),
         sys = run("membar.sys", 1, kFenceSets);
  EXPECT_EQ(gpu.warp_insts, cta.warp_insts + 3u * kChain);
  EXPECT_NEAR(double(gpu.cycles) - double(cta.cycles), kChain * (300.0 + 3 * 10 - 10), kChain * 2.0);
  EXPECT_NEAR(double(sys.cycles) - double(gpu.cycles), kChain * 600.0, kChain * 2.0);
}

// A release reduction waits behind a GPU fence (MEMBAR.ALL.GPU, then ERRBAR
// and CGAERRBAR); relaxed ones issue back to back.
TEST(PtxExpandTimed, ReleaseReductionsWaitBehindAGpuFence) {
  Result rel = run("red.release.gpu.global.add.u32", 1, kFenceSets),
         rlx = run("red.relaxed.gpu.global.add.u32", 1, kFenceSets);
  EXPECT_EQ(rel.value, 32u * kChain);  // every lane adds 1
  EXPECT_EQ(rlx.value, 32u * kChain);
  EXPECT_EQ(rel.warp_insts, rlx.warp_insts + 3u * kChain);
  EXPECT_NEAR((double(rel.cycles) - double(rlx.cycles)) / kChain, 300.0 + 2 * 10, 10.0)
      << rel.cycles << " vs " << rlx.cycles;
}

// An atomic whose result no instruction reads is a reduction, as ptxas makes
// it (RED): performed all the same, but its warp ends without waiting for
// it; a reduction's warp likewise (before, both waited at the end, `drain`).
TEST(PtxExpandTimed, AtomicsWithoutAReadResultDoNotHoldTheirWarp) {
  Result atom = run("atom.global.add.u32", 1), red = run("red.global.add.u32", 1);
  EXPECT_EQ(atom.value, 32u * kChain);
  EXPECT_EQ(red.value, 32u * kChain);
  // The warp's end waits a cycle or two for its last instructions, not for
  // a round trip to the L2 (over 200 cycles on qv100).
  EXPECT_LT(atom.drain, 10u);
  EXPECT_LT(red.drain, 10u);
  EXPECT_EQ(atom.warp_insts, red.warp_insts);
}

}  // namespace
}  // namespace ws::exec
