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

#include "config/param.h"
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

// Issue 17 item 9: exec's own watchdogs stop an endless kernel, timed (in
// cycles, kept as partial) and functional (in warp instructions).
TEST(ExecDeviceStop, TimedWatchdogStopsAnEndlessKernel) {
  std::string out = temp("watchdog");
  Device dev(timed(out, {"gpu.sms=2", "exec.watchdog_cycles=3000"}));
  const LoadedModule& m = dev.program().load(ptx::parse_module(kSpin, "spin.ptx"));
  try {
    dev.launch(one_warp(m, "spin"));
    FAIL() << "the endless kernel ended";
  } catch (const timing::KernelStopped& e) {
    EXPECT_NE(std::string(e.what()).find("exceeded exec.watchdog_cycles = 3000"), std::string::npos) << e.what();
    EXPECT_FALSE(e.partial.complete);
  }
}

// The endless kernel, functional, with the instruction watchdog at 10^5.
LaunchResult spin_with_low_watchdog(DeviceOptions o) {
  o.sets = {"exec.watchdog_warp_insts=100000"};
  Device dev(o);
  const LoadedModule& m = dev.program().load(ptx::parse_module(kSpin, "spin.ptx"));
  LaunchResult r = dev.launch(one_warp(m, "spin"));
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.failure, LaunchFailure::Watchdog);
  EXPECT_NE(r.error.find("exec.watchdog_warp_insts = 100000"), std::string::npos) << r.error;
  return r;
}

TEST(ExecDeviceStop, FunctionalWatchdogStopsAnEndlessKernel) {
  LaunchResult r = spin_with_low_watchdog(DeviceOptions{});
  // Stopped within a round (256 instructions) of the limit.
  EXPECT_GT(r.warp_insts, 100000u);
  EXPECT_LE(r.warp_insts, 100000u + 256);
}

// Functional with --trace-out: CTA by CTA, the limit applies to each CTA,
// and the launch fails as a watchdog stop too (not as a model error).
TEST(ExecDeviceStop, FunctionalWatchdogStopsAnEndlessKernelWhileTracing) {
  DeviceOptions o;
  o.trace_out = temp("watchdog-trace");
  spin_with_low_watchdog(o);
}

// A timed kernel whose generic atomic faults on its first lane: the fault is
// what is reported. The instruction's step then has no lane that resolved its
// generic space; it used to stop the run with "no SASS class for PTX
// instruction `atom.add.release.gpu.u32 ...`" instead.
TEST(ExecDeviceStop, TimedFaultInAGenericAtomicIsReportedAsTheFault) {
  const std::string ptx = test::kernel_ptx("bad", ".param .u64 out", R"(
    mov.u64 %rd1, 4096;
    atom.add.release.gpu.u32 %r1, [%rd1], 1;
)");
  Device dev(timed(temp("generic-atom"), {"gpu.sms=2"}));
  const LoadedModule& m = dev.program().load(ptx::parse_module(ptx, "bad.ptx"));
  std::string error;
  try {
    LaunchResult r = dev.launch(one_warp(m, "bad"));
    EXPECT_FALSE(r.ok);
    error = r.error;
  } catch (const std::exception& e) {
    error = e.what();
  }
  EXPECT_NE(error.find("illegal address 0x1000"), std::string::npos) << error;
  EXPECT_EQ(error.find("no SASS class"), std::string::npos) << error;
}

// Both watchdogs are on by default (a user's endless loop must end).
TEST(ExecDeviceStop, WatchdogsAreOnByDefault) {
  for (const char* key : {"exec.watchdog_warp_insts", "exec.watchdog_cycles"}) {
    const config::ParamInfo* p = config::ParamRegistry::instance().find(key);
    ASSERT_NE(p, nullptr) << key;
    EXPECT_GT(std::get<int64_t>(p->def), 0) << key;
  }
}

// Issue 17 item 5: a busy engine that moves nothing (every component ticks,
// the one read waits thousands of cycles for a 1 MHz DRAM) is stopped after
// gpu.progress_timeout_cycles with what each component waits for. With one
// engine and with partitions, where the cycles counted are the windows' (an
// SM with no work does not move the kernel's last busy cycle).
TEST(ExecDeviceStop, NoProgressNamesTheStuckComponents) {
  const std::string kLoad = test::kernel_ptx("load", ".param .u64 p", R"(
    ld.param.u64 %rd1, [p];
    ld.global.u32 %r1, [%rd1];
    st.global.u32 [%rd1], %r1;
)");
  for (const char* layout : {"gpu.partitions=one", "gpu.partitions=sm-memory"}) {
    SCOPED_TRACE(layout);
    Device dev(timed("", {layout, "gpu.sms=2", "gpu.activity_gating=false", "clock.dram_mhz=1", "dram.tRCD=1000",
                          "dram.CL=1000", "gpu.progress_timeout_cycles=100000"}));
    const LoadedModule& m = dev.program().load(ptx::parse_module(kLoad, "load.ptx"));
    Launch l = one_warp(m, "load");
    Addr a = *dev.memory().allocate(128);
    std::memcpy(l.params.data(), &a, sizeof a);
    try {
      dev.launch(l);
      ADD_FAILURE() << "the kernel ended";
    } catch (const timing::KernelStopped&) {
      ADD_FAILURE() << "stopped as by a cycle limit, not for lack of progress";
    } catch (const Error& e) {
      std::string what = e.what();
      EXPECT_NE(what.find("no progress in kernel 'load'"), std::string::npos) << what;
      EXPECT_NE(what.find("gpu.progress_timeout_cycles = 100000"), std::string::npos) << what;
      EXPECT_NE(what.find("dram channel"), std::string::npos) << what;
      EXPECT_NE(what.find(" reads and 0 writes queued"), std::string::npos) << what;
      EXPECT_NE(what.find("sm 0: 1 live warps"), std::string::npos) << what;
    }
  }
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
