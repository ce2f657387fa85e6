// The PTX list scheduler: loads rise above the uses of earlier loads, and no
// instruction passes one it depends on, a fence, a label or a terminator.
#include "frontend/ptx/schedule.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "frontend/ptx/parser.h"
#include "frontend/ptx_test_util.h"

namespace ws::ptx {
namespace {

Module parse_body(const std::string& body) { return test::parse_kernel_body(body); }

std::vector<std::string> texts(const Function& f) {
  std::vector<std::string> out;
  for (const Instruction& in : f.body) out.push_back(in.text);
  return out;
}

size_t pos(const Function& f, const std::string& prefix) {
  for (size_t i = 0; i < f.body.size(); ++i)
    if (f.body[i].text.rfind(prefix, 0) == 0) return i;
  ADD_FAILURE() << "no instruction " << prefix;
  return f.body.size();
}

// nvcc's unrolled reduction loop: each add waits for the load before it. As
// ptxas does, the four loads go first and the adds follow in their order.
TEST(PtxSchedule, LoadsRiseAboveEarlierUses) {
  Module m = parse_body(R"(
  L:
    ld.global.f32 %f1, [%rd1];
    add.f32 %f2, %f9, %f1;
    ld.global.f32 %f3, [%rd1+4];
    add.f32 %f4, %f2, %f3;
    ld.global.f32 %f5, [%rd1+8];
    add.f32 %f6, %f4, %f5;
    ld.global.f32 %f7, [%rd1+12];
    add.f32 %f9, %f6, %f7;
    add.s64 %rd1, %rd1, 16;
    setp.lt.s64 %p1, %rd1, %rd2;
    @%p1 bra L;
  )");
  Function& f = m.functions[0];
  ScheduleStats st = schedule_function(f);
  EXPECT_GT(st.moved, 0u);
  std::vector<std::string> t = texts(f);
  ASSERT_EQ(t.size(), 11u);
  for (int i = 0; i < 4; ++i) EXPECT_EQ(t[i].rfind("ld.global", 0), 0u) << t[i];
  EXPECT_LT(pos(f, "add.f32 %f2"), pos(f, "add.f32 %f4"));
  EXPECT_LT(pos(f, "add.f32 %f6"), pos(f, "add.f32 %f9"));
  // The pointer increment reads and writes %rd1, which every load reads: it stays after them.
  EXPECT_GT(pos(f, "add.s64 %rd1"), pos(f, "ld.global.f32 %f7"));
  EXPECT_EQ(t.back().rfind("@%p1 bra", 0), 0u);
  EXPECT_EQ(f.labels.at("L"), 0);
}

// ubench/atomics' loop: `sum += atomicAdd(p, 1)` unrolled four times. The
// H100 SASS issues the four ATOMGs back to back and adds after; the atomics
// keep their order among themselves.
TEST(PtxSchedule, AtomicsRiseAboveTheUsesOfEarlierOnes) {
  Module m = parse_body(R"(
  L:
    atom.global.add.u32 %r17, [%rd2], 1;
    add.s32 %r18, %r17, %r9;
    atom.global.add.u32 %r19, [%rd2], 1;
    add.s32 %r20, %r19, %r18;
    atom.global.add.u32 %r21, [%rd2], 1;
    add.s32 %r22, %r21, %r20;
    atom.global.add.u32 %r23, [%rd2], 1;
    add.s32 %r9, %r23, %r22;
    add.s64 %rd29, %rd29, 4;
    setp.ne.s64 %p3, %rd29, 0;
    @%p3 bra L;
  )");
  Function& f = m.functions[0];
  schedule_function(f);
  std::vector<std::string> t = texts(f);
  ASSERT_EQ(t.size(), 11u);
  const char* atoms[] = {"atom.global.add.u32 %r17", "atom.global.add.u32 %r19", "atom.global.add.u32 %r21",
                         "atom.global.add.u32 %r23"};
  for (int i = 0; i < 4; ++i) EXPECT_EQ(pos(f, atoms[i]), size_t(i)) << t[i];
  EXPECT_LT(pos(f, "add.s32 %r18"), pos(f, "add.s32 %r20"));
}

TEST(PtxSchedule, AddressArithmeticFeedingALoadGoesWithIt) {
  Module m = parse_body(R"(
    ld.global.f32 %f1, [%rd1];
    add.f32 %f2, %f1, %f1;
    mul.wide.s32 %rd3, %r1, 4;
    add.s64 %rd4, %rd2, %rd3;
    ld.global.f32 %f3, [%rd4];
    add.f32 %f4, %f2, %f3;
    ret;
  )");
  Function& f = m.functions[0];
  schedule_function(f);
  EXPECT_LT(pos(f, "ld.global.f32 %f3"), pos(f, "add.f32 %f2"));
  EXPECT_LT(pos(f, "mul.wide"), pos(f, "add.s64 %rd4"));
  EXPECT_LT(pos(f, "add.s64 %rd4"), pos(f, "ld.global.f32 %f3"));
  EXPECT_EQ(f.body.back().opcode, "ret");
}

// Stores keep their order with loads and with each other; a load never passes
// a store (they may alias), and pure instructions still move around them.
TEST(PtxSchedule, MemoryOrderWithStoresIsKept) {
  Module m = parse_body(R"(
    st.global.f32 [%rd1], %f1;
    add.f32 %f2, %f3, %f3;
    ld.global.f32 %f4, [%rd2];
    st.global.f32 [%rd3], %f5;
    ld.global.f32 %f6, [%rd4];
    ret;
  )");
  Function& f = m.functions[0];
  schedule_function(f);
  EXPECT_LT(pos(f, "st.global.f32 [%rd1]"), pos(f, "ld.global.f32 %f4"));
  EXPECT_LT(pos(f, "ld.global.f32 %f4"), pos(f, "st.global.f32 [%rd3]"));
  EXPECT_LT(pos(f, "st.global.f32 [%rd3]"), pos(f, "ld.global.f32 %f6"));
}

// Explicit state spaces do not alias: a global load passes a shared store
// (the copy loops that stage data in shared memory), a generic one does not.
TEST(PtxSchedule, LoadsPassStoresToOtherSpaces) {
  Module m = parse_body(R"(
    ld.global.u16 %rs1, [%rd1];
    st.shared.u16 [%r1], %rs1;
    ld.global.u16 %rs2, [%rd1+64];
    st.shared.u16 [%r1+64], %rs2;
    ld.u16 %rs3, [%rd2];
    st.u16 [%rd3], %rs3;
    ld.shared.u16 %rs4, [%r2];
    ret;
  )");
  Function& f = m.functions[0];
  schedule_function(f);
  EXPECT_LT(pos(f, "ld.global.u16 %rs2"), pos(f, "st.shared.u16 [%r1]"));
  EXPECT_LT(pos(f, "st.shared.u16 [%r1+64]"), pos(f, "ld.u16 %rs3"));  // generic: after every store
  EXPECT_LT(pos(f, "st.u16 [%rd3]"), pos(f, "ld.shared.u16 %rs4"));    // after a generic store
}

TEST(PtxSchedule, VolatileLoadsAreOrdered) {
  Module m = parse_body(R"(
    ld.volatile.global.u32 %r1, [%rd1];
    add.s32 %r2, %r1, 1;
    ld.volatile.global.u32 %r3, [%rd2];
    add.s32 %r4, %r3, 1;
    ld.global.u32 %r5, [%rd3];
    ret;
  )");
  Function& f = m.functions[0];
  schedule_function(f);
  EXPECT_LT(pos(f, "ld.volatile.global.u32 %r1"), pos(f, "ld.volatile.global.u32 %r3"));
  EXPECT_LT(pos(f, "ld.volatile.global.u32 %r3"), pos(f, "ld.global.u32 %r5"));
}

// Clock reads and labels cut the block: nothing crosses them. A barrier
// keeps every memory access on its side, but register-only instructions may
// cross it (ptxas computes a later branch's ISETP before a BAR.SYNC).
TEST(PtxSchedule, FencesAndLabelsStayPut) {
  Module m = parse_body(R"(
    add.f32 %f1, %f2, %f2;
    ld.global.f32 %f3, [%rd1];
    mov.u32 %r1, %clock;
    add.f32 %f4, %f3, %f3;
    ld.global.f32 %f5, [%rd2];
    bar.sync 0;
    add.f32 %f6, %f5, %f5;
    ld.shared.f32 %f7, [%rd3];
  M:
    add.f32 %f8, %f7, %f7;
    ld.global.f32 %f9, [%rd4];
    ret;
  )");
  Function& f = m.functions[0];
  std::vector<std::string> before = texts(f);
  schedule_function(f);
  EXPECT_EQ(pos(f, "mov.u32 %r1, %clock"), 2u);
  EXPECT_EQ(f.labels.at("M"), 8);
  // Inside each piece the load goes first; the loads stay on their side of
  // the barrier, and the shared load it guards rises right behind it, past
  // the add that came before the barrier.
  EXPECT_EQ(pos(f, "ld.global.f32 %f3"), 0u);
  EXPECT_EQ(pos(f, "ld.global.f32 %f5"), 3u);
  EXPECT_EQ(pos(f, "bar.sync"), 4u);
  EXPECT_EQ(pos(f, "ld.shared.f32 %f7"), 5u);
  EXPECT_GT(pos(f, "add.f32 %f4"), pos(f, "bar.sync"));
  EXPECT_EQ(pos(f, "ld.global.f32 %f9"), 8u);
  EXPECT_EQ(f.body.size(), before.size());
}

// The carry flag is state: add.cc/addc pairs keep their order, and a second
// destination (setp's p|q) is a write.
TEST(PtxSchedule, CarryFlagAndSecondDestinationsAreDependences) {
  Module m = parse_body(R"(
    add.cc.u32 %r1, %r2, %r3;
    addc.u32 %r4, %r5, %r6;
    add.cc.u32 %r7, %r8, %r9;
    addc.u32 %r10, %r11, %r12;
    setp.lt.and.s32 %p1|%p2, %r13, %r14, %p3;
    selp.b32 %r15, 1, 0, %p2;
    ld.global.u32 %r16, [%rd1];
    ret;
  )");
  Function& f = m.functions[0];
  schedule_function(f);
  EXPECT_LT(pos(f, "add.cc.u32 %r1"), pos(f, "addc.u32 %r4"));
  EXPECT_LT(pos(f, "addc.u32 %r4"), pos(f, "add.cc.u32 %r7"));
  EXPECT_LT(pos(f, "add.cc.u32 %r7"), pos(f, "addc.u32 %r10"));
  EXPECT_LT(pos(f, "setp"), pos(f, "selp"));
  EXPECT_EQ(pos(f, "ld.global.u32 %r16"), 0u);
}

TEST(PtxSchedule, UnknownInstructionsAreFences) {
  Module m = parse_body(R"(
    add.f32 %f1, %f2, %f2;
    nanosleep.u32 100;
    ld.global.f32 %f3, [%rd1];
    ret;
  )");
  Function& f = m.functions[0];
  schedule_function(f);
  EXPECT_EQ(pos(f, "nanosleep"), 1u);
  EXPECT_EQ(pos(f, "ld.global.f32 %f3"), 2u);
}

TEST(PtxSchedule, Deterministic) {
  const char* body = R"(
    ld.global.f32 %f1, [%rd1];
    add.f32 %f2, %f1, %f1;
    ld.global.f32 %f3, [%rd2];
    mul.f32 %f4, %f5, %f6;
    add.f32 %f7, %f3, %f2;
    ld.shared.f32 %f8, [%rd3];
    fma.rn.f32 %f9, %f8, %f4, %f7;
    ret;
  )";
  Module a = parse_body(body), b = parse_body(body);
  schedule_module(a);
  schedule_module(b);
  EXPECT_EQ(texts(a.functions[0]), texts(b.functions[0]));
}

// PolyBench's gemm inner loop as nvcc writes it, unrolled: six pairs of
// loads (%f1/%f2, %f3/%f4, ...), each pair feeding one fma of the sum %f20.
std::string dot_loop() {
  std::string body = "L:\n";
  for (int k = 0; k < 6; ++k) {
    std::string a = "%f" + std::to_string(2 * k + 1), b = "%f" + std::to_string(2 * k + 2), off = std::to_string(4 * k);
    body += "ld.global.f32 " + a + ", [%rd1+" + off + "];\nld.global.f32 " + b + ", [%rd2+" + off + "];\n";
    body += "fma.rn.f32 %f20, " + a + ", " + b + ", %f20;\n";
  }
  return body + R"(
    add.s64 %rd1, %rd1, 24;
    add.s64 %rd2, %rd2, 24;
    setp.lt.s64 %p1, %rd1, %rd3;
    @%p1 bra L;
    st.global.f32 [%rd4], %f20;
    ret;
  )";
}

