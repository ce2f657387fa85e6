// The SM alone, fed by a fake CTA source, ticked by hand (memory traffic,
// where a test has some, answered by a fake L2).
#include <gtest/gtest.h>

#include <deque>
#include <vector>

#include "core/fake_insts.h"
#include "core/sm_bench.h"

namespace ws::timing {
namespace {

using fake::alu;
using fake::barrier;
using fake::SmBench;

TEST(CoreSm, DependentChainTakesUnitLatencyPerInstruction) {
  SmBench b;
  std::vector<ir::WarpInst> chain;
  for (int k = 0; k < 10; ++k) chain.push_back(alu(0, 1, 1));  // R1 = f(R1)
  Cycle cycles = b.run({chain});
  EXPECT_NEAR(double(cycles), 10 * 4, 3);
  EXPECT_EQ(b.reg.sum("sm.0.warp_insts"), 10u);
  EXPECT_EQ(b.reg.sum("sm.0.thread_insts"), 320u);
}

TEST(CoreSm, IndependentInstructionsIssueAtTheInitiationInterval) {
  SmBench b;
  std::vector<ir::WarpInst> indep;
  for (int k = 0; k < 20; ++k) indep.push_back(alu(1, static_cast<uint16_t>(k)));  // SFU, ii = 8
  Cycle cycles = b.run({indep});
  EXPECT_NEAR(double(cycles), 19 * 8 + 20, 3);  // last issue at 152, its result at 172
}

TEST(CoreSm, BarrierHoldsEarlyWarpsUntilTheLastArrives) {
  SmBench b;
  std::vector<ir::WarpInst> slow, fast;
  for (int k = 0; k < 10; ++k) slow.push_back(alu(1, 1, 1));  // 10 dependent SFU ops
  slow.push_back(barrier());  // issues at ~181: the barrier does not wait for R1
  fast.push_back(barrier());
  for (int k = 0; k < 10; ++k) fast.push_back(alu(1, 1, 1));  // may only start after the barrier
  Cycle cycles = b.run({slow, fast});
  EXPECT_GE(cycles, 2 * 9 * 20u + 20);  // serialized by the barrier: ~383
  SmBench nb;
  std::vector<ir::WarpInst> fast_no_bar(fast.begin() + 1, fast.end()), slow_no_bar(slow.begin(), slow.end() - 1);
  EXPECT_LT(nb.run({slow_no_bar, fast_no_bar}), 10 * 20u + 10);  // overlapped without it: ~201
}

// Exited warps count as arrived (PTX ISA, bar.sync): the last warp of a CTA
// to exit opens the barrier its other warps wait at. Warp 0 (sub-core 0)
// waits; warp 1 (sub-core 1) retires in a tick in which nothing issues, after
// sub-core 0 was scanned (issue 17 item 4: the SM then never ticked again).
TEST(CoreSm, ExitingWarpOpensTheBarrierOthersWaitAt) {
  SmBench b;
  std::vector<ir::WarpInst> waits, exits;
  waits.push_back(barrier());
  for (int k = 0; k < 3; ++k) waits.push_back(alu(0, 1, 1));  // 3 dependent SP ops after the barrier
  for (int k = 0; k < 5; ++k) exits.push_back(alu(1, 1, 1));  // 5 dependent SFU ops, then the warp exits
  Cycle cycles = b.run({waits, exits});
  // Warp 1 retires at ~5 x 20 = 100; warp 0's three SP ops take ~12 more.
  EXPECT_NEAR(double(cycles), 5 * 20 + 3 * 4, 6);
  EXPECT_EQ(b.reg.sum("sm.0.warp_insts"), 9u);
}

// The same with both warps on one sub-core (slots 0 and 4 of four
// sub-cores): the retiring warp's scan must not leave the woken one asleep.
TEST(CoreSm, ExitingWarpOpensTheBarrierOfItsOwnSubcore) {
  SmBench b;
  std::vector<ir::WarpInst> waits, exits;
  waits.push_back(barrier());
  for (int k = 0; k < 3; ++k) waits.push_back(alu(0, 1, 1));
  for (int k = 0; k < 5; ++k) exits.push_back(alu(1, 1, 1));
  std::vector<ir::WarpInst> none;  // warps 1-3 (sub-cores 1-3) exit at once
  Cycle cycles = b.run({waits, none, none, none, exits});
  EXPECT_NEAR(double(cycles), 5 * 20 + 3 * 4, 6);
  EXPECT_EQ(b.reg.sum("sm.0.warp_insts"), 9u);
}

TEST(CoreSm, WarpsOnDifferentSubcoresIssueInParallel) {
  SmBench b;
  std::vector<std::vector<ir::WarpInst>> warps(4);
  for (auto& w : warps)
    for (int k = 0; k < 20; ++k) w.push_back(alu(1, static_cast<uint16_t>(k)));
  Cycle four = b.run(warps);
  SmBench one;
  Cycle single = one.run({warps[0]});
  EXPECT_NEAR(double(four), double(single), 3);  // four sub-cores, four SFU pipelines
}

TEST(CoreSm, WarpWaitsForItsInstructionLinesFromTheL2) {
  SmBench perfect, real({"l1i.perfect=false", "l1i.prefetch_lines=0", "l1i.latency=0"});
  // A fake L2 answering every instruction request 100 cycles after it is sent.
  fake::FakeFetchL2 l2(real, 100);
  std::vector<ir::WarpInst> code;
  for (int k = 0; k < 32; ++k) {  // 32 x 8 B = two 128 B lines
    code.push_back(alu(0, static_cast<uint16_t>(k % 8)));
    code.back().pc = 8 * k;
  }
  Cycle base = perfect.run({code});
  Cycle cold = real.run({code}, [&](Cycle c) { l2(c); });
  // Two line misses one after the other, each one request for four sectors
  // answered 100 cycles later.
  EXPECT_NEAR(double(cold - base), 2 * 101, 6);
  EXPECT_EQ(real.reg.sum("sm.0.l1i.misses"), 2u);
  EXPECT_EQ(real.reg.sum("sm.0.l1i.accesses"), 32u);
}

// A constant load that misses holds its destination until the line comes
// from the L2; the same address again hits in the constant cache.
TEST(CoreSm, ConstantMissWaitsForTheL2AndReleasesItsRegisterOnArrival) {
  SmBench perfect({"l1c.perfect=true"}), real;
  Port<MemRequest> to_l2(1024);
  real.sm->const_cache().connect(&to_l2, real.sm.get());
  std::deque<std::pair<Cycle, MemRequest>> in_l2;
  uint64_t reads = 0;
  auto l2 = [&](Cycle c) {  // answers every request 100 cycles after it is sent
    Tick t = real.clk.tick_of(c);
    while (to_l2.ready(t)) {
      EXPECT_EQ(to_l2.front().client, MemClient::Const);
      ++reads;
      in_l2.emplace_back(c + 100, to_l2.front());
      to_l2.pop();
    }
    while (!in_l2.empty() && in_l2.front().first <= c) {
      real.sm->const_cache().from_l2().push(in_l2.front().second, t);
      in_l2.pop_front();
    }
  };
  ir::WarpInst ld = fake::load(ir::MemSpace::Const, 1, 0x1000, 0);  // every lane reads 0x1000 (a broadcast)
  std::vector<ir::WarpInst> code = {ld, alu(0, 2, 1), ld, alu(0, 3, 1)};
  Cycle base = perfect.run({code});
  Cycle cold = real.run({code}, l2);
  // One 64 B line: one request for its two sectors, answered 100 cycles
  // later; the second load hits.
  EXPECT_NEAR(double(cold - base), 100, 3);
  EXPECT_EQ(reads, 1u);
  EXPECT_EQ(real.reg.sum("sm.0.ldst.l1c.fills"), 1u);
  EXPECT_EQ(real.reg.sum("sm.0.ldst.l1c.hits"), 1u);
  EXPECT_EQ(real.reg.sum("sm.0.ldst.const_accesses"), 2u);
}

ir::WarpInst alu3(uint16_t dst, uint16_t a, uint16_t b, uint16_t c) {
  ir::WarpInst i = alu(0, dst, a);
  i.n_src = 3;
  i.src[1] = b;
  i.src[2] = c;
  return i;
}

// Volta-like banks (two, two reads a cycle each), one collector unit, no reuse.
const std::vector<std::string> kTwoBanks = {"core.regfile.banks=2", "core.regfile.reads_per_bank=2",
                                            "core.collector.units=1", "core.regfile.reuse=false"};

TEST(CoreSm, BankConflictAddsAReadCycleToADependentChain) {
  std::vector<ir::WarpInst> chain;
  for (int k = 0; k < 10; ++k) chain.push_back(alu3(1, 1, 3, 5));  // R1 = f(R1, R3, R5): all in bank 1
  SmBench b(kTwoBanks);
  Cycle cycles = b.run({chain});
  EXPECT_NEAR(double(cycles), 10 * (4 + 1), 3);  // each result one cycle later than the unit latency
  EXPECT_EQ(b.reg.sum("sm.0.regfile.bank_conflict_cycles"), 10u);
  EXPECT_EQ(b.reg.sum("sm.0.regfile.operand_wait_cycles"), 10u);

  std::vector<std::string> off = kTwoBanks;
  off.push_back("core.regfile.banks=0");
  SmBench old(off);
  EXPECT_NEAR(double(old.run({chain})), 10 * 4, 3);  // the model off: as before
  EXPECT_EQ(old.reg.sum("sm.0.regfile.bank_conflict_cycles"), 0u);
}

TEST(CoreSm, ConflictingOperandsHalveIssueWithOneCollectorUnit) {
  std::vector<std::string> sets = kTwoBanks;
  sets.push_back("core.units.sp.ii=1");
  std::vector<ir::WarpInst> same, spread;
  for (int k = 0; k < 40; ++k) {
    auto dst = static_cast<uint16_t>(10 + k);
    same.push_back(alu3(dst, 1, 3, 5));    // three reads of bank 1: two cycles each
    spread.push_back(alu3(dst, 1, 2, 3));  // bank 1 twice, bank 0 once: one cycle
  }
  SmBench conflicted(sets), clean(sets);
  Cycle slow = conflicted.run({same});
  Cycle fast = clean.run({spread});
  EXPECT_NEAR(double(fast), 40 + 4, 3);      // one issue a cycle
  EXPECT_NEAR(double(slow), 2 * 40 + 4, 4);  // the unit is held two cycles per instruction
  EXPECT_EQ(clean.reg.sum("sm.0.regfile.bank_conflict_cycles"), 0u);
}

// With ii = 2 a pipeline takes an FFMA every other cycle anyway: the second
// read cycle of a conflicting instruction overlaps the pipeline's busy
// cycle, because the pipeline need only be free when the operands are read.
TEST(CoreSm, AConflictHidesUnderTheInitiationInterval) {
  std::vector<ir::WarpInst> same;
  for (int k = 0; k < 40; ++k) same.push_back(alu3(static_cast<uint16_t>(10 + k), 1, 3, 5));
  SmBench conflicted(kTwoBanks);  // sp ii = 2
  Cycle cycles = conflicted.run({same});
  EXPECT_NEAR(double(cycles), 2 * 40 + 4, 4);  // not 3 per instruction
  EXPECT_EQ(conflicted.reg.sum("sm.0.regfile.bank_conflict_cycles"), 40u);
}

// A conflict-free shared-memory load (consecutive words) writing `dst`.
ir::WarpInst lds(uint16_t dst) { return fake::load(ir::MemSpace::Shared, dst, 0, 4); }

// core.lsu_issue_interval: one warp's memory instructions issue that many
// cycles apart (the stall count ptxas gives them), another warp's in between.
TEST(CoreSm, AWarpsMemoryInstructionsIssueTheIntervalApart) {
  std::vector<ir::WarpInst> loads;
  for (uint16_t k = 1; k <= 8; ++k) loads.push_back(lds(k));
  SmBench close({"core.lsu_issue_interval=1"}), spaced({"core.lsu_issue_interval=4"});
  Cycle a = close.run({loads}), b = spaced.run({loads});
  EXPECT_EQ(b - a, 7u * 3);  // the last of eight issues at 28 instead of 7
  // Each of the seven later loads waited 3 cycles for its stall count.
  EXPECT_EQ(spaced.reg.sum("sm.0.stall.wait") - close.reg.sum("sm.0.stall.wait"), 7u * 3);
  // Two warps of one sub-core (warps 0 and 4 with four sub-cores) fill each
  // other's gaps: sixteen loads take no longer than one warp's eight.
  std::vector<ir::WarpInst> idle;  // warps 1-3 on the other sub-cores
  SmBench two({"core.lsu_issue_interval=4"});
  Cycle c = two.run({loads, idle, idle, idle, loads});
  EXPECT_LE(c, b + 2);
}

// core.branch_predicate_latency and core.branch_resolve_cycles: a branch
// testing a predicate issues that many cycles after the instruction that set
// it, and its warp's next instruction that many after the branch (ptxas's
// 13 and 5 on sm_80-sm_90).
TEST(CoreSm, ABranchWaitsForItsPredicateAndThenResolves) {
  const std::vector<std::string> units = {"sp", "sfu", "ldst", "branch"};
  ir::WarpInst setp = alu(0, 1);
  setp.sets_branch_pred = true;
  ir::WarpInst bra;
  bra.active_mask = 0xffffffff;
  bra.kind = ir::OpKind::Branch;
  bra.unit = 3;
  bra.tests_branch_pred = true;
  std::vector<ir::WarpInst> code = {setp, bra, alu(0, 2)};
  SmBench plain({"core.units.branch.latency=1"}, units);
  SmBench ptxas({"core.units.branch.latency=1", "core.branch_predicate_latency=13", "core.branch_resolve_cycles=5"},
                units);
  Cycle a = plain.run({code}), b = ptxas.run({code});
  EXPECT_EQ(b - a, 12u + 4u);  // the branch issues at 13, not 1; the add at 18, not 2
  EXPECT_EQ(ptxas.reg.sum("sm.0.stall.wait") - plain.reg.sum("sm.0.stall.wait"), 12u);
  EXPECT_EQ(ptxas.reg.sum("sm.0.stall.branch_resolving"), 4u);
  EXPECT_EQ(plain.reg.sum("sm.0.stall.branch_resolving"), 0u);
  // A branch that tests nothing (bra.uni, as an ISA table may say) does not
  // wait for the predicate; it still resolves.
  code[1].tests_branch_pred = false;
  SmBench untested({"core.units.branch.latency=1", "core.branch_predicate_latency=13", "core.branch_resolve_cycles=5"},
                   units);
  EXPECT_EQ(untested.run({code}) - a, 4u);
}

TEST(CoreSm, UndeclaredUnitIsAConfigError) {
  SmBench b;
  ir::KernelInfo k;
  k.binary_version = 70;
  EXPECT_THROW(b.sm->begin_kernel(k, {"sp", "warp_drive"}, 8), ConfigError);
}

// QV100's tensor pipe per sub-core: 2 tensor cores x 64 FMA/clock = 128; a
// warp's m16n16k16 (4096 FMA, tensor_work 64) holds it 32 cycles, and its
// result follows the last slice by the latency (8).
const std::vector<std::string> kTensorSets = {"core.units.tensor.latency=8", "core.units.tensor.ii=4",
                                              "core.units.tensor.fma_per_clk=128"};
const std::vector<std::string> kTensorUnits = {"sp", "sfu", "ldst", "tensor"};

ir::WarpInst mma(uint16_t dst, int src, uint8_t work) {
  ir::WarpInst i = alu(3, dst, src);
  i.tensor_work = work;
  return i;
}

TEST(CoreSm, IndependentMmasOccupyTheTensorPipeForTheirWork) {
  SmBench b(kTensorSets, kTensorUnits);
  std::vector<ir::WarpInst> indep;
  for (int k = 0; k < 8; ++k) indep.push_back(mma(static_cast<uint16_t>(10 + k), -1, 64));
  Cycle cycles = b.run({indep});
  EXPECT_NEAR(double(cycles), 8 * 32 + 8, 4);  // the last issues at 224, holds the pipe to 256, result at 264
}

TEST(CoreSm, DependentMmasWaitForTheLastSliceAndTheLatency) {
  SmBench b(kTensorSets, kTensorUnits);
  std::vector<ir::WarpInst> chain;
  for (int k = 0; k < 4; ++k) chain.push_back(mma(1, 1, 32));  // m16n8k16: 2048 FMA, 16 cycles
  Cycle cycles = b.run({chain});
  EXPECT_NEAR(double(cycles), 4 * (16 + 8), 4);
}

// Tensor instructions without a shape (tensor_work 0) keep the unit's ii.
TEST(CoreSm, ShapelessTensorInstructionsUseTheInitiationInterval) {
  SmBench b(kTensorSets, kTensorUnits);
  std::vector<ir::WarpInst> indep;
  for (int k = 0; k < 8; ++k) indep.push_back(mma(static_cast<uint16_t>(10 + k), -1, 0));
  Cycle cycles = b.run({indep});
  EXPECT_NEAR(double(cycles), 7 * 4 + 8, 4);
}

}  // namespace
}  // namespace ws::timing
