// Issue-stall attribution: the accounting alone with hand-set thresholds,
// then small kernels through one SM whose waits can be worked out by hand.
#include <gtest/gtest.h>

#include <deque>
#include <string>
#include <vector>

#include "core/fake_insts.h"
#include "core/sm_bench.h"
#include "timing/core/stall_reasons.h"

namespace ws::timing {
namespace {

using fake::alu;
using fake::barrier;
using fake::SmBench;

size_t at(Stall s) { return static_cast<size_t>(s); }

StallCounts attribute(Cycle from, Cycle now, const std::array<StallCause, 6>& causes) {
  StallCounts n{};
  attribute_issue(from, now, causes, [&](Stall r, Cycle c) { n[at(r)] += c; });
  return n;
}

TEST(StallAccounting, EachCycleGoesToTheFirstCauseStillHolding) {
  // Issue at 30, previous issue at 9: cycles 10..29 to attribute.
  StallCounts n = attribute(10, 30, {{{Stall::Barrier, 0},
                                      {Stall::Membar, 5},  // ended before the interval
                                      {Stall::NoInstruction, 15},
                                      {Stall::LongScoreboard, 25},
                                      {Stall::LgThrottle, 20},  // covered by the scoreboard wait
                                      {Stall::MathPipeThrottle, 28}}});
  EXPECT_EQ(n[at(Stall::NoInstruction)], 5u);    // 10..14
  EXPECT_EQ(n[at(Stall::LongScoreboard)], 10u);  // 15..24
  EXPECT_EQ(n[at(Stall::LgThrottle)], 0u);
  EXPECT_EQ(n[at(Stall::MathPipeThrottle)], 3u);  // 25..27
  EXPECT_EQ(n[at(Stall::NotSelected)], 2u);       // 28, 29: ready, not picked
  EXPECT_EQ(n[at(Stall::Selected)], 1u);
  EXPECT_EQ(n[at(Stall::Membar)] + n[at(Stall::Barrier)], 0u);
}

TEST(StallAccounting, AResourceHeldOnlyLaterLeavesTheWarpNotSelectedBefore) {
  // The pipeline was held [20, 26) by another warp's instruction; the warp
  // was ready from 10 (nothing else held it): 10..19 not selected.
  StallCounts n = attribute(10, 26, {{{Stall::Barrier, 0},
                                      {Stall::Membar, 0},
                                      {Stall::NoInstruction, 0},
                                      {Stall::Wait, 0},
                                      {Stall::LgThrottle, 0},
                                      {Stall::MathPipeThrottle, 26, 20}}});
  EXPECT_EQ(n[at(Stall::NotSelected)], 10u);
  EXPECT_EQ(n[at(Stall::MathPipeThrottle)], 6u);
}

TEST(StallAccounting, APipelineTakingOtherWarpsInstructionsLeavesTheirIssueCyclesNotSelected) {
  // A run of 4 instructions held the pipeline over [20, 40) (ii = 5): on 4 of
  // those 20 cycles it was free and took one. The warp waited over all of it.
  StallCounts n = attribute(20, 40, {{{Stall::Barrier, 0},
                                      {Stall::Membar, 0},
                                      {Stall::NoInstruction, 0},
                                      {Stall::Wait, 0},
                                      {Stall::LgThrottle, 0},
                                      {Stall::MathPipeThrottle, 40, 20, 4}}});
  EXPECT_EQ(n[at(Stall::MathPipeThrottle)], 16u);
  EXPECT_EQ(n[at(Stall::NotSelected)], 4u);
  // Waiting over the second half only: half the issue cycles.
  n = attribute(30, 40, {{{Stall::MathPipeThrottle, 40, 20, 4}}});
  EXPECT_EQ(n[at(Stall::MathPipeThrottle)], 8u);
  EXPECT_EQ(n[at(Stall::NotSelected)], 2u);
}

TEST(StallAccounting, APendingWaitIsCutAtTheIssueAndAnIssueRightAfterTheLastStallsNothing) {
  StallCounts n = attribute(10, 40, {{{Stall::Barrier, kPending}}});
  EXPECT_EQ(n[at(Stall::Barrier)], 30u);
  n = attribute(10, 10, {{{Stall::Barrier, 50}}});  // issued the cycle after the previous one
  uint64_t total = 0;
  for (uint64_t c : n) total += c;
  EXPECT_EQ(total, 1u);
  EXPECT_EQ(n[at(Stall::Selected)], 1u);
}

StallCounts stalls(const SmBench& b) {
  StallCounts n{};
  for (size_t r = 0; r < kStallReasons; ++r) n[r] = b.reg.sum(std::string("sm.0.stall.") + kStallNames[r]);
  return n;
}

// Every resident warp cycle lands in exactly one reason: the counts add up
// to the occupancy integral the SM keeps on its own.
void expect_all_cycles_attributed(const SmBench& b) {
  uint64_t total = 0;
  for (uint64_t c : stalls(b)) total += c;
  EXPECT_EQ(total, b.reg.sum("sm.0.warp_cycles"));
  EXPECT_EQ(stalls(b)[at(Stall::Selected)], b.reg.sum("sm.0.warp_insts"));
}

TEST(StallSm, FixedLatencyChainWaitsLatencyMinusOnePerInstruction) {
  SmBench b;  // sp: latency 4
  std::vector<ir::WarpInst> chain;
  for (int k = 0; k < 10; ++k) chain.push_back(alu(0, 1, 1));  // R1 = f(R1)
  b.run({chain});
  StallCounts n = stalls(b);
  EXPECT_EQ(n[at(Stall::Wait)], 9u * 3);  // issues 4 cycles apart
  EXPECT_EQ(n[at(Stall::Selected)], 10u);
  EXPECT_EQ(n[at(Stall::NotSelected)] + n[at(Stall::ShortScoreboard)] + n[at(Stall::LongScoreboard)], 0u);
  // After the last issue the warp waits for R1 (3 cycles) before it retires.
  EXPECT_NEAR(double(n[at(Stall::Drain)]), 3, 1);
  expect_all_cycles_attributed(b);
}

TEST(StallSm, SfuResultsAreShortScoreboardWaits) {
  SmBench b;  // sfu: latency 20, a variable-latency (MIO) unit by default (stats.mio_units)
  std::vector<ir::WarpInst> chain;
  for (int k = 0; k < 5; ++k) chain.push_back(alu(1, 1, 1));
  b.run({chain});
  EXPECT_EQ(stalls(b)[at(Stall::ShortScoreboard)], 4u * 19);
  EXPECT_EQ(stalls(b)[at(Stall::Wait)], 0u);
  SmBench fixed({"stats.mio_units="});
  fixed.run({chain});
  EXPECT_EQ(stalls(fixed)[at(Stall::Wait)], 4u * 19);
  expect_all_cycles_attributed(b);
}

TEST(StallSm, EarlyWarpWaitsAtTheBarrierForTheLateOne) {
  SmBench b;
  std::vector<ir::WarpInst> slow, fast;
  for (int k = 0; k < 5; ++k) slow.push_back(alu(1, 1, 1));  // 5 dependent SFU ops: the last issues at 80
  slow.push_back(barrier());                                  // at 81 (it does not wait for R1)
  fast.push_back(barrier());                                  // at 0
  fast.push_back(alu(0, 2));
  b.run({slow, fast});
  // The fast warp (a sub-core of its own) waits at the barrier from cycle 1
  // until the slow warp's arrival opens it at 81.
  EXPECT_NEAR(double(stalls(b)[at(Stall::Barrier)]), 80, 2);
  expect_all_cycles_attributed(b);
}

TEST(StallSm, ColdInstructionLinesAreNoInstruction) {
  SmBench b({"l1i.perfect=false", "l1i.prefetch_lines=0", "l1i.latency=0"});
  fake::FakeFetchL2 l2(b, 100);
  std::vector<ir::WarpInst> code;
  for (int k = 0; k < 32; ++k) {  // 32 independent instructions in two 128 B lines
    code.push_back(alu(0, static_cast<uint16_t>(k % 8)));
    code.back().pc = 8 * k;
  }
  b.run({code}, [&](Cycle c) { l2(c); });
  // Two misses one after the other, each four sectors sent a cycle apart and
  // answered 100 cycles later (the SM test of the same code: 2 x 104 cycles).
  EXPECT_NEAR(double(stalls(b)[at(Stall::NoInstruction)]), 2 * 104, 6);
  expect_all_cycles_attributed(b);
}

// Warps 0 and 4 share sub-core 0 (warps 1-3, on the others, exit at once).
TEST(StallSm, TwoReadyWarpsOnOneSubcoreLeaveOneNotSelectedEachCycle) {
  std::vector<ir::WarpInst> indep;
  for (int k = 0; k < 20; ++k) indep.push_back(alu(0, static_cast<uint16_t>(10 + k)));  // sp, ii = 1
  std::vector<ir::WarpInst> none;
  for (const char* sched : {"gto", "lrr"}) {
    SmBench b({"core.units.sp.ii=1", std::string("core.scheduler=") + sched});
    b.run({indep, none, none, none, indep});
    // One issue a cycle for 40 cycles; on each of the first ~39 the other
    // warp, ready, waits (gto: the second warp for the first 20; lrr: each
    // every other cycle). The pipeline is free at the start of every cycle.
    uint64_t expect = std::string(sched) == "gto" ? 20 : 39;
    EXPECT_NEAR(double(stalls(b)[at(Stall::NotSelected)]), double(expect), 1) << sched;
    EXPECT_EQ(stalls(b)[at(Stall::MathPipeThrottle)], 0u) << sched;
    expect_all_cycles_attributed(b);
  }
}

// With ii = 2 the pipeline is held the cycle after each issue: a warp
// wanting it then is throttled, and not selected on the others' issue cycles.
TEST(StallSm, ABusyPipelineIsMathPipeThrottle) {
  std::vector<ir::WarpInst> indep;
  for (int k = 0; k < 20; ++k) indep.push_back(alu(0, static_cast<uint16_t>(10 + k)));
  std::vector<ir::WarpInst> none;
  SmBench b;  // sp: ii = 2; gto: warp 0 issues at 0, 2, ..., 38, warp 4 at 40, ..., 78
  b.run({indep, none, none, none, indep});
  StallCounts n = stalls(b);
  // Each warp waits one cycle between its own issues (2 x 19); warp 4 waits
  // [0, 40) for warp 0's run: 20 cycles held, 20 issue cycles.
  EXPECT_NEAR(double(n[at(Stall::MathPipeThrottle)]), 2 * 19 + 20, 2);
  EXPECT_NEAR(double(n[at(Stall::NotSelected)]), 20, 2);
  expect_all_cycles_attributed(b);
}

ir::WarpInst global_load(uint16_t dst, uint16_t addr_reg) {
  ir::WarpInst i = fake::load(ir::MemSpace::Global, dst, 0x1000, 0);  // every lane reads 0x1000
  i.n_src = 1;
  i.src[0] = addr_reg;
  return i;
}

// Long scoreboard of a chain of `loads` dependent global loads (the first
// misses to a fake L2 answering in 100 cycles, the rest hit) and one use.
uint64_t load_chain_long_scoreboard(int loads) {
  SmBench b({"l1d.latency=28"});
  Port<MemRequest> to_l2(1024);
  L1D& l1 = b.sm->l1();
  l1.connect(&to_l2);
  std::deque<std::pair<Cycle, MemRequest>> in_l2;
  auto memory = [&](Cycle c) {
    Tick t = b.clk.tick_of(c);
    while (to_l2.ready(t)) {
      MemRequest r = to_l2.front();
      r.is_reply = true;
      in_l2.emplace_back(c + 100, r);
      to_l2.pop();
    }
    while (!in_l2.empty() && in_l2.front().first <= c && l1.from_icnt().can_push(t)) {
      l1.from_icnt().push(in_l2.front().second, t);
      in_l2.pop_front();
    }
    if (l1.next_event() <= t) l1.tick();
  };
  std::vector<ir::WarpInst> chain;
  for (int k = 0; k < loads; ++k) chain.push_back(global_load(1, 1));
  chain.push_back(alu(0, 2, 1));
  b.run({chain}, memory);
  expect_all_cycles_attributed(b);
  EXPECT_EQ(stalls(b)[at(Stall::Wait)] + stalls(b)[at(Stall::ShortScoreboard)], 0u);
  return stalls(b)[at(Stall::LongScoreboard)];
}

TEST(StallSm, DependentGlobalLoadsWaitTheLoadLatencyAsLongScoreboard) {
  uint64_t one = load_chain_long_scoreboard(1), nine = load_chain_long_scoreboard(9);
  EXPECT_GE(one, 100u);  // the miss
  // Eight more hits, each used 28 cycles after its issue (l1d.latency).
  EXPECT_NEAR(double(nine - one), 8 * 27, 8);
}

// Stores from four warps (0, 4, 8, 12: all on sub-core 0) through a
// one-access LD/ST queue whose L1 can send one line every 32 cycles; `extra`
// adds warps of the same CTA (warp 1 is on sub-core 1).
struct StoreFlood {
  SmBench b{{"core.ldst_queue=1"}};
  Port<MemRequest> to_l2{1};
  explicit StoreFlood(const std::vector<std::pair<uint32_t, std::vector<ir::WarpInst>>>& extra = {}) {
    L1D& l1 = b.sm->l1();
    l1.connect(&to_l2);
    auto memory = [&](Cycle c) {
      Tick t = b.clk.tick_of(c);
      if (c % 32 == 0 && to_l2.ready(t)) to_l2.pop();  // a line's store (one message) per 32 cycles
      if (l1.next_event() <= t) l1.tick();
    };
    std::vector<std::vector<ir::WarpInst>> warps(13);
    for (uint32_t w : {0u, 4u, 8u, 12u})
      for (int k = 0; k < 8; ++k) {
        ir::WarpInst st = global_load(0, 1);
        st.kind = ir::OpKind::Store;
        st.n_dst = 0;
        st.base = 0x10000 + 0x1000 * w + 128 * static_cast<Addr>(k);
        st.stride = 4;  // one line, four sectors
        warps[w].push_back(st);
      }
    for (const auto& [w, insts] : extra) warps[w] = insts;
    b.run(warps, memory);
  }
  // Warp cycles of every kind, over all warps.
  uint64_t warp_cycles() {
    uint64_t n = 0;
    for (uint64_t c : stalls(b)) n += c;
    return n;
  }
};

// The queue is full nearly all the time, and the warps' waits for it are
// lg_throttle, not "not selected".
TEST(StallSm, AFullLdstQueueIsLgThrottle) {
  StoreFlood f;
  StallCounts n = stalls(f.b);
  uint64_t waited = 0;
  for (size_t r = 0; r < kStallReasons; ++r)
    if (r != at(Stall::Selected) && r != at(Stall::Drain)) waited += n[r];
  EXPECT_GT(n[at(Stall::LgThrottle)], waited * 8 / 10)
      << n[at(Stall::LgThrottle)] << " of " << waited << ", not selected " << n[at(Stall::NotSelected)];
  // 32 line stores leave at one per 32 cycles (1024 cycles): the queue is
  // full for most of them.
  EXPECT_GT(f.b.reg.sum("sm.0.ldst.queue_full_cycles"), 32u * 4 * 8 * 6 / 10);
  expect_all_cycles_attributed(f.b);
}

// Shared-memory instructions go through the MIO queue, not the LG queue the
// stores fill: a warp of eight independent shared loads (and one use) lives
// about as long alone as beside the flood (ncu: lg_throttle and mio_throttle
// are two queues). Held by the LG queue it would live hundreds of cycles.
TEST(StallSm, SharedLoadsDoNotWaitForAFullLgQueue) {
  std::vector<ir::WarpInst> shared;
  for (uint16_t k = 0; k < 8; ++k) shared.push_back(fake::load(ir::MemSpace::Shared, static_cast<uint16_t>(2 + k), 0x100 * k, 4));
  shared.push_back(alu(0, 20, 9));
  SmBench alone;
  Cycle alone_cycles = alone.run({{}, shared});
  StoreFlood without, with({{1u, shared}});
  ASSERT_GT(without.b.clk.now(), 800u);  // the flood keeps the LG queue full ~850 cycles
  uint64_t lifetime = with.warp_cycles() - without.warp_cycles();
  EXPECT_LE(lifetime, alone_cycles + 8) << "alone: " << alone_cycles;
  EXPECT_EQ(stalls(with.b)[at(Stall::MioThrottle)], 0u);
  expect_all_cycles_attributed(with.b);
}

// Eight shared loads, each a 32-way bank conflict (32 cycles in the pipe),
// then a use of the last. With room for two in the MIO queue, issue waits
// for the pipe (mio_throttle); unbounded, the loads issue at once and wait
// in the pipe (short_scoreboard). The pipe sets the time either way.
TEST(StallSm, AFullMioQueueIsMioThrottle) {
  std::vector<ir::WarpInst> loads;
  for (uint16_t k = 0; k < 8; ++k) loads.push_back(fake::load(ir::MemSpace::Shared, static_cast<uint16_t>(2 + k), 4 * k, 128));
  loads.push_back(alu(0, 20, 9));
  auto run = [&](const char* queue) {
    SmBench b({queue});
    Cycle end = b.run({loads});
    expect_all_cycles_attributed(b);
    return std::pair{end, stalls(b)};
  };
  auto [end0, n0] = run("core.mio_queue=0");
  auto [end2, n2] = run("core.mio_queue=2");
  EXPECT_EQ(n0[at(Stall::MioThrottle)], 0u);
  // Loads 4..8 wait for the pipe to take the one three ahead: about 5 x 32 cycles.
  EXPECT_GT(n2[at(Stall::MioThrottle)], 4u * 32);
  EXPECT_LT(n2[at(Stall::ShortScoreboard)], n0[at(Stall::ShortScoreboard)]);
  EXPECT_NEAR(double(end2), double(end0), 4);
}

// Room in a full MIO queue goes to the sub-cores in turn: 32 warps, eight per
// sub-core, each loop four independent 2-wavefront shared loads and a use of
// their results. With a fixed scan order sub-core 0's warps took every slot
// the queue opened and the others' ran on after them, the pipe idle at times
// (4,256 cycles against the pipe's 4,096; 4,128 in turn).
TEST(StallSm, MioQueueRoomGoesToTheSubCoresInTurn) {
  std::vector<ir::WarpInst> loop;
  for (int r = 0; r < 16; ++r) {
    for (uint16_t k = 0; k < 4; ++k) {
      ir::WarpInst ld = fake::load(ir::MemSpace::Shared, static_cast<uint16_t>(2 + k), 2048 * k, 8);
      ld.access_bytes = 8;  // two wavefronts: 16 lanes' 8 bytes fill the 32 banks
      loop.push_back(ld);
    }
    ir::WarpInst use = alu(0, 6, 2);
    use.n_src = 4;
    for (uint16_t k = 0; k < 4; ++k) use.src[k] = static_cast<uint16_t>(2 + k);
    loop.push_back(use);
  }
  SmBench b({"core.mio_queue=4"});
  Cycle end = b.run(std::vector<std::vector<ir::WarpInst>>(32, loop));
  expect_all_cycles_attributed(b);
  const Cycle pipe = 32 * 16 * 4 * 2;  // wavefronts, one a cycle
  EXPECT_GE(end, pipe);
  EXPECT_LT(end, pipe + 64);
}

// A shared-memory store writes no register, but its warp ends only once the
// pipe has performed it: eight stores with 32-way bank conflicts (32 cycles
// each) keep a warp alive about 256 cycles, not the 8 it takes to issue them.
TEST(StallSm, SharedStoresHoldTheirWarpUntilPerformed) {
  std::vector<ir::WarpInst> stores;
  for (uint16_t k = 0; k < 8; ++k) {
    ir::WarpInst st = fake::load(ir::MemSpace::Shared, 0, 4 * k, 128);
    st.kind = ir::OpKind::Store;
    st.n_dst = 0;
    stores.push_back(st);
  }
  SmBench b;
  Cycle end = b.run({stores});
  expect_all_cycles_attributed(b);
  EXPECT_GE(end, 8u * 32);
  EXPECT_LT(end, 8u * 32 + 40);
}

// A warp that ends on a store exits core.store_drain_latency cycles after
// the L1 took it (ncu's drain); with 0 the store does not hold it. The fake
// L2 takes a message per cycle, so the store leaves the LD/ST queue at once.
TEST(StallSm, AStoreHoldsItsWarpForTheDrainLatency) {
  auto run = [](const char* drain) {
    SmBench b({drain});
    Port<MemRequest> to_l2(64);
    L1D& l1 = b.sm->l1();
    l1.connect(&to_l2);
    ir::WarpInst st = global_load(0, 1);
    st.kind = ir::OpKind::Store;
    st.n_dst = 0;
    st.stride = 4;  // one line
    Cycle end = b.run({{st}}, [&](Cycle c) {
      Tick t = b.clk.tick_of(c);
      while (to_l2.ready(t)) to_l2.pop();
      if (l1.next_event() <= t) l1.tick();
    });
    expect_all_cycles_attributed(b);
    return std::pair{end, stalls(b)[at(Stall::Drain)]};
  };
  auto [end0, drain0] = run("core.store_drain_latency=0");
  auto [end20, drain20] = run("core.store_drain_latency=20");
  EXPECT_LE(drain0, 1u);
  // Taken by the L1 the cycle after its issue; the warp's last cycle is 20 later.
  EXPECT_NEAR(double(drain20), 20, 1);
  EXPECT_NEAR(double(end20 - end0), 20, 1);
}

TEST(StallSm, CountsAreTheSameRunAfterRunAndOffWhenDisabled) {
  std::vector<ir::WarpInst> mix;
  for (int k = 0; k < 12; ++k) mix.push_back(alu(static_cast<uint8_t>(k % 2), static_cast<uint16_t>(k % 3), k % 3));
  std::vector<ir::WarpInst> none;
  SmBench a, b, off({"stats.stall_reasons=false"});
  a.run({mix, mix, none, none, mix, mix});
  b.run({mix, mix, none, none, mix, mix});
  EXPECT_EQ(stalls(a), stalls(b));
  expect_all_cycles_attributed(a);
  Cycle with = a.clk.now(), without = off.run({mix, mix, none, none, mix, mix});
  EXPECT_EQ(without, with + 1);  // the same timing (run() returns the cycle after the last tick)
  EXPECT_EQ(stalls(off), StallCounts{});
}

}  // namespace
}  // namespace ws::timing
