// Hands a kernel's CTAs to SMs in launch order, at most one per SM per cycle,
// starting after the kernel launch latency, as long as occupancy allows.
#pragma once
#include <memory>
#include <vector>

#include "ir/source.h"
#include "timing/engine/clocked.h"

namespace ws::timing {

class Sm;

class Dispatcher : public Clocked {
 public:
  Dispatcher(const ClockDomain& core, std::vector<Sm*> sms) : clock_(core), sms_(std::move(sms)) {}

  void start(ir::KernelSource& kernel, Cycle first_dispatch);
  // Every CTA was dispatched and has completed.
  bool kernel_done() const;
  uint64_t ctas_dispatched() const { return dispatched_; }
  // Hands out no more CTAs: the kernel ends when those dispatched finish.
  void stop_dispatch() { stopped_ = true; }
  // Reads the CTAs never dispatched to their end, so that a source that
  // executes as it is read (exec) still runs them.
  void drain_undispatched();

  void tick() override;
  Tick next_event() const override;

 private:
  bool any_sm_free() const;

  const ClockDomain& clock_;
  std::vector<Sm*> sms_;
  ir::KernelSource* kernel_ = nullptr;
  std::unique_ptr<ir::CtaSource> next_;
  Cycle first_dispatch_ = 0;
  size_t rr_ = 0;
  uint64_t dispatched_ = 0;
  bool stopped_ = false;
};

}  // namespace ws::timing
