// The dispatcher with two SMs and fake kernels (CTAs of ALU chains), ticked
// by hand: left-over order between kernels, resource sharing on an SM,
// per-kernel counts.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "common/error.h"
#include "config/config.h"
#include "stats/stats.h"
#include "timing/core/sm.h"
#include "timing/gpu/dispatcher.h"

namespace ws::timing {
namespace {

// One-warp-per-32-threads CTAs, each warp a chain of `length` dependent ALU ops.
class ChainCta : public ir::CtaSource {
 public:
  ChainCta(uint32_t warps, uint32_t length) : left_(warps, length) {
    inst_.active_mask = 0xffffffff;
    inst_.unit = 0;
    inst_.n_dst = inst_.n_src = 1;
    inst_.dst[0] = inst_.src[0] = 1;
  }
  Dim3 cta_id() const override { return {}; }
  uint32_t num_warps() const override { return static_cast<uint32_t>(left_.size()); }
  const ir::WarpInst* next(uint32_t w) override { return left_[w]-- > 0 ? &inst_ : nullptr; }

 private:
  std::vector<int64_t> left_;
  ir::WarpInst inst_;
};

class FakeKernel : public ir::KernelSource {
 public:
  FakeKernel(uint32_t ctas, uint32_t threads, uint32_t length) : ctas_(ctas), length_(length) {
    info_.name = "fake";
    info_.grid = Dim3{ctas, 1, 1};
    info_.block = Dim3{threads, 1, 1};
  }
  const ir::KernelInfo& info() const override { return info_; }
  const std::vector<std::string>& unit_names() const override { return units_; }
  std::unique_ptr<ir::CtaSource> next_cta() override {
    if (handed_ == ctas_) return nullptr;
    ++handed_;
    return std::make_unique<ChainCta>(info_.warps_per_cta(), length_);
  }

