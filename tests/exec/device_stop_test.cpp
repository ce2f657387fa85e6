// exec::Device with the timing model, stopped before a kernel ends (issue 17
// items 10 and 11): the kernel is kept as partial in stats.json, and a
// stats.json written while the program runs never claims to be complete.
#include <gtest/gtest.h>

#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "exec/device.h"
#include "exec/emu_test_util.h"
#include "frontend/ptx/parser.h"
#include "timing/gpu/gpu.h"

namespace ws::exec {
namespace {

// One warp counting forever: only a stop ends it.
const std::string kSpin = test::kernel_ptx("spin", ".param .u64 out", R"(
    mov.u32 %r1, 0;
  LOOP:
    add.u32 %r1, %r1, 1;
    bra LOOP;
)");

std::string temp(const std::string& name) {
  auto d = std::filesystem::temp_directory_path() / ("warpsim-devstop-" + name + "-" + std::to_string(::getpid()));
  std::filesystem::remove_all(d);
  return d.string();
}

nlohmann::json read_json(const std::string& path) {
  std::ifstream f(path);
  return nlohmann::json::parse(f);
}

// One warp of kernel `name` (no parameters are read).
Launch one_warp(const LoadedModule& m, const char* name) {
  Launch l;
  l.module = &m;
  l.kernel = m.ast.find_function(name);
  l.grid = Dim3{1, 1, 1};
  l.block = Dim3{32, 1, 1};
  l.params.assign(l.kernel->param_bytes, 0);
  return l;
}

DeviceOptions timed(const std::string& out, std::vector<std::string> sets) {
  DeviceOptions o;
  o.timing = true;
  o.print_summary = false;
  o.out_dir = out;
  o.sets = std::move(sets);
  return o;
}

TEST(ExecDeviceStop, MaxCyclesKeepsThePartialKernel) {
  std::string out = temp("maxcyc");
  Device dev(timed(out, {"gpu.sms=2", "gpu.max_cycles=3000"}));
  const LoadedModule& m = dev.program().load(ptx::parse_module(kSpin, "spin.ptx"));
  EXPECT_THROW(dev.launch(one_warp(m, "spin")), timing::KernelStopped);
  nlohmann::json s = read_json(out + "/stats.json");
  EXPECT_EQ(s["complete"], false);
  EXPECT_NE(s["error"].get<std::string>().find("exceeded gpu.max_cycles = 3000"), std::string::npos) << s["error"];
  ASSERT_EQ(s["kernels"].size(), 1u);
  EXPECT_EQ(s["kernels"][0]["complete"], false);
  EXPECT_GT(s["kernels"][0]["cycles"].get<uint64_t>(), 3000u);
  // The loop is two instructions; over 3000 cycles one warp issues hundreds.
  EXPECT_GT(s["kernels"][0]["warp_insts"].get<uint64_t>(), 100u);
}

// Written after each kernel while the program still runs: not complete
// until finish() (the program's exit) writes it.
TEST(ExecDeviceStop, StatsWrittenMidProgramAreNotComplete) {
  const std::string kOne = test::kernel_ptx("one", ".param .u64 out", "    ret;\n");
  std::string out = temp("midway");
  Device dev(timed(out, {"gpu.sms=2"}));
  const LoadedModule& m = dev.program().load(ptx::parse_module(kOne, "one.ptx"));
  ASSERT_TRUE(dev.launch(one_warp(m, "one")).ok);
  nlohmann::json mid = read_json(out + "/stats.json");
  EXPECT_EQ(mid["complete"], false);
  EXPECT_NE(mid["error"].get<std::string>().find("in progress"), std::string::npos);
  EXPECT_EQ(mid["kernels"].size(), 1u);
  dev.finish();
  nlohmann::json done = read_json(out + "/stats.json");
  EXPECT_EQ(done["complete"], true);
  EXPECT_TRUE(done["error"].is_null());
}

// Ctrl-C while a timed kernel runs: stats.json gets the partial kernel, then
// the process ends as SIGINT ends it. In a death-test child: the process dies.
TEST(ExecDeviceStopDeathTest, InterruptWritesThePartialKernelThenDies) {
  std::string out = temp("sigint");  // the forked child ("fast" death-test style) writes here
  auto body = [&] {
    // The safety net, should the interrupt be ignored: the child then exits
    // normally and the death test fails.
    Device dev(timed(out, {"gpu.sms=2", "gpu.max_cycles=200000000"}));
    const LoadedModule& m = dev.program().load(ptx::parse_module(kSpin, "spin.ptx"));
    std::thread([] {
      std::this_thread::sleep_for(std::chrono::milliseconds(500));
      kill(getpid(), SIGINT);
    }).detach();
    try {
      dev.launch(one_warp(m, "spin"));
    } catch (...) {
    }
    std::exit(0);
  };
  EXPECT_EXIT(body(), testing::KilledBySignal(SIGINT), "interrupted by SIGINT in kernel 'spin'");
  nlohmann::json s = read_json(out + "/stats.json");
  EXPECT_EQ(s["complete"], false);
  EXPECT_EQ(s["signal"], "SIGINT");
  ASSERT_EQ(s["kernels"].size(), 1u);
  EXPECT_EQ(s["kernels"][0]["complete"], false);
  EXPECT_GT(s["kernels"][0]["warp_insts"].get<uint64_t>(), 0u);
}

}  // namespace
}  // namespace ws::exec
