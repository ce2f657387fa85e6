// Hands the CTAs of the running kernels to SMs, at most one per SM per
// cycle, from each kernel's first-dispatch cycle on, as long as the SM has
// room (Sm::can_host). Kernels are served in the order they were added: a
// later kernel's CTAs go out only once every earlier kernel has handed out
// all of its own, so it fills the room they leave (the "left-over" policy
// of concurrent kernel execution).
#pragma once
#include <memory>
#include <vector>

#include "config/config.h"
#include "ir/source.h"
#include "timing/core/sm_kernel.h"
#include "timing/engine/clocked.h"

namespace ws::timing {

class Sm;

class Dispatcher : public Clocked {
 public:
  Dispatcher(const config::Config& cfg, const ClockDomain& core, std::vector<Sm*> sms);

  // `ctx` (per-SM resident counts sized to the SMs) and `kernel` stay alive
  // until remove().
  void add(ir::KernelSource& kernel, SmKernel& ctx, Cycle first_dispatch);
  void remove(const SmKernel& ctx);
  size_t kernels() const { return entries_.size(); }
  // Every CTA of the kernel was dispatched (or dispatch stopped) and has completed.
  bool done(const SmKernel& ctx) const;
  uint64_t ctas_dispatched(const SmKernel& ctx) const { return find(ctx).dispatched; }
  // Hands out no more of its CTAs: the kernel ends when those dispatched finish.
  void stop_dispatch(const SmKernel& ctx) { find(ctx).stopped = true; }
  // Reads the CTAs never dispatched to their end, so that a source that
  // executes as it is read (exec) still runs them; returns the warp
  // instructions read (what they would have executed).
  uint64_t drain_undispatched(const SmKernel& ctx);

  void tick() override { dispatch(clock_.now(), false); }
  Tick next_event() const override;

  // With the SMs in several partitions (docs/parallel.md) the dispatcher is
  // no engine's member: between windows it plans the CTAs of the core cycles
  // [from, to), as tick() would on each, from the SMs' room as it stands
  // (room freed within the window is seen at the next one). Each SM launches
  // its CTAs at their cycles itself (Sm::reserve).
  void plan(Cycle from, Cycle to);
  // The first cycle at or after `now` at which a CTA could go out
  // (kNoCycle: none until an SM frees room or a kernel is added).
  static constexpr Cycle kNoCycle = ~Cycle{0};
  Cycle next_cycle(Cycle now) const;

 private:
  struct Entry {
    ir::KernelSource* source;
    SmKernel* ctx;
    std::unique_ptr<ir::CtaSource> next;
    Cycle first_dispatch;
    uint64_t dispatched = 0;
    bool stopped = false;
    bool dispatching() const { return next && !stopped; }
  };
  Entry& find(const SmKernel& ctx) const;
  // The kernel whose CTAs go out now (nullptr: none, or not before its first dispatch).
  Entry* head(Cycle now) const;
  // One cycle's CTAs: at most one per SM, round robin; `reserve`: through
  // Sm::reserve.
  void dispatch(Cycle now, bool reserve);
  bool any_sm_free(const SmKernel& ctx) const;

  const ClockDomain& clock_;
  std::vector<Sm*> sms_;
  std::vector<std::unique_ptr<Entry>> entries_;  // in the order added
  bool restart_;  // gpu.cta_placement = restart: a kernel's first CTA goes to SM 0
  size_t rr_ = 0;
};

}  // namespace ws::timing
