// SIMT behaviour: divergence and reconvergence, loops, barriers, warps.
#include "exec/emu_test_util.h"

namespace ws::exec::test {
namespace {

TEST(EmuSimt, VectorAddAcrossBlocksWithTail) {
  Harness h;
  h.load(vector_add());
  const uint32_t n = 1000;
  std::vector<float> a(n), b(n);
  for (uint32_t i = 0; i < n; ++i) a[i] = float(i), b[i] = 0.5f * float(i);
  Addr da = h.buffer(a), db = h.buffer(b), dout = h.buffer(std::vector<float>(n + 24, -1.0f));
  LaunchResult r = h.launch("vadd", Dim3{4, 1, 1}, Dim3{256, 1, 1}, da, db, dout, n);
  ASSERT_TRUE(r.ok) << r.error;
  std::vector<float> out = h.read<float>(dout, n + 24);
  for (uint32_t i = 0; i < n; ++i) ASSERT_EQ(out[i], 1.5f * float(i)) << i;
  EXPECT_EQ(out[n], -1.0f);  // the guard kept the tail threads from storing
  EXPECT_GT(r.thread_insts, 18u * n);
}

// if (tid & 1) x = tid * 10 else x = -tid; then every lane adds 1000 after the join.
TEST(EmuSimt, IfElseReconvergesBeforeTheJoin) {
  std::string ptx = kernel_ptx("k", ".param .u64 out", R"(
    ld.param.u64 %rd1, [out];
    mov.u32 %r1, %tid.x;
    and.b32 %r2, %r1, 1;
    setp.eq.s32 %p1, %r2, 0;
    @%p1 bra ELSE;
    mul.lo.s32 %r3, %r1, 10;
    bra.uni JOIN;
  ELSE:
    neg.s32 %r3, %r1;
  JOIN:
    add.s32 %r3, %r3, 1000;
    activemask.b32 %r4;
    mul.wide.u32 %rd2, %r1, 8;
    add.s64 %rd3, %rd1, %rd2;
    st.global.v2.u32 [%rd3], {%r3, %r4};
    ret;
  )");
  Harness h;
  h.load(ptx);
  Addr out = h.buffer(std::vector<uint32_t>(64, 0));
  LaunchResult r = h.launch("k", Dim3{1, 1, 1}, Dim3{32, 1, 1}, out);
  ASSERT_TRUE(r.ok) << r.error;
  auto v = h.read<int32_t>(out, 64);
  for (int t = 0; t < 32; ++t) {
    EXPECT_EQ(v[2 * t], (t & 1 ? t * 10 : -t) + 1000) << t;
    EXPECT_EQ(static_cast<uint32_t>(v[2 * t + 1]), 0xffffffffu) << "all lanes active after the join";
  }
}

// Nested loops with per-lane trip counts: out[t] = sum_{i<t} sum_{j<i+1} 1 = t(t+1)/2,
// and the active mask after both loops is full.
TEST(EmuSimt, NestedLoopsWithPerLaneTripCounts) {
  std::string ptx = kernel_ptx("k", ".param .u64 out", R"(
    ld.param.u64 %rd1, [out];
    mov.u32 %r1, %tid.x;
    mov.u32 %r2, 0;
    mov.u32 %r3, 0;
  OUTER:
    setp.ge.u32 %p1, %r3, %r1;
    @%p1 bra OUTER_DONE;
    mov.u32 %r4, 0;
  INNER:
    add.s32 %r2, %r2, 1;
    add.s32 %r4, %r4, 1;
    setp.le.u32 %p2, %r4, %r3;
    @%p2 bra INNER;
    add.s32 %r3, %r3, 1;
    bra OUTER;
  OUTER_DONE:
    activemask.b32 %r5;
    mul.wide.u32 %rd2, %r1, 8;
    add.s64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r2;
    st.global.u32 [%rd3+4], %r5;
    ret;
  )");
  Harness h;
  h.load(ptx);
  Addr out = h.buffer(std::vector<uint32_t>(128, 0));
  LaunchResult r = h.launch("k", Dim3{1, 1, 1}, Dim3{48, 1, 1}, out);
  ASSERT_TRUE(r.ok) << r.error;
  auto v = h.read<uint32_t>(out, 96);
  for (uint32_t t = 0; t < 48; ++t) {
    EXPECT_EQ(v[2 * t], t * (t + 1) / 2) << t;
    EXPECT_EQ(v[2 * t + 1], t < 32 ? 0xffffffffu : 0xffffu) << t;
  }
}

// Each thread writes tid to shared memory, bar.sync, then reads its mirror
// neighbour's slot (written by another warp).
TEST(EmuSimt, BarrierExchangesSharedMemoryBetweenWarps) {
  std::string ptx = kernel_ptx("k", ".param .u64 out", R"(
    .shared .align 4 .b8 buf[384];
    ld.param.u64 %rd1, [out];
    mov.u32 %r1, %tid.x;
    mov.u32 %r2, buf;
    shl.b32 %r3, %r1, 2;
    add.s32 %r4, %r2, %r3;
    mul.lo.s32 %r5, %r1, 3;
    st.shared.u32 [%r4], %r5;
    bar.sync 0;
    sub.s32 %r6, 95, %r1;
    shl.b32 %r7, %r6, 2;
    add.s32 %r9, %r7, %r2;
    ld.shared.u32 %r8, [%r9];
    mul.wide.u32 %rd2, %r1, 4;
    add.s64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r8;
    ret;
  )");
  Harness h;
  h.load(ptx);
  Addr out = h.buffer(std::vector<uint32_t>(96, 0));
  LaunchResult r = h.launch("k", Dim3{2, 1, 1}, Dim3{96, 1, 1}, out);
  ASSERT_TRUE(r.ok) << r.error;
  auto v = h.read<uint32_t>(out, 96);
  for (uint32_t t = 0; t < 96; ++t) EXPECT_EQ(v[t], (95 - t) * 3) << t;
}

// A warp whose lanes all exit early does not hold the barrier up; bar.red.popc counts.
TEST(EmuSimt, BarrierIgnoresExitedWarpsAndReduces) {
  std::string ptx = kernel_ptx("k", ".param .u64 out", R"(
    ld.param.u64 %rd1, [out];
    mov.u32 %r1, %tid.x;
    setp.ge.u32 %p1, %r1, 64;
    @%p1 exit;
    and.b32 %r2, %r1, 3;
    setp.eq.u32 %p2, %r2, 0;
    bar.red.popc.u32 %r3, 0, %p2;
    bar.sync 0;
    mul.wide.u32 %rd2, %r1, 4;
    add.s64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r3;
    ret;
  )");
  Harness h;
  h.load(ptx);
  Addr out = h.buffer(std::vector<uint32_t>(64, 0));
  LaunchResult r = h.launch("k", Dim3{1, 1, 1}, Dim3{128, 1, 1}, out);
  ASSERT_TRUE(r.ok) << r.error;
  auto v = h.read<uint32_t>(out, 64);
  for (uint32_t t = 0; t < 64; ++t) EXPECT_EQ(v[t], 16u) << t;
}

// Warp 0 waits at barrier 0 for 64 threads, warp 1 at barrier 1: neither
// opens. The launch fails as a barrier deadlock, which the runtime reports
// as a launch timeout (issue 17 item 15), not as a bad access.
TEST(EmuSimt, WarpsAtDifferentBarriersDeadlock) {
  std::string ptx = kernel_ptx("k", ".param .u64 out", R"(
    mov.u32 %r1, %tid.x;
    setp.ge.u32 %p1, %r1, 32;
    @%p1 bra OTHER;
    bar.sync 0, 64;
    ret;
  OTHER:
    bar.sync 1, 64;
    ret;
  )");
  Harness h;
  h.load(ptx);
  Addr out = h.buffer(std::vector<uint32_t>(64, 0));
  LaunchResult r = h.launch("k", Dim3{1, 1, 1}, Dim3{64, 1, 1}, out);
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.failure, LaunchFailure::BarrierDeadlock);
  EXPECT_NE(r.error.find("barrier deadlock"), std::string::npos) << r.error;
}

// Three one-argument functions and a table of their addresses.
const char* kFunctionTable = R"(
.func (.param .b32 r) twice(.param .b32 x) { .reg .b32 %a<2>; ld.param.b32 %a0, [x]; add.s32 %a1, %a0, %a0; st.param.b32 [r], %a1; ret; }
.func (.param .b32 r) square(.param .b32 x) { .reg .b32 %a<2>; ld.param.b32 %a0, [x]; mul.lo.s32 %a1, %a0, %a0; st.param.b32 [r], %a1; ret; }
.func (.param .b32 r) negate(.param .b32 x) { .reg .b32 %a<2>; ld.param.b32 %a0, [x]; neg.s32 %a1, %a0; st.param.b32 [r], %a1; ret; }
.global .align 8 .u64 table[3] = {twice, square, negate};
)";

