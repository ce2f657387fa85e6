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
  LaunchResult launch(const std::string& name, Dim3 grid, Dim3 block, std::vector<uint64_t> args,
                      StreamRef stream = StreamRef{}) {
    Launch l;
    l.module = module;
    l.kernel = module->ast.find_function(name);
    l.grid = grid, l.block = block;
    l.params.assign(l.kernel->param_bytes, 0);
    for (size_t i = 0; i < args.size(); ++i)
      std::memcpy(l.params.data() + l.kernel->params[i].offset, &args[i], l.kernel->params[i].size);
    return dev->launch(l, stream);
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

// A copy on the device reads its source through the L2 and writes its
// destination there: a kernel reading the copy hits in the L2, and the trace
// (its MemcpyDtoD lines) replays to the same cycles. Without the copy's
// lines the same reads go to DRAM.
TEST(ExecDevice, ADeviceCopyLeavesItsLinesInTheL2) {
  auto run_with = [](bool copy, const std::string& name) {
    DeviceOptions o;
    o.timing = true;
    o.print_summary = false;
    o.out_dir = temp(name);
    o.trace_out = temp(name + "-trace");
    o.sets = {"l1i.perfect=true"};
    DeviceRun run(o);
    run.load(kVadd);
    const uint32_t n = 8192;
    std::vector<float> a(n, 1.0f);
    Addr da = run.upload(a), db = *run.dev->memory().allocate(n * 4), dout = *run.dev->memory().allocate(n * 4);
    if (copy) run.dev->copy_on_device(db, da, n * 4);
    EXPECT_TRUE(run.launch("vadd", Dim3{n / 256, 1, 1}, Dim3{256, 1, 1}, {da, db, dout, n}).ok);
    run.dev->finish();
    nlohmann::json s = read_json(o.out_dir + "/stats.json");
    ws::test::SimTotals replay = ws::test::simulate(o.trace_out, ws::test::preset("qv100", {"l1i.perfect=true"}));
    EXPECT_EQ(replay.cycles, s["kernels"][0]["cycles"].get<uint64_t>()) << name;
    return s["kernels"][0];
  };
  nlohmann::json copied = run_with(true, "d2d"), fresh = run_with(false, "d2d-none");
  EXPECT_EQ(copied["l2"]["reads"].get<uint64_t>(), 2048u);
  EXPECT_EQ(copied["l2"]["read_hits"].get<uint64_t>(), 2048u);
  EXPECT_EQ(fresh["l2"]["read_hits"].get<uint64_t>(), 1024u);  // a only: b was never written
  EXPECT_EQ(copied["launch_gap_cycles"], fresh["launch_gap_cycles"]);  // the host did not wait
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

// On a created stream a timed launch is queued: it returns at once, and its
// fault is found at the synchronisation point that runs it, reported once.
TEST(ExecDevice, FaultInAQueuedKernelComesBackAtTheSynchronisation) {
  DeviceOptions o;
  o.timing = true;
  o.print_summary = false;
  DeviceRun run(o);
  run.load(kVadd);
  LaunchResult r = run.launch("vadd", Dim3{2, 1, 1}, Dim3{64, 1, 1}, {0x10, 0x10, 0x10, 128}, StreamRef{2, true});
  EXPECT_TRUE(r.ok);
  EXPECT_FALSE(run.dev->take_fault());  // nothing ran yet
  run.dev->synchronize_stream(StreamRef{2, true});
  std::optional<Device::Fault> f = run.dev->take_fault();
  ASSERT_TRUE(f);
  EXPECT_EQ(f->kind, Device::Fault::Kind::Program);
  EXPECT_EQ(f->failure, LaunchFailure::Fault);
  EXPECT_NE(f->what.find("illegal address"), std::string::npos) << f->what;
  EXPECT_FALSE(run.dev->take_fault());
}

// Copies in stream order (timed): an asynchronous upload, a kernel and an
// asynchronous download queued on one stream return at once and move no
// data; the download then reads what the kernel wrote, and the upload's
// data was in place before the kernel read it. A pageable download (the
// host waits for its stream) returns with the data. Functional runs copy at
// once and give the same bytes.
TEST(ExecDevice, AsyncCopiesRunInStreamOrder) {
  for (bool timed : {true, false}) {
    DeviceOptions o;
    o.timing = timed;
    o.print_summary = false;
    DeviceRun run(o);
    run.load(kVadd);
    const uint32_t n = 1024;
    std::vector<float> a(n), b(n, 0.5f), out(n, -1.0f), again(n, -1.0f);
    for (uint32_t i = 0; i < n; ++i) a[i] = float(i);
    Addr da = *run.dev->memory().allocate(n * 4), db = run.upload(b), dout = *run.dev->memory().allocate(n * 4);
    StreamRef s{2, true};
    run.dev->copy_to_device(da, a.data(), n * 4, s, CopyWait::None);
    LaunchResult r = run.launch("vadd", Dim3{n / 256, 1, 1}, Dim3{256, 1, 1}, {da, db, dout, n}, s);
    ASSERT_TRUE(r.ok) << r.error;
    run.dev->copy_to_host(out.data(), dout, n * 4, s, CopyWait::None);
    if (timed) {
      EXPECT_EQ(out[5], -1.0f);  // queued, not run
    }
    run.dev->copy_to_host(again.data(), dout, n * 4, StreamRef{3, true}, CopyWait::Stream);
    run.dev->synchronize_stream(s);
    for (uint32_t i = 0; i < n; ++i) ASSERT_EQ(out[i], float(i) + 0.5f) << i;
    // Stream 3 does not wait for stream 2: timed, its download starts at
    // once on the other engine and reads dout before the kernel (still
    // waiting for the upload) wrote it: fresh memory, zeros.
    EXPECT_EQ(again[7], timed ? 0.0f : 7.5f);
    run.dev->finish();
  }
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

namespace ws::exec {
namespace {

// A pointer chase over eight words 128 B apart, twice: the first pass brings
// the lines to the L1 (the copy left them in L2), the second is timed with
// %clock64. `op` is the loads' cache operator (".cg" or ""). The instruction
// cache is perfect: the timed pass's first fetch of a new 128 B line of code
// (212 cycles) would otherwise add ~26 cycles to each 28-cycle L1 hit.
const std::string kChaseTwice = R"(
    ld.param.u64 %rd1, [p];
    ld.param.u64 %rd9, [out];
    mov.u64 %rd5, %rd1;
    ld.global%OP%.u64 %rd5, [%rd5];
    ld.global%OP%.u64 %rd5, [%rd5];
    ld.global%OP%.u64 %rd5, [%rd5];
    ld.global%OP%.u64 %rd5, [%rd5];
    ld.global%OP%.u64 %rd5, [%rd5];
    ld.global%OP%.u64 %rd5, [%rd5];
    ld.global%OP%.u64 %rd5, [%rd5];
    ld.global%OP%.u64 %rd5, [%rd5];
    st.global.u64 [%rd9+16], %rd5;
    mov.u64 %rd2, %clock64;
    ld.global%OP%.u64 %rd1, [%rd1];
    ld.global%OP%.u64 %rd1, [%rd1];
    ld.global%OP%.u64 %rd1, [%rd1];
    ld.global%OP%.u64 %rd1, [%rd1];
    ld.global%OP%.u64 %rd1, [%rd1];
    ld.global%OP%.u64 %rd1, [%rd1];
    ld.global%OP%.u64 %rd1, [%rd1];
    ld.global%OP%.u64 %rd1, [%rd1];
    st.global.u64 [%rd9], %rd1;
    mov.u64 %rd3, %clock64;
    sub.s64 %rd4, %rd3, %rd2;
    st.global.u64 [%rd9+8], %rd4;
    ret;
)";

struct ChaseResult {
  uint64_t cycles_per_load = 0;
  uint64_t kernel_cycles = 0;
  uint64_t replay_cycles = 0;
};

ChaseResult chase_twice(const std::string& op, const std::string& tag) {
  std::string body = kChaseTwice;
  for (size_t at; (at = body.find("%OP%")) != std::string::npos;) body.replace(at, 4, op);
  DeviceOptions o;
  o.timing = true;
  o.print_summary = false;
  o.out_dir = temp("chase-" + tag);
  o.trace_out = temp("chase-trace-" + tag);
  o.sets = {"l1i.perfect=true"};
  ChaseResult res;
  {
    DeviceRun run(o);
    run.load(test::kernel_ptx("chase", ".param .u64 p, .param .u64 out", body));
    Addr base = *run.dev->memory().allocate(16 * 128);
    for (int i = 0; i < 16; ++i) {
      uint64_t next = base + uint64_t(i + 1) * 128;
      run.dev->copy_to_device(base + uint64_t(i) * 128, &next, 8);
    }
    Addr out = *run.dev->memory().allocate(24);
    LaunchResult r = run.launch("chase", Dim3{1, 1, 1}, Dim3{32, 1, 1}, {base, out});
    EXPECT_TRUE(r.ok) << r.error;
    uint64_t v[2];
    run.dev->copy_to_host(v, out, 16);
    EXPECT_EQ(v[0], base + 8 * 128);
    res.cycles_per_load = v[1] / 8;
    run.dev->finish();
  }
  res.kernel_cycles = read_json(o.out_dir + "/stats.json")["kernels"][0]["cycles"].get<uint64_t>();
  res.replay_cycles = ws::test::simulate(o.trace_out, ws::test::preset("qv100", o.sets)).cycles;
  return res;
}

// QV100: an L1 hit is 28 cycles load to use, an L2 hit 212 (docs/memory-system.md).
TEST(ExecDeviceCacheOp, ChaseWithCgLoadsMeasuresL2AndDefaultLoadsL1) {
  ChaseResult dflt = chase_twice("", "default"), cg = chase_twice(".cg", "cg");
  std::printf("second-pass cycles per load: default %llu, .cg %llu\n", (unsigned long long)dflt.cycles_per_load,
              (unsigned long long)cg.cycles_per_load);
  EXPECT_GE(dflt.cycles_per_load, 28u);
  EXPECT_LT(dflt.cycles_per_load, 40u);
  EXPECT_GE(cg.cycles_per_load, 212u);
  EXPECT_LT(cg.cycles_per_load, 240u);
  // The trace carries the operator: its replay times the same loads.
  EXPECT_EQ(cg.replay_cycles, cg.kernel_cycles);
  EXPECT_EQ(dflt.replay_cycles, dflt.kernel_cycles);
  EXPECT_GT(cg.kernel_cycles, dflt.kernel_cycles + 8 * 150);
}

// Warp 0 runs a chain of 32 dependent FFMAs (4 cycles each on QV100) before
// a barrier that warps 1-3 reach at once. Each warp records %clock64 at
// its start (t0), after its chain's result is used (t1) and after the
// barrier (t2): a warp cannot leave the barrier before the slowest warp
// has reached it.
const std::string kBarrierClock = test::kernel_ptx("barclk", ".param .u64 out", R"(
    ld.param.u64 %rd9, [out];
    mov.u32 %r1, %tid.x;
    shr.u32 %r2, %r1, 5;
    and.b32 %r3, %r1, 31;
    mov.u64 %rd1, %clock64;
    mov.f32 %f1, 0f3F800000;
    setp.ne.u32 %p1, %r2, 0;
    @%p1 bra JOIN;
)" + [] {
  std::string chain;
  for (int i = 0; i < 32; ++i) chain += "    fma.rn.f32 %f1, %f1, %f1, %f1;\n";
  return chain;
}() + R"(
  JOIN:
    mov.b32 %r4, %f1;
    mov.u64 %rd2, %clock64;
    bar.sync 0;
    mov.u64 %rd3, %clock64;
    setp.ne.u32 %p2, %r3, 0;
    @%p2 bra DONE;
    mul.wide.u32 %rd4, %r2, 32;
    add.s64 %rd5, %rd9, %rd4;
    st.global.u64 [%rd5], %rd1;
    st.global.u64 [%rd5+8], %rd2;
    st.global.u64 [%rd5+16], %rd3;
    st.global.u32 [%rd5+24], %r4;
  DONE:
    ret;
)");

// Runs `kernel` (one CTA of `threads`, its one parameter an output buffer)
// timed on QV100 and copies the buffer's first `bytes` to `to`.
void run_timed(const std::string& ptx, const std::string& kernel, uint32_t threads, void* to, size_t bytes,
               std::vector<std::string> sets = {}) {
  DeviceOptions o;
  o.timing = true;
  o.print_summary = false;
  o.sets = std::move(sets);
  DeviceRun run(o);
  run.load(ptx);
  Addr out = *run.dev->memory().allocate(bytes);
  LaunchResult r = run.launch(kernel, Dim3{1, 1, 1}, Dim3{threads, 1, 1}, {out});
  ASSERT_TRUE(r.ok) << r.error;
  run.dev->copy_to_host(to, out, bytes);
}

TEST(ExecDeviceClock, ClockAfterABarrierIsNotBeforeTheSlowestArrival) {
  uint64_t t[4][4];
  run_timed(kBarrierClock, "barclk", 128, t, sizeof t);
  uint64_t slowest = 0;
  for (auto& w : t) slowest = std::max(slowest, w[1]);
  EXPECT_GE(t[0][1] - t[0][0], 32u * 4u) << "warp 0's chain";
  for (int w = 0; w < 4; ++w) {
    EXPECT_GT(t[w][2], slowest) << "warp " << w << " left the barrier at " << t[w][2];
    EXPECT_LT(t[w][2], slowest + 40) << "warp " << w;
  }
}

// Eight warps (two per sub-core) of 64 FFMAs in four independent chains,
// between two barriers; thread 0 times them. QV100's peak is 4 sub-cores x
// 32 lanes / ii 2 = 64 FFMA lanes per cycle per SM: the figure a benchmark
// prints must not exceed it, and with eight chains per sub-core (latency 4)
// and a perfect instruction cache it comes close.
const std::string kFmaRate = test::kernel_ptx("fmarate", ".param .u64 out", R"(
    ld.param.u64 %rd9, [out];
    mov.u32 %r1, %tid.x;
    mov.f32 %f1, 0f3F800000;
    mov.f32 %f2, 0f3F800000;
    mov.f32 %f3, 0f3F800000;
    mov.f32 %f4, 0f3F800000;
    mov.f32 %f6, 0f3F000000;
    mov.f32 %f7, 0f3F000000;
    bar.sync 0;
    mov.u64 %rd1, %clock64;
)" + [] {
  std::string body;
  for (int i = 0; i < 16; ++i)
    for (int c = 1; c <= 4; ++c) {
      std::string f = "%f" + std::to_string(c);
      body += "    fma.rn.f32 " + f + ", " + f + ", %f6, %f7;\n";
    }
  return body;
}() + R"(
    bar.sync 0;
    mov.u64 %rd2, %clock64;
    add.f32 %f5, %f1, %f4;
    setp.ne.u32 %p1, %r1, 0;
    @%p1 bra DONE;
    st.global.u64 [%rd9], %rd1;
    st.global.u64 [%rd9+8], %rd2;
    st.global.f32 [%rd9+16], %f5;
  DONE:
    ret;
)");

TEST(ExecDeviceClock, TimedFfmaRateStaysWithinThePeak) {
  uint64_t t[3];
  run_timed(kFmaRate, "fmarate", 256, t, sizeof t, {"l1i.perfect=true"});
  ASSERT_GT(t[1], t[0]);
  double rate = 256.0 * 64 / double(t[1] - t[0]);
  std::printf("timed FFMA rate: %.1f lanes per cycle per SM (%llu cycles)\n", rate,
              (unsigned long long)(t[1] - t[0]));
  EXPECT_LE(rate, 64.0);
  EXPECT_GT(rate, 40.0);
}

}  // namespace
}  // namespace ws::exec
