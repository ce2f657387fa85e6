// A component the engine ticks on the edges of its clock domain.
//
// Activity gating: the engine only ticks a component when next_event() says
// it may have work, and skips ahead over stretches where no component has any.
#pragma once
#include <string>

#include "common/types.h"

namespace ws::timing {

class ClockDomain {
 public:
  ClockDomain(std::string name, ClockPeriod period) : name_(std::move(name)), period_(period) {}
  const std::string& name() const { return name_; }
  ClockPeriod period() const { return period_; }
  // Edge k of this domain is at k * period.
  Tick tick_of(Cycle c) const { return c * period_.ps; }
  // The first edge at or after time t.
  Cycle cycle_at_or_after(Tick t) const { return t == kNever ? ~Cycle{0} : (t + period_.ps - 1) / period_.ps; }
  Cycle now() const { return now_; }
  void set_now(Cycle c) { now_ = c; }
  Tick now_tick() const { return tick_of(now_); }

 private:
  std::string name_;
  ClockPeriod period_;
  Cycle now_ = 0;
};

class Clocked {
 public:
  virtual ~Clocked() = default;
  // One cycle of work at the domain's current cycle.
  virtual void tick() = 0;
  // Earliest time at which this component could change state without further
  // input from others: a time <= now if it has work this cycle, kNever if idle.
  // Must include messages waiting in its input ports.
  virtual Tick next_event() const = 0;
};

}  // namespace ws::timing
