// A component the engine ticks on the edges of its clock domain.
//
// Activity gating: the engine only ticks a component when next_event() says
// it may have work, and skips ahead over stretches where no component has any.
#pragma once
#include <cstdint>
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
  // The last edge at which a member ticked with work (its event had come):
  // the same with activity gating on or off, where now() also counts edges
  // visited with nothing to do.
  Tick busy_tick() const { return tick_of(busy_); }
  void set_busy(Cycle c) { busy_ = c; }

 private:
  std::string name_;
  ClockPeriod period_;
  Cycle now_ = 0, busy_ = 0;
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
  // For a stuck run's report: in a few words, the work this component holds
  // and what it waits for ("" when it holds none).
  virtual std::string waiting_for() const { return {}; }

  // Marks the engine's copy of next_event() out of date (tracked components).
  void wake() {
    *event_slot_ = kAskAgain;
    *changed_word_ |= changed_bit_;
  }
  // Narrower than wake(), for a change that can only give this component work
  // from time `t` on (a message pushed into its input port that becomes
  // visible at `t`): its cached next event moves to `t` if that is earlier,
  // and the engine need not ask it again.
  void wake_at(Tick t) {
    if (t >= *event_slot_) return;
    *event_slot_ = t;
    *changed_word_ |= changed_bit_;
  }

 protected:
  // Opt-in event caching. A component that calls this promises that its
  // next_event(), while it lies in the future, changes only when it ticks,
  // when a message is pushed into an input port wired to it (and then only
  // to the message's arrival time, if that is earlier: a message is not seen
  // before it arrives), when a message is popped from an output port wired
  // from it that its next_event() said it waits on (Port::wire_consumer,
  // wire_producer, wait_for_room), or when someone calls wake(); not with
  // time alone. The engine then asks again only after such a change, instead
  // of polling every component on every step. Components that do not opt in
  // are asked on every step.
  void track_events() { tracked_ = true; }

 private:
  friend class Engine;
  // The engine's cached next_event() of this component; kAskAgain (0) means
  // "ask again". The engine keeps its members' slots side by side and points
  // this at this component's own; until then it points at own_slot_. A
  // change to the slot also sets this component's bit in its domain's bitmap
  // of changed members, so that the engine looks at those alone.
  static constexpr Tick kAskAgain = 0;
  bool tracked_ = false;
  Tick own_slot_ = kAskAgain;
  Tick* event_slot_ = &own_slot_;
  uint64_t own_changed_ = 0;
  uint64_t* changed_word_ = &own_changed_;
  uint64_t changed_bit_ = 1;
};

}  // namespace ws::timing
