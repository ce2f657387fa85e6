// Warp-aggregated atomics (exec/warp_aggregation.h): which registers a
// compiler can prove warp-uniform (frontend/ptx/uniform.h), which atomics
// ptxas therefore sends as one lane's operation, and what that does to the
// instruction stream and the L2 under the timing model.
#include "exec/warp_aggregation.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <string>

#include "exec/emu_test_util.h"
#include "exec/timed_test_util.h"
#include "frontend/ptx/parser.h"
#include "frontend/ptx/uniform.h"

namespace ws::exec {
namespace {

// The k-th instruction (from 0) with `opcode`.
const ptx::Instruction& nth(const ptx::Function& fn, const std::string& opcode, int k) {
  int seen = 0;
  for (const ptx::Instruction& in : fn.body)
    if (in.opcode == opcode && seen++ == k) return in;
  ADD_FAILURE() << "no " << opcode << " #" << k;
  return fn.body.front();
}

int32_t reg(const ptx::Function& fn, const std::string& name) {
  for (size_t r = 0; r < fn.regs.size(); ++r)
    if (fn.regs[r].name == name) return static_cast<int32_t>(r);
  ADD_FAILURE() << "no register " << name;
  return -1;
}

constexpr const char* kBody = R"(
    ld.param.u64 %rd1, [p];
    ld.param.u32 %r1, [n];
    cvta.to.global.u64 %rd2, %rd1;
    mov.u32 %r2, %ctaid.x;
    mov.u32 %r3, %tid.x;
    mul.wide.u32 %rd3, %r2, 4;
    add.s64 %rd4, %rd2, %rd3;
    mul.wide.u32 %rd5, %r3, 4;
    add.s64 %rd6, %rd2, %rd5;
    ld.global.u32 %r4, [%rd2];
    mov.u32 %r5, 0;
    setp.eq.u32 %p1, %r3, 0;
  LOOP:
    add.s32 %r5, %r5, 1;
    setp.lt.u32 %p2, %r5, %r1;
    @%p2 bra LOOP;
    @%p1 mov.u32 %r6, 7;
    atom.global.add.u32 %r7, [%rd4], 1;
    atom.global.add.u32 %r8, [%rd6], 1;
    red.global.add.u32 [%rd4], %r4;
    red.global.add.u32 [%rd4], %r1;
    atom.global.cas.b32 %r9, [%rd4], 0, 1;
    atom.shared.add.u32 %r10, [%rd4], 1;
    atom.global.add.f32 %f1, [%rd4], 0f3F800000;
    atom.global.add.u32 %r11, [%rd4], %r3;
    atom.add.u32 %r12, [%rd4], 1;
    ret;
)";

ptx::Module module() { return ptx::parse_module(test::kernel_ptx("k", ".param .u64 p, .param .u32 n", kBody), "t.ptx"); }

TEST(UniformRegs, ParametersAndBlockIndicesAreUniformThreadIndicesAndLoadsAreNot) {
  ptx::Module m = module();
  const ptx::Function& fn = m.functions.front();
  ptx::UniformRegs u(fn);
  for (const char* r : {"%rd1", "%r1", "%rd2", "%r2", "%rd3", "%rd4"}) EXPECT_TRUE(u.reg(reg(fn, r))) << r;
  EXPECT_FALSE(u.reg(reg(fn, "%r3")));   // %tid.x
  EXPECT_FALSE(u.reg(reg(fn, "%rd6")));  // from %tid.x
  EXPECT_FALSE(u.reg(reg(fn, "%r4")));   // a global load, even from a uniform address
  EXPECT_FALSE(u.reg(reg(fn, "%r5")));   // written twice (a loop counter)
  EXPECT_FALSE(u.reg(reg(fn, "%r6")));   // written by some threads only
  EXPECT_FALSE(u.reg(reg(fn, "%r63")));  // never written
}

TEST(UniformRegs, AFunctionsParametersAreItsCallersValues) {
  std::string ptx = ".version 8.0\n.target sm_80\n.address_size 64\n"
                    ".func f(.param .u64 a)\n{\n.reg .b64 %rd<4>;\nld.param.u64 %rd1, [a];\nret;\n}\n";
  ptx::Module m = ptx::parse_module(ptx, "t.ptx");
  ptx::UniformRegs u(m.functions.front());
  EXPECT_FALSE(u.reg(reg(m.functions.front(), "%rd1")));
}

TEST(WarpAggregation, AnAddOnAProvablyUniformAddressIsAggregated) {
  ptx::Module m = module();
  const ptx::Function& fn = m.functions.front();
  ptx::UniformRegs u(fn);
  EXPECT_EQ(aggregation_of(nth(fn, "atom", 0), u, true, 90), Aggregation::CountResult);
  EXPECT_EQ(aggregation_of(nth(fn, "atom", 0), u, false, 90), Aggregation::Count);
  EXPECT_EQ(aggregation_of(nth(fn, "atom", 0), u, true, 70), Aggregation::CountResult);
  EXPECT_EQ(aggregation_of(nth(fn, "atom", 1), u, true, 90), Aggregation::None);  // per-thread address
  // A per-thread amount, no result: combined in the warp (REDUX) from sm_80.
  EXPECT_EQ(aggregation_of(nth(fn, "red", 0), u, false, 90), Aggregation::Reduce);
  EXPECT_EQ(aggregation_of(nth(fn, "red", 0), u, false, 70), Aggregation::None);
  EXPECT_EQ(aggregation_of(nth(fn, "red", 1), u, false, 70), Aggregation::Count);  // a uniform amount
  EXPECT_EQ(aggregation_of(nth(fn, "atom", 2), u, true, 90), Aggregation::None);   // cas
  EXPECT_EQ(aggregation_of(nth(fn, "atom", 3), u, true, 90), Aggregation::None);   // shared
  EXPECT_EQ(aggregation_of(nth(fn, "atom", 4), u, true, 90), Aggregation::None);   // f32
  EXPECT_EQ(aggregation_of(nth(fn, "atom", 5), u, true, 90), Aggregation::None);   // per-thread amount, read
  EXPECT_EQ(aggregation_of(nth(fn, "atom", 6), u, true, 90), Aggregation::CountResult);  // generic
}

// K atomic adds of 1 by the 32 lanes of one warp to one word, the address
// either a kernel parameter (provably uniform: aggregated) or read from
// memory (the same word at run time, which the compiler cannot know);
// `result` stores each lane's last old value.
constexpr int kAtomics = 64;

std::string counter_ptx(bool provable, bool result) {
  std::string body = "    ld.param.u64 %rd1, [p];\n";
  body += provable ? "    mov.u64 %rd2, %rd1;\n" : "    ld.global.u64 %rd2, [%rd1+8];\n";
  for (int i = 0; i < kAtomics; ++i)
    body += result ? "    atom.global.add.u32 %r1, [%rd2], 1;\n" : "    red.global.add.u32 [%rd2], 1;\n";
  if (result) body += "    mov.u32 %r2, %tid.x;\n    mul.wide.u32 %rd3, %r2, 4;\n    add.s64 %rd4, %rd1, %rd3;\n"
                      "    st.global.u32 [%rd4+16], %r1;\n";
  body += "    ret;\n";
  return test::kernel_ptx("counter", ".param .u64 p", body);
}

struct Counted {
  uint64_t cycles = 0, warp_insts = 0, l1_atomic_requests = 0;
  uint32_t total = 0;
  std::vector<uint32_t> olds;
};

// Word 0 is the counter, words 2-3 its address (for the run-time-uniform
// form), words 4-35 the lanes' last old values.
Counted count(bool provable, bool result, int atomic_ops_per_clk = 32, int request_cycles = 4) {
  test::TimedRun r = test::run_timed(counter_ptx(provable, result), "counter", std::vector<uint32_t>(4 + 32), "h100",
                                     {"l1i.perfect=true", "l2.atomic_ops_per_clk=" + std::to_string(atomic_ops_per_clk),
                                      "l1d.atomic_request_cycles=" + std::to_string(request_cycles)},
                                     [](std::vector<uint32_t>& w, Addr p) { std::memcpy(&w[2], &p, 8); });
  uint64_t requests = 0;
  for (const auto& [name, v] : r.counters.items())
    if (name.starts_with("sm.") && name.ends_with(".l1d.atomics")) requests += static_cast<uint64_t>(v.get<double>());
  return {r.cycles, r.warp_insts, requests, r.words[0], std::vector<uint32_t>(r.words.begin() + 4, r.words.end())};
}

// ptxas's sequence for a counted add whose result is read is five steps
// ahead (S2R, VOTEU, FLO, POPC, ISETP) and five after (S2R, LOP3, POPC,
// SHFL, IADD3); without a result, the five ahead. The values are the
// emulator's either way.
TEST(WarpAggregation, AggregatedAtomicsIssueThePtxasSequenceAndKeepTheirValues) {
  Counted agg = count(true, true), plain = count(false, true);
  EXPECT_EQ(agg.total, 32u * kAtomics);
  EXPECT_EQ(plain.total, 32u * kAtomics);
  std::vector<uint32_t> sorted = agg.olds;
  std::sort(sorted.begin(), sorted.end());
  for (uint32_t l = 0; l < 32; ++l) EXPECT_EQ(sorted[l], 32u * (kAtomics - 1) + l);  // each lane its own slot
  // The provable form has one fewer instruction ahead (a move, not a load).
  EXPECT_EQ(agg.warp_insts, plain.warp_insts + 10u * kAtomics);
  Counted agg_red = count(true, false), plain_red = count(false, false);
  EXPECT_EQ(agg_red.total, 32u * kAtomics);
  EXPECT_EQ(agg_red.warp_insts, plain_red.warp_insts + 5u * kAtomics);
}

// One lane's operation per aggregated reduction, 32 for the run-time-uniform
// address (the L2 does not combine lanes on one word; they name one word, so
// they go in 32 passes, a request of one operation each). Slowing the
// slice's atomic unit from 32 operations per cycle to 1 leaves the
// aggregated kernel's time as it was.
TEST(WarpAggregation, TheL2PerformsOneOperationForAnAggregatedWarp) {
  Counted agg_fast = count(true, false, 32, 1), agg_slow = count(true, false, 1, 1);
  EXPECT_NEAR(double(agg_slow.cycles), double(agg_fast.cycles), 2.0);
  EXPECT_EQ(agg_fast.l1_atomic_requests, uint64_t{kAtomics});
  EXPECT_EQ(count(false, false, 32, 1).l1_atomic_requests, 32u * kAtomics);
}

// The run-time-uniform address's 32 lanes name one word: the L1 sends them
// in 32 passes, a request each, where the aggregated warp sends one. At 4
// L1 cycles a request (l1d.atomic_request_cycles, h100) instead of 1, the
// aggregated kernel's time is as it was and each of the other's 64
// reductions holds the L1 128 cycles instead of 32: 96 more each.
TEST(WarpAggregation, LanesOnOneWordLeaveTheL1AsARequestEach) {
  Counted agg_one = count(true, false, 32, 1), agg_four = count(true, false, 32, 4);
  Counted plain_one = count(false, false, 32, 1), plain_four = count(false, false, 32, 4);
  EXPECT_NEAR(double(agg_four.cycles), double(agg_one.cycles), 4.0);
  EXPECT_NEAR(double(plain_four.cycles) - double(plain_one.cycles), kAtomics * 96.0, kAtomics * 2.0)
      << plain_one.cycles << " vs " << plain_four.cycles;
}

}  // namespace
}  // namespace ws::exec
