// exec::Device: kernels through the cycle-level model (execution-driven), the
// trace it writes, and that replaying that trace gives the same cycles.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "config/config.h"
#include "e2e/sim_util.h"
#include "exec/device.h"
#include "exec/emu_test_util.h"
#include "frontend/ptx/parser.h"

namespace ws::exec {
namespace {

const std::string kVadd = test::vector_add();  // out[i] = a[i] + b[i] for i < n

// Per block: a tree reduction of 256 values in shared memory (divergent
// loop with barriers); out[block] = sum.
const std::string kReduce = test::kernel_ptx("reduce", ".param .u64 in, .param .u64 out", R"(
    .shared .align 4 .b8 buf[1024];
    ld.param.u64 %rd1, [in];
    ld.param.u64 %rd2, [out];
    mov.u32 %r1, %tid.x;
    mov.u32 %r2, %ctaid.x;
    shl.b32 %r3, %r2, 8;
    add.s32 %r4, %r3, %r1;
    mul.wide.u32 %rd3, %r4, 4;
    add.s64 %rd4, %rd1, %rd3;
    ld.global.u32 %r5, [%rd4];
    mov.u32 %r6, buf;
    shl.b32 %r7, %r1, 2;
    add.s32 %r8, %r6, %r7;
    st.shared.u32 [%r8], %r5;
    bar.sync 0;
    mov.u32 %r9, 128;
  LOOP:
    setp.ge.u32 %p1, %r1, %r9;
    @%p1 bra SKIP;
    shl.b32 %r10, %r9, 2;
    add.s32 %r11, %r8, %r10;
    ld.shared.u32 %r12, [%r11];
    ld.shared.u32 %r13, [%r8];
    add.s32 %r13, %r13, %r12;
    st.shared.u32 [%r8], %r13;
  SKIP:
    bar.sync 0;
    shr.u32 %r9, %r9, 1;
    setp.ne.u32 %p2, %r9, 0;
    @%p2 bra LOOP;
    setp.ne.u32 %p3, %r1, 0;
    @%p3 bra DONE;
    ld.shared.u32 %r14, [buf];
    mul.wide.u32 %rd5, %r2, 4;
    add.s64 %rd6, %rd2, %rd5;
    st.global.u32 [%rd6], %r14;
  DONE:
    ret;
)");

std::string temp(const std::string& name) {
  auto d = std::filesystem::temp_directory_path() / ("warpsim-dev-" + name + "-" + std::to_string(::getpid()));
  std::filesystem::remove_all(d);
  return d.string();
}

struct DeviceRun {
  std::unique_ptr<Device> dev;
  const LoadedModule* module = nullptr;