TEST(EmuSimt, IndirectCallsSplitLanesByTargetAndReconverge) {
  Harness h;
  h.load(kernel_ptx("k", ".param .u64 out", R"(
    ld.param.u64 %rd0, [out];
    mov.u32 %r1, %tid.x;
    rem.u32 %r2, %r1, 3;
    mul.wide.u32 %rd1, %r2, 8;
    mov.u64 %rd2, table;
    add.s64 %rd3, %rd2, %rd1;
    ld.global.u64 %rd4, [%rd3];
    setp.eq.u32 %p1, %r1, 7;           // lane 7 does not call
    add.s32 %r3, %r1, 1;
    mov.u32 %r4, -1;
    {
    .param .b32 param0;
    st.param.b32 [param0], %r3;
    .param .b32 retval0;
    proto : .callprototype (.param .b32 _) _ (.param .b32 _);
    @!%p1 call (retval0), %rd4, (param0), proto;
    @!%p1 ld.param.b32 %r4, [retval0];
    }
    activemask.b32 %r5;                 // all lanes together again after the call
    mul.wide.u32 %rd5, %r1, 8;
    add.s64 %rd6, %rd0, %rd5;
    st.global.v2.u32 [%rd6], {%r4, %r5};
  )", kFunctionTable));
  Addr out = h.buffer(std::vector<int32_t>(64, 0));
  LaunchResult r = h.launch("k", Dim3{1, 1, 1}, Dim3{32, 1, 1}, out);
  ASSERT_TRUE(r.ok) << r.error;
  auto v = h.read<int32_t>(out, 64);
  for (int t = 0; t < 32; ++t) {
    int x = t + 1, want = t == 7 ? -1 : t % 3 == 0 ? 2 * x : t % 3 == 1 ? x * x : -x;
    EXPECT_EQ(v[2 * t], want) << t;
    EXPECT_EQ(uint32_t(v[2 * t + 1]), 0xffffffffu) << t;
  }
}

TEST(EmuSimt, IndirectCallToANonFunctionFaults) {
  Harness h;
  h.load(kernel_ptx("k", ".param .u64 out", R"(
    mov.u64 %rd5, table;               // the table's functions are the candidates
    mov.u64 %rd4, 0x1234;
    {
    .param .b32 param0;
    st.param.b32 [param0], 1;
    .param .b32 retval0;
    proto : .callprototype (.param .b32 _) _ (.param .b32 _);
    call (retval0), %rd4, (param0), proto;
    }
  )", kFunctionTable));
  LaunchResult r = h.launch("k", Dim3{1, 1, 1}, Dim3{1, 1, 1}, uint64_t(0));
  ASSERT_FALSE(r.ok);
  EXPECT_NE(r.error.find("indirect call to 0x1234"), std::string::npos) << r.error;
}

TEST(EmuSimt, MembermaskMustHoldEveryExecutingLane) {
  const std::string body = R"(
    ld.param.u64 %rd0, [out];
    mov.u32 %r1, %laneid;
    setp.lt.u32 %p1, %r1, LIMIT;
    @!%p1 bra DONE;
    shfl.sync.idx.b32 %r2, %r1, 3, 0x1f, 0x0000ffff;
    bar.warp.sync 0x0000ffff;
    mul.wide.u32 %rd1, %r1, 4;
    add.s64 %rd2, %rd0, %rd1;
    st.global.u32 [%rd2], %r2;
  DONE:
    ret;
  )";
  auto with_limit = [&](const char* limit) {
    std::string b = body;
    b.replace(b.find("LIMIT"), 5, limit);
    return kernel_ptx("k", ".param .u64 out", b);
  };
  Harness h;
  h.load(with_limit("16"));
  Addr out = h.buffer(std::vector<uint32_t>(32, 99));
  LaunchResult r = h.launch("k", Dim3{1, 1, 1}, Dim3{32, 1, 1}, out);
  ASSERT_TRUE(r.ok) << r.error;
  auto v = h.read<uint32_t>(out, 32);
  for (int l = 0; l < 32; ++l) EXPECT_EQ(v[l], l < 16 ? 3u : 99u) << l;

  Harness bad;
  bad.load(with_limit("17"));
  r = bad.launch("k", Dim3{1, 1, 1}, Dim3{32, 1, 1}, bad.buffer(std::vector<uint32_t>(32, 0)));
  ASSERT_FALSE(r.ok);
  EXPECT_NE(r.error.find("thread (16,0,0)"), std::string::npos) << r.error;
  EXPECT_NE(r.error.find("lane 16 executes it but is not in its membermask 0x0000ffff"), std::string::npos) << r.error;
  EXPECT_NE(r.error.find("shfl.sync.idx.b32"), std::string::npos) << r.error;
}

}  // namespace
}  // namespace ws::exec::test
