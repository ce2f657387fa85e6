// What the emulator hands a timing model: the cache operator of each memory
// instruction, and %clock read at the time the model asks for the
// instruction after it (the cycle it issues the clock read).
#include <gtest/gtest.h>

#include "exec/emu_test_util.h"

namespace ws::exec {
namespace {

using ir::CacheOp;

struct Recorder : WarpObserver {
  std::vector<WarpStep> steps;
  void on_step(const WarpStep& s) override { steps.push_back(s); }
};

const std::string kCacheOps = test::kernel_ptx("ops", ".param .u64 p", R"(
    ld.param.u64 %rd1, [p];
    ld.global.u32 %r1, [%rd1];
    ld.global.ca.u32 %r2, [%rd1];
    ld.global.cg.u32 %r3, [%rd1];
    ld.global.cs.u32 %r4, [%rd1];
    ld.global.lu.u32 %r5, [%rd1];
    ld.global.cv.u32 %r6, [%rd1];
    ld.global.nc.u32 %r7, [%rd1];
    ld.global.nc.cg.u32 %r7, [%rd1];
    ld.volatile.global.u32 %r8, [%rd1];
    ld.relaxed.gpu.global.u32 %r9, [%rd1];
    ld.acquire.sys.global.u32 %r9, [%rd1];
    ld.relaxed.cta.global.u32 %r9, [%rd1];
    st.global.u32 [%rd1], %r1;
    st.global.wb.u32 [%rd1], %r1;
    st.global.cg.u32 [%rd1], %r1;
    st.global.cs.u32 [%rd1], %r1;
    st.global.wt.u32 [%rd1], %r1;
    st.volatile.global.u32 [%rd1], %r1;
    ret;
)");

TEST(EmuTimed, MemoryStepsCarryTheirCacheOperator) {
  test::Harness h;
  h.program.set_schedule(false);  // the steps in the order listed (scheduled, the two writes of %r7 would lead)
  h.load(kCacheOps);
  Addr p = h.buffer(std::vector<uint32_t>(4, 7));
  Launch l = h.make_launch("ops", Dim3{1, 1, 1}, Dim3{32, 1, 1});
  std::memcpy(l.params.data(), &p, 8);
  Recorder rec;
  LaunchResult r = h.emu.run_cta(l, Dim3{0, 0, 0}, &rec);
  ASSERT_TRUE(r.ok) << r.error;
  std::vector<CacheOp> got;
  for (const WarpStep& s : rec.steps)
    if (s.space == ptx::StateSpace::Global) got.push_back(s.cache_op);
  const std::vector<CacheOp> want = {
      CacheOp::Default,     CacheOp::CacheAll,    CacheOp::CacheGlobal, CacheOp::Streaming, CacheOp::LastUse,
      CacheOp::Volatile,    CacheOp::NonCoherent, CacheOp::CacheGlobal, CacheOp::Volatile,  CacheOp::CacheGlobal,
      CacheOp::Volatile,    CacheOp::Default,     CacheOp::Default,     CacheOp::WriteBack, CacheOp::CacheGlobal,
      CacheOp::Streaming,   CacheOp::WriteThrough, CacheOp::Volatile};
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i)
    EXPECT_EQ(got[i], want[i]) << "global access " << i << ": got ." << ir::cache_op_name(got[i]) << ", want ."
                               << ir::cache_op_name(want[i]);
}

// A cache operator where PTX gives it no meaning is still ignored (as before).
TEST(EmuTimed, CacheWordsElsewhereAreIgnored) {
  test::Harness h;
  h.load(test::kernel_ptx("k", ".param .u64 p", R"(
    ld.param.u64 %rd1, [p];
    atom.global.relaxed.gpu.add.u32 %r1, [%rd1], 1;
    ret;
)"));
  Addr p = h.buffer(std::vector<uint32_t>(1, 0));
  EXPECT_TRUE(h.launch("k", Dim3{1, 1, 1}, Dim3{32, 1, 1}, p).ok);
  EXPECT_EQ(h.read<uint32_t>(p, 1)[0], 32u);
}

// ld.const keeps its space for the timing model (which sends it to the
// constant cache) and carries the constant's global address in every lane;
// its value is read from the module constant as before.
TEST(EmuTimed, ConstLoadsAreConstStepsWithGlobalAddresses) {
  test::Harness h;
  h.load(test::kernel_ptx("k", ".param .u64 p", R"(
    ld.param.u64 %rd1, [p];
    mov.u32 %r2, %tid.x;
    and.b32 %r2, %r2, 1;
    mul.wide.u32 %rd2, %r2, 4;
    mov.u64 %rd3, table;
    add.u64 %rd3, %rd3, %rd2;
    ld.const.u32 %r1, [%rd3];
    st.global.u32 [%rd1], %r1;
    ret;
)", ".const .align 4 .b32 table[2] = {7, 9};"));
  Addr p = h.buffer(std::vector<uint32_t>(1, 0));
  Launch l = h.make_launch("k", Dim3{1, 1, 1}, Dim3{32, 1, 1});
  std::memcpy(l.params.data(), &p, 8);
  struct ConstRecorder : WarpObserver {  // the addresses live only during on_step
    std::vector<std::vector<uint64_t>> loads;
    void on_step(const WarpStep& s) override {
      if (s.space == ptx::StateSpace::Const && s.addrs) loads.emplace_back(s.addrs, s.addrs + 32);
    }
  } rec;
  LaunchResult r = h.emu.run_cta(l, Dim3{0, 0, 0}, &rec);
  ASSERT_TRUE(r.ok) << r.error;
  Addr table = h.program.symbol("table")->first;
  ASSERT_EQ(rec.loads.size(), 1u);
  for (unsigned lane = 0; lane < 32; ++lane) EXPECT_EQ(rec.loads[0][lane], table + 4 * (lane % 2)) << lane;
  EXPECT_EQ(h.read<uint32_t>(p, 1)[0], 9u);  // the last lane (31, odd) stores last
}

// The clock read is handed over when asked for but executed only when the
// model asks for the instruction after it: it reads that later time.
TEST(EmuTimed, ClockReadsTheCycleOfTheNextRequest) {
  test::Harness h;
  uint64_t now = 0;
  h.emu.set_clock([&now] { return now; });
  h.load(test::kernel_ptx("clk", ".param .u64 out", R"(
    ld.param.u64 %rd9, [out];
    mov.u64 %rd1, %clock64;
    mov.u64 %rd2, %clock64;
    sub.s64 %rd3, %rd2, %rd1;
    st.global.u64 [%rd9], %rd1;
    st.global.u64 [%rd9+8], %rd3;
    ret;
)"));
  Addr out = h.buffer(std::vector<uint64_t>(2, 0));
  Launch l = h.make_launch("clk", Dim3{1, 1, 1}, Dim3{32, 1, 1});
  std::memcpy(l.params.data(), &out, 8);
  Recorder rec;
  std::unique_ptr<CtaRun> run = h.emu.start_cta(l, Dim3{0, 0, 0}, &rec);
  const uint64_t asked[] = {5, 10, 70, 100, 101, 102, 103};  // the model's cycle at each request
  size_t n = 0;
  for (uint64_t t : asked) {
    now = t;
    CtaRun::Status s = run->step(0);
    if (s == CtaRun::Status::Done) break;
    ASSERT_EQ(s, CtaRun::Status::Stepped) << run->result().error;
    ++n;
  }
  ASSERT_EQ(n, 7u);  // ld.param, two movs, sub, two stores, ret
  EXPECT_EQ(rec.steps.size(), 7u);
  now = 200;
  EXPECT_EQ(run->step(0), CtaRun::Status::Done);
  std::vector<uint64_t> v = h.read<uint64_t>(out, 2);
  EXPECT_EQ(v[0], 70u);  // the first mov was asked for at 10, its successor at 70
  EXPECT_EQ(v[1], 30u);  // the second mov: asked for at 70, its successor at 100
}

// Without a simulated clock (functional runs) nothing is held back.
TEST(EmuTimed, FunctionalClockCountsInstructions) {
  test::Harness h;
  h.load(test::kernel_ptx("clk", ".param .u64 out", R"(
    ld.param.u64 %rd9, [out];
    mov.u64 %rd1, %clock64;
    add.s64 %rd4, %rd9, 0;
    mov.u64 %rd2, %clock64;
    sub.s64 %rd3, %rd2, %rd1;
    st.global.u64 [%rd9], %rd3;
    ret;
)"));
  Addr out = h.buffer(std::vector<uint64_t>(1, 0));
  ASSERT_TRUE(h.launch("clk", Dim3{1, 1, 1}, Dim3{32, 1, 1}, out).ok);
  EXPECT_EQ(h.read<uint64_t>(out, 1)[0], 2u);
}

}  // namespace
}  // namespace ws::exec