  explicit DeviceRun(DeviceOptions o) : dev(std::make_unique<Device>(o)) {}
  void load(const std::string& ptx) { module = &dev->program().load(ptx::parse_module(ptx, "t.ptx")); }
  template <class T>
  Addr upload(const std::vector<T>& v) {
    Addr a = *dev->memory().allocate(v.size() * sizeof(T));
    dev->copy_to_device(a, v.data(), v.size() * sizeof(T));
    return a;
  }
  LaunchResult launch(const std::string& name, Dim3 grid, Dim3 block, std::vector<uint64_t> args) {
    Launch l;
    l.module = module;
    l.kernel = module->ast.find_function(name);
    l.grid = grid, l.block = block;
    l.params.assign(l.kernel->param_bytes, 0);
    for (size_t i = 0; i < args.size(); ++i)
      std::memcpy(l.params.data() + l.kernel->params[i].offset, &args[i], l.kernel->params[i].size);
    return dev->launch(l);
  }
};

nlohmann::json read_json(const std::string& path) {
  std::ifstream f(path);
  return nlohmann::json::parse(f);
}

TEST(ExecDevice, TimedKernelsComputeAndCountLikeTheHardware) {
  DeviceOptions o;
  o.timing = true;
  o.print_summary = false;
  o.out_dir = temp("timed");
  o.trace_out = temp("timed-trace");
  // Data-path counts: instruction fetch (which reads code through the L2)
  // is left out.
  o.sets = {"l1i.perfect=true"};
  DeviceRun run(o);
  run.load(kVadd);
  const uint32_t n = 8192;
  std::vector<float> a(n), b(n);
  for (uint32_t i = 0; i < n; ++i) a[i] = float(i), b[i] = 2.0f;
  Addr da = run.upload(a), db = run.upload(b), dout = *run.dev->memory().allocate(n * 4);
  LaunchResult r = run.launch("vadd", Dim3{n / 256, 1, 1}, Dim3{256, 1, 1}, {da, db, dout, n});
  ASSERT_TRUE(r.ok) << r.error;
  std::vector<float> out(n);
  run.dev->copy_to_host(out.data(), dout, n * 4);
  for (uint32_t i = 0; i < n; ++i) ASSERT_EQ(out[i], float(i) + 2.0f) << i;
  run.dev->finish();

  nlohmann::json s = read_json(o.out_dir + "/stats.json");
  ASSERT_EQ(s["kernels"].size(), 1u);
  const auto& k = s["kernels"][0];
  EXPECT_EQ(k["name"], "vadd");
  // 19 instructions per warp, 256 warps. Every lane executes all but the
  // guarded branch out (n covers every thread, so no lane takes it): 18 per thread.
  EXPECT_EQ(k["warp_insts"].get<uint64_t>(), r.warp_insts);
  EXPECT_EQ(k["warp_insts"].get<uint64_t>(), 19u * n / 32);
  EXPECT_EQ(k["thread_insts"].get<uint64_t>(), 18u * n);
  // Two coalesced 4-byte loads per thread: 2 * 8192 * 4 / 32 = 2048 sectors at
  // L1 and (all L1 misses) at L2, where the copy engine left them: no DRAM read.
  EXPECT_EQ(k["l1d"]["reads"].get<uint64_t>(), 2048u);
  EXPECT_EQ(k["l2"]["reads"].get<uint64_t>(), 2048u);
  EXPECT_EQ(k["l2"]["read_hits"].get<uint64_t>(), 2048u);
  EXPECT_EQ(k["launch_gap_cycles"].get<uint64_t>(), 5000u);  // the first launch
  EXPECT_EQ(k["elapsed_cycles"].get<uint64_t>(), k["cycles"].get<uint64_t>() + 5000u);
  EXPECT_GT(run.dev->now_ns(), 0.0);
}

// The trace --trace-out writes replays to exactly the cycles of the timed run.
TEST(ExecDevice, WrittenTraceReplaysToTheSameCycles) {
  DeviceOptions o;
  o.timing = true;
  o.print_summary = false;
  o.out_dir = temp("replay");
  o.trace_out = temp("replay-trace");
  {
    DeviceRun run(o);
    run.load(kReduce);
    const uint32_t blocks = 40;
    std::vector<uint32_t> in(blocks * 256);
    for (size_t i = 0; i < in.size(); ++i) in[i] = static_cast<uint32_t>(i % 97);
    Addr din = run.upload(in), dout = *run.dev->memory().allocate(blocks * 4);
    LaunchResult r = run.launch("reduce", Dim3{blocks, 1, 1}, Dim3{256, 1, 1}, {din, dout});
    ASSERT_TRUE(r.ok) << r.error;
    std::vector<uint32_t> out(blocks);
    run.dev->copy_to_host(out.data(), dout, blocks * 4);
    for (uint32_t bl = 0; bl < blocks; ++bl) {
      uint32_t want = 0;
      for (uint32_t t = 0; t < 256; ++t) want += in[bl * 256 + t];
      ASSERT_EQ(out[bl], want) << bl;
    }
    run.dev->finish();
  }
  nlohmann::json s = read_json(o.out_dir + "/stats.json");
  auto cfg = ws::test::preset("qv100", {});
  ws::test::SimTotals replay = ws::test::simulate(o.trace_out, cfg);
  EXPECT_GT(replay.cycles, 0u);
  EXPECT_EQ(replay.cycles, s["kernels"][0]["cycles"].get<uint64_t>());
  EXPECT_EQ(replay.elapsed_cycles, s["kernels"][0]["elapsed_cycles"].get<uint64_t>());
  EXPECT_EQ(replay.warp_insts, s["kernels"][0]["warp_insts"].get<uint64_t>());
  EXPECT_EQ(replay.thread_insts, s["kernels"][0]["thread_insts"].get<uint64_t>());
}

TEST(ExecDevice, FaultInTimedKernelIsReportedNotThrown) {
  DeviceOptions o;
  o.timing = true;
  o.print_summary = false;
  DeviceRun run(o);
  run.load(kVadd);
  LaunchResult r = run.launch("vadd", Dim3{2, 1, 1}, Dim3{64, 1, 1}, {0x10, 0x10, 0x10, 128});
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.error.find("illegal address"), std::string::npos) << r.error;
}

TEST(ExecDevice, FactsDescribeThePreset) {
  DeviceOptions o;
  o.preset = "a100";
  Device d(o);
  EXPECT_EQ(d.facts().sms, 108);
  EXPECT_EQ(d.facts().cc_major, 8);
  EXPECT_EQ(d.facts().cc_minor, 0);
  EXPECT_NE(d.facts().name.find("A100"), std::string::npos);
}

}  // namespace
}  // namespace ws::exec

