// The simulation loop over clock domains with activity gating: at each step
// it finds the earliest domain edge at which some component has work, ticks
// only the components whose next_event() has come, and so skips stretches in
// which nothing can happen. Components of one domain tick in registration
// order, domains in declaration order: the run is deterministic. Each domain
// keeps its members in a timing wheel by the cycle they are due (EventWheel),
// so a step costs what the due and the changed members cost, not a look at
// every member.
#pragma once
#include <algorithm>
#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "timing/engine/clocked.h"
#include "timing/engine/event_wheel.h"

namespace ws::timing {

class Engine {
 public:
  ClockDomain& add_domain(const std::string& name, ClockPeriod period);
  void add(ClockDomain& domain, Clocked& component);

  // Advances to the next time at which any component has work and ticks it.
  // Returns false when no component has any work left (all idle).
  bool step();
  // A step only if it comes before `end`; false (nothing done) otherwise.
  bool step_before(Tick end);
  // When the next step would be (kNever: all idle).
  Tick next_time();
  // Every component's next event is asked again at the next step (after
  // changes made from outside the components' ticks, e.g. a kernel launch).
  void wake_all();
  // Validation mode: with gating off every component ticks on every edge of
  // its domain, as in a simulator without activity gating. Results must be
  // bit-identical either way (tests check it); only speed differs.
  void set_gating(bool on) { gating_ = on; }
  Tick now() const { return now_; }
  // Moves the current time forward to `t` (partitions: the end of a window,
  // before which every member's work is done), so that no later step, and
  // no member woken from outside since, falls before it.
  void advance_to(Tick t) { now_ = std::max(now_, t); }
  uint64_t steps() const { return steps_; }

 private:
  struct Domain {
    std::unique_ptr<ClockDomain> clock;
    std::vector<Clocked*> members;
    // Per member, its last next_event() while still valid, or
    // Clocked::kAskAgain. Tracked members point their wake() here (see
    // Clocked::track_events).
    std::vector<Tick> events;
    // Bit per member: its slot in `events` was written by wake() or
    // wake_at() since the engine last placed it in the wheel.
    std::vector<uint64_t> changed;
    std::vector<uint64_t> untracked;  // bit per member asked on every step
    EventWheel wheel;                 // members by the cycle they are due
    bool started = false;             // whether cycle now() has been visited
  };
  Tick ask(Domain& d, uint32_t k) { return d.events[k] = d.members[k]->next_event(); }
  void run_step(Tick at);
  Cycle due_cycle(const Domain& d, Tick e, Cycle base) const;
  Cycle sync(Domain& d);
  Cycle first_free(const Domain& d) const;
  void visit(Domain& d, Tick at);
  void visit_member(Domain& d, uint32_t k, Cycle c, Tick at);

  std::deque<Domain> domains_;  // a deque: a Domain never moves once added
  Tick now_ = 0;
  uint64_t steps_ = 0;
  bool gating_ = true;
};

}  // namespace ws::timing