 private:
  ir::KernelInfo info_;
  std::vector<std::string> units_{"sp", "ldst"};
  uint32_t ctas_, length_, handed_ = 0;
};

struct Bench {
  config::Config cfg;
  stats::Registry reg;
  ClockDomain clk{"core", ClockPeriod{1000}};
  std::vector<std::unique_ptr<Sm>> sms;
  std::unique_ptr<Dispatcher> dispatcher;
  explicit Bench(const std::vector<std::string>& sets = {}) {
    for (const char* s : {"l1i.perfect=true", "core.units.sp.latency=4", "core.units.sp.ii=1", "core.max_warps=8",
                          "core.subcores=4"})
      cfg.set_assignment(s);
    for (const std::string& s : sets) cfg.set_assignment(s);
    std::vector<Sm*> ptrs;
    for (uint16_t i = 0; i < 2; ++i) {
      sms.push_back(std::make_unique<Sm>(cfg, stats::Scope(reg, "sm." + std::to_string(i)), clk, i));
      ptrs.push_back(sms.back().get());
    }
    dispatcher = std::make_unique<Dispatcher>(cfg, clk, ptrs);
  }
  // A context for `k`: `warps` per CTA, at most `limit` per SM alone.
  SmKernel context(FakeKernel& k, uint32_t limit) {
    SmKernel c;
    c.unit_of = sms[0]->map_units(k.info(), k.unit_names());
    c.needs = CtaNeeds{k.info().warps_per_cta(), static_cast<uint32_t>(k.info().block.count()), 0, 0};
    c.max_ctas_per_sm = limit;
    c.size_for(sms.size());
    return c;
  }
  Cycle next = 0;  // the next cycle to tick
  // Ticks on until `done` holds; returns the cycle reached.
  template <class F>
  Cycle run_until(F done) {
    for (; !done() && next < 100000; ++next) {
      clk.set_now(next);
      if (dispatcher->next_event() <= clk.now_tick()) dispatcher->tick();
      for (auto& sm : sms)
        if (sm->next_event() <= clk.now_tick()) sm->tick();
    }
    return next;
  }
};

// Kernel A: 4 CTAs of 4 warps: with 8 warp slots per SM, two per SM fill
// both SMs, so B's CTAs wait for room; B starts only after all of A's CTAs
// are out (left-over order) even though B was added with the same first cycle.
TEST(TimingDispatcher, LaterKernelFillsRoomTheEarlierLeaves) {
  Bench b;
  FakeKernel a(4, 128, 50), k2(2, 32, 10);
  SmKernel ca = b.context(a, 8), cb = b.context(k2, 8);
  b.dispatcher->add(a, ca, 0);
  b.dispatcher->add(k2, cb, 0);
  b.run_until([&] { return b.dispatcher->ctas_dispatched(ca) == 4; });
  EXPECT_EQ(b.dispatcher->ctas_dispatched(cb), 0u);  // no room: A holds all 8 warp slots on each SM
  Cycle a_done = b.run_until([&] { return b.dispatcher->done(ca); });
  Cycle both = b.run_until([&] { return b.dispatcher->done(ca) && b.dispatcher->done(cb); });
  EXPECT_GT(both, a_done / 2);  // B ran after room opened, not beside a full A
  EXPECT_EQ(ca.ctas_done(), 4u);
  EXPECT_EQ(cb.ctas_done(), 2u);
  // Own counts: 4 CTAs x 4 warps x 50, and 2 x 1 x 10.
  EXPECT_EQ(ca.total().warp_insts, 800u);
  EXPECT_EQ(cb.total().warp_insts, 20u);
  EXPECT_EQ(b.reg.sum("sm.*.warp_insts"), 820u);
}

// gpu.cta_placement: one-CTA kernels run one after the other all land on SM
// 0 under `restart` (a kernel launched in a loop finds its code where it
// left it); under `continue` the round robin carries on to SM 1.
TEST(TimingDispatcher, PlacementRestartsOrContinuesTheRoundRobin) {
  for (std::string placement : {"restart", "continue"}) {
    Bench b({"gpu.cta_placement=" + placement});
    FakeKernel a(1, 32, 10), k2(1, 32, 10);
    SmKernel ca = b.context(a, 8), cb = b.context(k2, 8);
    b.dispatcher->add(a, ca, 0);
    b.run_until([&] { return b.dispatcher->done(ca); });
    b.dispatcher->add(k2, cb, b.next);
    b.run_until([&] { return b.dispatcher->done(cb); });
    bool restart = placement == "restart";
    EXPECT_EQ(b.reg.sum("sm.0.warp_insts"), restart ? 20u : 10u) << placement;
    EXPECT_EQ(b.reg.sum("sm.1.warp_insts"), restart ? 0u : 10u) << placement;
  }
  EXPECT_THROW(Bench({"gpu.cta_placement=random"}), ConfigError);
}

// Two small kernels (one 1-warp CTA each) share an SM when it has room: both
// finish in about one chain's time, not two.
TEST(TimingDispatcher, SmallKernelsShareTheGpu) {
  Bench b;
  FakeKernel a(1, 32, 200), k2(1, 32, 200);
  SmKernel ca = b.context(a, 8), cb = b.context(k2, 8);
  b.dispatcher->add(a, ca, 0);
  b.dispatcher->add(k2, cb, 0);
  Cycle both = b.run_until([&] { return b.dispatcher->done(ca) && b.dispatcher->done(cb); });
  EXPECT_LT(both, 200 * 4 + 200);  // a chain of 200 takes ~800 cycles; in sequence ~1600
  EXPECT_GT(both, 200 * 4 - 10);
}

// A kernel's own occupancy limit holds beside others: at most one of its
// CTAs per SM even though warps would allow more.
TEST(TimingDispatcher, KernelLimitPerSmHolds) {
  Bench b;
  FakeKernel a(4, 32, 100);
  SmKernel ca = b.context(a, 1);
  b.dispatcher->add(a, ca, 0);
  b.run_until([&] { return b.dispatcher->ctas_dispatched(ca) == 2; });
  Cycle t = b.next;
  b.run_until([&] { return b.next > t + 50; });
  EXPECT_EQ(b.dispatcher->ctas_dispatched(ca), 2u);  // one per SM until one finishes
  EXPECT_EQ(ca.resident[0] + ca.resident[1], 2u);
  b.run_until([&] { return b.dispatcher->done(ca); });
  EXPECT_EQ(ca.ctas_done(), 4u);
}

// Between windows (SMs in several partitions), the dispatcher plans the
// cycles of a window as tick() would, one CTA per SM per cycle, from the
// room the SMs have when it plans (reservations count); each SM starts its
// CTAs at their cycles. 2-warp CTAs, 8 warp slots: 4 per SM fit.
TEST(TimingDispatcher, PlanReservesRoomAndSmsLaunchAtTheirCycles) {
  Bench b;
  FakeKernel a(12, 64, 30);
  SmKernel ca = b.context(a, 8);
  b.dispatcher->add(a, ca, 5);
  EXPECT_EQ(b.dispatcher->next_cycle(0), 5u);  // the kernel's first cycle
  b.dispatcher->plan(0, 7);                    // cycles 5 and 6: two per SM
  EXPECT_EQ(b.dispatcher->ctas_dispatched(ca), 4u);
  EXPECT_EQ(ca.resident[0], 2u);
  EXPECT_EQ(b.sms[0]->live_ctas(), 0u);  // not before their cycles
  auto tick_sms = [&](Cycle c) {
    b.clk.set_now(c);
    for (auto& sm : b.sms)
      if (sm->next_event() <= b.clk.now_tick()) sm->tick();
  };
  EXPECT_EQ(b.sms[0]->next_event(), b.clk.tick_of(5));
  tick_sms(5);
  EXPECT_EQ(b.sms[0]->live_ctas(), 1u);
  EXPECT_EQ(b.sms[1]->live_ctas(), 1u);
  tick_sms(6);
  EXPECT_EQ(b.sms[0]->live_ctas(), 2u);
  b.dispatcher->plan(7, 20);  // room for two more each, at cycles 7 and 8
  EXPECT_EQ(b.dispatcher->ctas_dispatched(ca), 8u);
  EXPECT_FALSE(b.sms[0]->can_host(ca));
  EXPECT_FALSE(b.sms[1]->can_host(ca));
  EXPECT_EQ(b.dispatcher->next_cycle(9), Dispatcher::kNoCycle);  // full until a CTA ends
  for (Cycle c = 7; c <= 8; ++c) tick_sms(c);
  EXPECT_EQ(b.sms[0]->live_ctas() + b.sms[1]->live_ctas(), 4u + 4u);
}

}  // namespace
}  // namespace ws::timing
