// mbarrier and cp.async.mbarrier.arrive, each expected value reasoned from the
// PTX ISA's mbarrier rules: a phase completes when its pending arrivals and
// its tx-count are both zero, and then pending is reloaded with the expected
// count; arrive returns the state from before it.
#include "exec/emu_test_util.h"

namespace ws::exec::test {
namespace {

const std::string kBar = ".shared .align 8 .b64 bar;\n.shared .align 16 .b32 s[64];\n";

// Runs `body` in one CTA of `threads`; out holds `n` u64 per thread, preset to a marker.
std::vector<uint64_t> run(const std::string& body, uint32_t threads, size_t n, Addr* src = nullptr,
                          LaunchResult* result = nullptr) {
  Harness h;
  h.load(kernel_ptx("k", ".param .u64 out, .param .u64 src",
                    "ld.param.u64 %rd0, [out];\nld.param.u64 %rd40, [src];\nmov.u32 %r0, %tid.x;\n"
                    "mul.wide.u32 %rd41, %r0, " + std::to_string(8 * n) + ";\nadd.s64 %rd0, %rd0, %rd41;\n" + body,
                    kBar));
  Addr out = h.buffer(std::vector<uint64_t>(n * threads, 0xdeadbeefull));
  std::vector<uint32_t> data(64);
  for (uint32_t i = 0; i < 64; ++i) data[i] = 1000 + i;
  Addr in = h.buffer(data);
  if (src) *src = in;
  LaunchResult r = h.launch("k", Dim3{1, 1, 1}, Dim3{threads, 1, 1}, out, in);
  if (result) *result = r;
  else EXPECT_TRUE(r.ok) << r.error;
  return h.read<uint64_t>(out, n * threads);
}

// One warp, count 32: lanes arrive in lane order, so lane l sees 32 - l
// arrivals pending before its own, and lane 31's arrive completes phase 0.
// Every token then names a completed phase; parity 0 (phase 0) is complete,
// parity 1 (phase 1, under way) is not.
TEST(EmuMbarrier, ArrivesCompleteAPhase) {
  auto v = run(R"(
    setp.eq.u32 %p1, %r0, 0;
    @%p1 mbarrier.init.shared.b64 [bar], 32;
    bar.sync 0;
    mbarrier.arrive.shared.b64 %rd1, [bar];
    mbarrier.pending_count.b64 %r2, %rd1;
    cvt.u64.u32 %rd2, %r2;               st.global.b64 [%rd0], %rd2;
    mbarrier.test_wait.shared.b64 %p2, [bar], %rd1;
    selp.u64 %rd3, 1, 0, %p2;            st.global.b64 [%rd0+8], %rd3;
    mbarrier.test_wait.parity.shared.b64 %p3, [bar], 0;
    selp.u64 %rd3, 1, 0, %p3;            st.global.b64 [%rd0+16], %rd3;
    mbarrier.test_wait.parity.shared::cta.b64 %p4, [bar], 1;
    selp.u64 %rd3, 1, 0, %p4;            st.global.b64 [%rd0+24], %rd3;
  )", 32, 4);
  for (unsigned l = 0; l < 32; ++l) {
    EXPECT_EQ(v[4 * l], 32 - l) << l;
    EXPECT_EQ(v[4 * l + 1], 1u) << l;
    EXPECT_EQ(v[4 * l + 2], 1u) << l;
    EXPECT_EQ(v[4 * l + 3], 0u) << l;
  }
}

// Two warps, count 64, two phases. Warp 0 arrives first and waits in a
// try_wait loop, which only ends once warp 1 has arrived too; each thread
// then reads what the mirrored thread (the other warp) wrote before its
// arrive. The second phase is waited for by parity 1 and reads new values.
TEST(EmuMbarrier, TryWaitLoopsUntilTheOtherWarpArrives) {
  auto v = run(R"(
    setp.eq.u32 %p1, %r0, 0;
    @%p1 mbarrier.init.shared.b64 [bar], 64;
    bar.sync 0;
    mov.u32 %r3, s;
    shl.b32 %r4, %r0, 2;
    add.u32 %r5, %r3, %r4;
    sub.u32 %r6, 63, %r0;
    shl.b32 %r6, %r6, 2;
    add.u32 %r7, %r3, %r6;
    mul.lo.u32 %r8, %r0, 3;
    st.shared.u32 [%r5], %r8;
    mbarrier.arrive.shared.b64 %rd1, [bar];
  W1:
    mbarrier.try_wait.shared.b64 %p2, [bar], %rd1;
    @!%p2 bra W1;
    ld.shared.u32 %r9, [%r7];
    cvt.u64.u32 %rd2, %r9;               st.global.b64 [%rd0], %rd2;
    bar.sync 0;
    add.u32 %r8, %r8, 1000;
    st.shared.u32 [%r5], %r8;
    mbarrier.arrive.release.cta.shared::cta.b64 %rd1, [bar];
  W2:
    mbarrier.try_wait.parity.acquire.cta.shared::cta.b64 %p2, [bar], 1, 1000;
    @!%p2 bra W2;
    ld.shared.u32 %r9, [%r7];
    cvt.u64.u32 %rd2, %r9;               st.global.b64 [%rd0+8], %rd2;
  )", 64, 2);
  for (unsigned t = 0; t < 64; ++t) {
    EXPECT_EQ(v[2 * t], (63 - t) * 3) << t;
    EXPECT_EQ(v[2 * t + 1], (63 - t) * 3 + 1000) << t;
  }
}

// tx-count: with one expected arrival, arrive.expect_tx of 16 bytes leaves
// no arrival pending but 16 bytes, so the phase is not complete; complete_tx
// of 8 still leaves 8; expect_tx 4 more, complete_tx 12 brings it to zero
// and completes phase 0. arrive with a count, and arrive_drop, then act on
// the reloaded count: init 3, arrive 2, arrive_drop 1 completes phase 1 and
// leaves 2 expected, so one arrive of 2 completes phase 2.
TEST(EmuMbarrier, TxCountAndCountedArrives) {
  auto v = run(R"(
    mbarrier.init.shared.b64 [bar], 1;
    mbarrier.arrive.expect_tx.shared.b64 %rd1, [bar], 16;
    mbarrier.test_wait.parity.shared.b64 %p1, [bar], 0;
    selp.u64 %rd3, 1, 0, %p1;            st.global.b64 [%rd0], %rd3;
    mbarrier.complete_tx.shared.b64 [bar], 8;
    mbarrier.test_wait.parity.shared.b64 %p1, [bar], 0;
    selp.u64 %rd3, 1, 0, %p1;            st.global.b64 [%rd0+8], %rd3;
    mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [bar], 4;
    mbarrier.complete_tx.shared.b64 [bar], 12;
    mbarrier.test_wait.parity.shared.b64 %p1, [bar], 0;
    selp.u64 %rd3, 1, 0, %p1;            st.global.b64 [%rd0+16], %rd3;
    mbarrier.inval.shared.b64 [bar];
    mbarrier.init.shared.b64 [bar], 3;
    mbarrier.arrive.shared.b64 %rd1, [bar], 2;
    mbarrier.arrive_drop.shared.b64 %rd2, [bar];
    mbarrier.pending_count.b64 %r1, %rd2;
    cvt.u64.u32 %rd3, %r1;               st.global.b64 [%rd0+24], %rd3;
    mbarrier.test_wait.shared.b64 %p1, [bar], %rd1;
    selp.u64 %rd3, 1, 0, %p1;            st.global.b64 [%rd0+32], %rd3;
    mbarrier.arrive.shared.b64 %rd1, [bar], 2;
    mbarrier.pending_count.b64 %r1, %rd1;
    cvt.u64.u32 %rd3, %r1;               st.global.b64 [%rd0+40], %rd3;
    mbarrier.test_wait.shared.b64 %p1, [bar], %rd1;
    selp.u64 %rd3, 1, 0, %p1;            st.global.b64 [%rd0+48], %rd3;
  )", 1, 7);
  EXPECT_EQ(v[0], 0u);  // 16 bytes outstanding
  EXPECT_EQ(v[1], 0u);  // 8 still outstanding
  EXPECT_EQ(v[2], 1u);  // 16 + 4 - 8 - 12 = 0
  EXPECT_EQ(v[3], 1u);  // arrive_drop saw 1 pending
  EXPECT_EQ(v[4], 1u);
  EXPECT_EQ(v[5], 2u);  // expected count is 2 after the drop
  EXPECT_EQ(v[6], 1u);
}

// cp.async.mbarrier.arrive without .noinc adds one pending arrival before its
// own, so with the copy already done the count is unchanged and the phase
// still needs the thread's mbarrier.arrive; with .noinc it is the arrival.
TEST(EmuMbarrier, CpAsyncArrive) {
  auto v = run(R"(
    mov.u32 %r3, s;
    mbarrier.init.shared.b64 [bar], 1;
    cp.async.ca.shared.global [%r3], [%rd40], 16;
    cp.async.mbarrier.arrive.shared.b64 [bar];
    mbarrier.test_wait.parity.shared.b64 %p1, [bar], 0;
    selp.u64 %rd3, 1, 0, %p1;            st.global.b64 [%rd0], %rd3;
    mbarrier.arrive.shared.b64 %rd1, [bar];
    mbarrier.test_wait.parity.shared.b64 %p1, [bar], 0;
    selp.u64 %rd3, 1, 0, %p1;            st.global.b64 [%rd0+8], %rd3;
    cp.async.cg.shared.global [%r3+16], [%rd40+16], 16;
    cp.async.mbarrier.arrive.noinc.shared.b64 [bar];
    mbarrier.test_wait.parity.shared.b64 %p1, [bar], 1;
    selp.u64 %rd3, 1, 0, %p1;            st.global.b64 [%rd0+16], %rd3;
    ld.shared.u32 %r4, [%r3+12];
    ld.shared.u32 %r5, [%r3+28];
    add.u32 %r4, %r4, %r5;
    cvt.u64.u32 %rd3, %r4;               st.global.b64 [%rd0+24], %rd3;
  )", 1, 4);
  EXPECT_EQ(v[0], 0u);
  EXPECT_EQ(v[1], 1u);
  EXPECT_EQ(v[2], 1u);
  EXPECT_EQ(v[3], 1003u + 1007u);  // the words at byte 12 and 28 of the source
}

// cp.async.bulk: thread 0 copies 64 bytes (words 4..19 of the source) into
// s[0..16) and completes 64 bytes of tx on the barrier, which thread 0 had
// announced with expect_tx, so the phase completes with all 32 arrivals;
// then it copies s[4..8) back out to the source's words 40..43 with the
// bulk_group form. Fences, setmaxnreg and griddepcontrol are no-ops.
TEST(EmuMbarrier, BulkCopyCompletesTransactions) {
  Addr src = 0;
  auto v = run(R"(
    setp.eq.u32 %p1, %r0, 0;
    mov.u32 %r3, s;
    @%p1 mbarrier.init.shared::cta.b64 [bar], 32;
    fence.mbarrier_init.release.cluster;
    fence.proxy.async.shared::cta;
    bar.sync 0;
    @%p1 mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [bar], 64;
    @%p1 cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%r3], [%rd40+16], 64, [bar];
    mbarrier.arrive.shared::cta.b64 %rd1, [bar];
  W:
    mbarrier.try_wait.shared.b64 %p2, [bar], %rd1;
    @!%p2 bra W;
    shl.b32 %r4, %r0, 2;
    and.b32 %r4, %r4, 63;
    add.u32 %r5, %r3, %r4;
    ld.shared.u32 %r6, [%r5];
    cvt.u64.u32 %rd2, %r6;               st.global.b64 [%rd0], %rd2;
    @%p1 cp.async.bulk.global.shared::cta.bulk_group [%rd40+160], [%r3+16], 16;
    @%p1 cp.async.bulk.commit_group;
    @%p1 cp.async.bulk.wait_group.read 0;
    setmaxnreg.inc.sync.aligned.u32 240;
    griddepcontrol.launch_dependents;
    bar.sync 0;
    ld.global.u32 %r7, [%rd40+164];
    cvt.u64.u32 %rd2, %r7;               st.global.b64 [%rd0+8], %rd2;
  )", 32, 2, &src);
  for (unsigned t = 0; t < 32; ++t) {
    EXPECT_EQ(v[2 * t], 1004 + t % 16) << t;
    EXPECT_EQ(v[2 * t + 1], 1009u) << t;  // word 41 now holds s[5] = source word 9
  }
}

// The cache-hint form carries one more operand (a policy, no effect here) and
// copies as the plain form; an L2 bulk prefetch moves no data.
TEST(EmuMbarrier, BulkCopyCacheHintAndPrefetch) {
  auto v = run(R"(
    setp.eq.u32 %p1, %r0, 0;
    mov.u32 %r3, s;
    mov.u64 %rd5, 0;
    @%p1 cp.async.bulk.prefetch.L2.global [%rd40], 64;
    @%p1 mbarrier.init.shared::cta.b64 [bar], 1;
    @%p1 mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [bar], 32;
    @%p1 cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.L2::cache_hint [%r3], [%rd40+32], 32, [bar], %rd5;
    @%p1 mbarrier.arrive.shared::cta.b64 %rd1, [bar];
    bar.sync 0;
    ld.shared.u32 %r6, [s+28];
    cvt.u64.u32 %rd2, %r6;               st.global.b64 [%rd0], %rd2;
  )", 1, 1);
  EXPECT_EQ(v[0], 1015u);  // s[7] = source word 8 + 7
}

// Tensor (TMA) and multicast bulk copies are refused at decode, saying why.
TEST(EmuMbarrier, TensorAndMulticastBulkCopiesAreRefusedWithTheReason) {
  const char* tma =
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [s], [%rd40, {%r1, %r2}], [bar];";
  const char* multicast =
      "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster [s], [%rd40], 16, [bar], %rs1;";
  std::pair<const char*, const char*> cases[] = {{tma, "CUtensorMap"}, {multicast, "clusters of one CTA"}};
  for (auto [inst, why] : cases) {
    try {
      run(inst, 1, 1);
      ADD_FAILURE() << "expected a decode error for " << inst;
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(why), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("test.ptx:"), std::string::npos) << e.what();
    }
  }
}