// Loaded values not yet read by an fma, at their most, in f's order.
int most_loads_in_flight(const Function& f) {
  int in_flight = 0, most = 0;
  for (const Instruction& in : f.body) {
    if (in.opcode == "ld") most = std::max(most, ++in_flight);
    if (in.opcode == "fma") in_flight -= 2;
  }
  return most;
}

// Without a register budget all twelve loads go first.
TEST(PtxSchedule, WithoutABudgetEveryLoadRises) {
  Module m = parse_body(dot_loop());
  Function& f = m.functions[0];
  f.allocated_regs = 16;
  schedule_function(f, {.register_pressure = false});
  EXPECT_EQ(most_loads_in_flight(f), 12);
}

// ptxas keeps a block within the kernel's registers. Four pointers (two
// registers each) and the sum live through the loop: 9 of REG:16's 14
// nameable registers, so at most 5 loaded values wait for their fma and the
// fmas interleave with the loads, as in gemm's sm_90 SASS (REG:32, first fma
// after 14 loads). The budget is filled: loads still rise that far.
TEST(PtxSchedule, LoadsRiseOnlyAsFarAsTheKernelsRegistersAllow) {
  Module m = parse_body(dot_loop());
  Function& f = m.functions[0];
  f.allocated_regs = 16;
  schedule_function(f);
  EXPECT_EQ(most_loads_in_flight(f), 5);
  EXPECT_LT(pos(f, "fma.rn.f32 %f20, %f1,"), pos(f, "ld.global.f32 %f7"));
  // Dependences still hold: each fma after its loads and after the one before.
  EXPECT_LT(pos(f, "ld.global.f32 %f12"), pos(f, "fma.rn.f32 %f20, %f11"));
  EXPECT_LT(pos(f, "fma.rn.f32 %f20, %f9"), pos(f, "fma.rn.f32 %f20, %f11"));
  // Without an allocation the fallback applies; .maxnreg caps either.
  Module m2 = parse_body(dot_loop());
  schedule_function(m2.functions[0], {.fallback_regs = 16});
  EXPECT_EQ(most_loads_in_flight(m2.functions[0]), 5);
  Module m3 = parse_body(dot_loop());
  m3.functions[0].allocated_regs = 64;
  m3.functions[0].maxnreg = 14;
  schedule_function(m3.functions[0]);
  // 3 registers free: the greedy order may run one over where the load an
  // fma waits for comes after others (ptxas's allocation does the same).
  EXPECT_GE(most_loads_in_flight(m3.functions[0]), 3);
  EXPECT_LE(most_loads_in_flight(m3.functions[0]), 4);
}

}  // namespace
}  // namespace ws::ptx
