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
// op without operands (a fence) is repeated kChain times instead.
std::string chain_ptx(const std::string& op) {
  std::string body = "    ld.param.u64 %rd1, [p];\n    ld.param.u32 %r2, [d];\n    mov.u32 %r1, 1000003;\n";
  bool fence = op.rfind("membar", 0) == 0;
  for (int i = 0; i < kChain; ++i) body += "    " + op + (fence ? ";\n" : " %r1, %r1, %r2;\n");
  body += "    st.global.u32 [%rd1], %r1;\n    ret;\n";
  return test::kernel_ptx("chain", ".param .u64 p, .param .u32 d", body);
}

struct Result {
  uint64_t cycles = 0, warp_insts = 0;
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

TEST(PtxExpandTimed, FencesHoldTheWarpForTheirScopesLatency) {
  std::vector<std::string> sets = {"core.fence_cta_latency=10", "core.fence_latency=300",
                                   "core.fence_sys_latency=900"};
  Result cta = run("membar.cta", 1, sets), gpu = run("membar.gl", 1, sets), sys = run("membar.sys", 1, sets);
  EXPECT_NEAR(double(gpu.cycles) - double(cta.cycles), kChain * 290.0, kChain * 2.0);
  EXPECT_NEAR(double(sys.cycles) - double(gpu.cycles), kChain * 600.0, kChain * 2.0);
}

}  // namespace
}  // namespace ws::exec