// CUDA's driver ABI hands a cooperative launch's grid workspace to
// cg::this_grid() as %envreg1 (high half) and %envreg2 (low half); other
// environment registers, and both outside a cooperative launch, read 0.
TEST(EmuEnvRegs, GridWorkspaceAddress) {
  Harness h;
  h.load(kernel_ptx("k", ".param .u64 out", R"(
    ld.param.u64 %rd0, [out];
    mov.u32 %r1, %envreg1;  st.global.u32 [%rd0], %r1;
    mov.u32 %r2, %envreg2;  st.global.u32 [%rd0+4], %r2;
    mov.u32 %r3, %envreg0;  st.global.u32 [%rd0+8], %r3;
    mov.u32 %r4, %envreg31; st.global.u32 [%rd0+12], %r4;
  )"));
  for (Addr ws : {Addr{0x7f0012345678}, Addr{0}}) {
    Addr out = h.buffer(std::vector<uint32_t>(4, 0xdeadbeefu));
    Launch l = h.make_launch("k", Dim3{1, 1, 1}, Dim3{1, 1, 1});
    std::memcpy(l.params.data(), &out, 8);
    l.grid_workspace = ws;
    LaunchResult r = h.emu.run(l);
    ASSERT_TRUE(r.ok) << r.error;
    auto v = h.read<uint32_t>(out, 4);
    EXPECT_EQ(v[0], uint32_t(ws >> 32));
    EXPECT_EQ(v[1], uint32_t(ws));
    EXPECT_EQ(v[2], 0u);
    EXPECT_EQ(v[3], 0u);
  }
}

TEST(EmuMbarrier, MisuseFaults) {
  LaunchResult r;
  run("mbarrier.init.shared.b64 [bar], 1;\nmbarrier.arrive.shared.b64 %rd1, [bar], 2;", 1, 1, nullptr, &r);
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.error.find("mbarrier arrive of 2 with 1 arrivals pending"), std::string::npos) << r.error;
  run("mbarrier.init.b64 [%rd40], 1;", 1, 1, nullptr, &r);
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.error.find("mbarrier object not in shared memory"), std::string::npos) << r.error;
  run("mbarrier.init.shared.b64 [bar], 0;", 1, 1, nullptr, &r);
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.error.find("mbarrier count 0 out of range"), std::string::npos) << r.error;
  EXPECT_THROW(run("mbarrier.frobnicate.shared.b64 [bar];", 1, 1, nullptr, &r), InputError);
  run("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [s], [%rd40+4], 16, [bar];", 1, 1, nullptr,
      &r);
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.error.find("16-byte aligned"), std::string::npos) << r.error;
}

}  // namespace
}  // namespace ws::exec::test