namespace ws::exec {
namespace {

// %clock64 around a chain of 8 dependent loads: timing-driven execution
// reads simulated cycles (each load is at least an L1 miss to L2, ~200
// cycles on QV100), functional execution only counts instructions.
const std::string kClockChain = test::kernel_ptx("chain", ".param .u64 p, .param .u64 out", R"(
    ld.param.u64 %rd1, [p];
    ld.param.u64 %rd9, [out];
    mov.u64 %rd2, %clock64;
    ld.global.cg.u64 %rd1, [%rd1];
    ld.global.cg.u64 %rd1, [%rd1];
    ld.global.cg.u64 %rd1, [%rd1];
    ld.global.cg.u64 %rd1, [%rd1];
    ld.global.cg.u64 %rd1, [%rd1];
    ld.global.cg.u64 %rd1, [%rd1];
    ld.global.cg.u64 %rd1, [%rd1];
    ld.global.cg.u64 %rd1, [%rd1];
    st.global.u64 [%rd9], %rd1;
    mov.u64 %rd3, %clock64;
    sub.s64 %rd4, %rd3, %rd2;
    st.global.u64 [%rd9+8], %rd4;
    ret;
)");

uint64_t clock_delta(bool timing) {
  DeviceOptions o;
  o.timing = timing;
  o.print_summary = false;
  DeviceRun run(o);
  run.load(kClockChain);
  // A pointer chain: word i holds the address of word i+1 (128 B apart).
  Addr base = *run.dev->memory().allocate(16 * 128);
  for (int i = 0; i < 16; ++i) {
    uint64_t next = base + uint64_t(i + 1) * 128;
    run.dev->copy_to_device(base + uint64_t(i) * 128, &next, 8);
  }
  Addr out = *run.dev->memory().allocate(16);
  LaunchResult r = run.launch("chain", Dim3{1, 1, 1}, Dim3{32, 1, 1}, {base, out});
  EXPECT_TRUE(r.ok) << r.error;
  uint64_t v[2];
  run.dev->copy_to_host(v, out, 16);
  EXPECT_EQ(v[0], base + 8 * 128);  // the chain was followed
  return v[1];
}

TEST(ExecDevice, ClockReadsSimulatedCyclesWhenTimed) {
  uint64_t functional = clock_delta(false), timed = clock_delta(true);
  std::printf("clock64 delta: functional %llu, timed %llu cycles\n", (unsigned long long)functional,
              (unsigned long long)timed);
  EXPECT_LT(functional, 20u);     // 11 instructions between the two reads
  EXPECT_GT(timed, 8u * 150u);    // 8 dependent trips to L2 and back
  EXPECT_LT(timed, 8u * 1000u);
}

}  // namespace
}  // namespace ws::exec

namespace ws::exec {
namespace {

// Two identical timed runs give identical stats (everything but host time).
TEST(ExecDevice, TimedRunsAreDeterministic) {
  auto run_once = [](const std::string& tag) {
    DeviceOptions o;
    o.timing = true;
    o.print_summary = false;
    o.out_dir = temp("det-" + tag);
    DeviceRun run(o);
    run.load(kReduce);
    std::vector<uint32_t> in(64 * 256);
    for (size_t i = 0; i < in.size(); ++i) in[i] = static_cast<uint32_t>(i * 7 % 101);
    Addr din = run.upload(in), dout = *run.dev->memory().allocate(64 * 4);
    EXPECT_TRUE(run.launch("reduce", Dim3{64, 1, 1}, Dim3{256, 1, 1}, {din, dout}).ok);
    run.dev->finish();
    nlohmann::json s = read_json(o.out_dir + "/stats.json");
    s.erase("sim");
    return s;
  };
  nlohmann::json a = run_once("a"), b = run_once("b");
  EXPECT_GT(a["total"]["cycles"].get<uint64_t>(), 0u);
  EXPECT_EQ(a, b);
}

}  // namespace
}  // namespace ws::exec
