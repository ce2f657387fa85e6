// An SM alone, fed by a fake CTA source and ticked by hand (shared by the
// SM and stall-reason tests).
#pragma once
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "config/config.h"
#include "core/fake_insts.h"
#include "stats/stats.h"
#include "timing/core/sm.h"

namespace ws::timing::fake {

// Instructions per warp given up front.
class FakeCta : public ir::CtaSource {
 public:
  explicit FakeCta(std::vector<std::vector<ir::WarpInst>> warps) : warps_(std::move(warps)), pos_(warps_.size(), 0) {}
  Dim3 cta_id() const override { return {}; }
  uint32_t num_warps() const override { return static_cast<uint32_t>(warps_.size()); }
  const ir::WarpInst* next(uint32_t w) override {
    return pos_[w] < warps_[w].size() ? &warps_[w][pos_[w]++] : nullptr;
  }

 private:
  std::vector<std::vector<ir::WarpInst>> warps_;
  std::vector<size_t> pos_;
};

inline ir::WarpInst barrier() {
  ir::WarpInst i;
  i.active_mask = 0xffffffff;
  i.kind = ir::OpKind::Barrier;
  i.unit = 2;
  return i;
}

// Unit ids: 0 = "sp", 1 = "sfu", 2 = "ldst" unless `units` says otherwise.
struct SmBench {
  config::Config cfg;
  stats::Registry reg;
  ClockDomain clk{"core", ClockPeriod{1000}};
  std::unique_ptr<Sm> sm;
  explicit SmBench(const std::vector<std::string>& sets = {},
                   const std::vector<std::string>& units = {"sp", "sfu", "ldst"}) {
    for (const char* s : {"l1i.perfect=true", "core.units.sp.latency=4", "core.units.sp.ii=2", "core.units.sfu.latency=20",
                          "core.units.sfu.ii=8", "core.units.branch.latency=2"})
      cfg.set_assignment(s);
    for (const auto& s : sets) cfg.set_assignment(s);
    sm = std::make_unique<Sm>(cfg, stats::Scope(reg, "sm.0"), clk, 0);
    ir::KernelInfo k;
    k.name = "fake";
    sm->begin_kernel(k, units, 8);
  }
  // Ticks until the CTA finishes; returns the cycle of the last tick.
  // `each_cycle` stands in for the memory system, if any.
  Cycle run(std::vector<std::vector<ir::WarpInst>> warps, const std::function<void(Cycle)>& each_cycle = {}) {
    sm->launch(std::make_unique<FakeCta>(std::move(warps)));
    Cycle c = 0;
    for (; sm->live_ctas() > 0 && c < 100000; ++c) {
      clk.set_now(c);
      if (each_cycle) each_cycle(c);
      if (sm->next_event() <= clk.now_tick()) sm->tick();
    }
    return c;
  }
};

// Stands in for the L2 behind the SM's instruction fetch: answers every
// sector `latency` cycles after it is sent. Call it from SmBench::run's
// `each_cycle` (by reference: the fetch unit holds its port).
class FakeFetchL2 {
 public:
  FakeFetchL2(SmBench& b, Cycle latency) : b_(b), latency_(latency) { b.sm->fetch_unit().connect(&to_l2_, b.sm.get()); }
  FakeFetchL2(const FakeFetchL2&) = delete;
  void operator()(Cycle c) {
    Tick t = b_.clk.tick_of(c);
    while (to_l2_.ready(t)) {
      in_l2_.emplace_back(c + latency_, to_l2_.front());
      to_l2_.pop();
    }
    while (!in_l2_.empty() && in_l2_.front().first <= c) {
      b_.sm->fetch_unit().from_l2().push(in_l2_.front().second, t);
      in_l2_.pop_front();
    }
  }

 private:
  SmBench& b_;
  Cycle latency_;
  Port<MemRequest> to_l2_{1024};
  std::deque<std::pair<Cycle, MemRequest>> in_l2_;
};

}  // namespace ws::timing::fake
