// The simulation loop over clock domains with activity gating: at each step
// it finds the earliest domain edge at which some component has work, ticks
// only the components whose next_event() has come, and so skips stretches in
// which nothing can happen. Components of one domain tick in registration
// order, domains in declaration order: the run is deterministic.
#pragma once
#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "timing/engine/clocked.h"

namespace ws::timing {

class Engine {
 public:
  ClockDomain& add_domain(const std::string& name, ClockPeriod period);
  void add(ClockDomain& domain, Clocked& component);

  // Advances to the next time at which any component has work and ticks it.
  // Returns false when no component has any work left (all idle).
  bool step();
  // Every component's next event is asked again at the next step (after
  // changes made from outside the components' ticks, e.g. a kernel launch).
  void wake_all();
  // Validation mode: with gating off every component ticks on every edge of
  // its domain, as in a simulator without activity gating. Results must be
  // bit-identical either way (tests check it); only speed differs.
  void set_gating(bool on) { gating_ = on; }
  Tick now() const { return now_; }
  uint64_t steps() const { return steps_; }

 private:
  struct Domain {
    std::unique_ptr<ClockDomain> clock;
    std::vector<Clocked*> members;
    // Per member, its last next_event() while still valid, or
    // Clocked::kAskAgain. Tracked members point their wake() here (see
    // Clocked::track_events), so one flat scan finds whom to ask.
    std::vector<Tick> events;
    std::vector<uint8_t> tracked;     // per member: Clocked::track_events() was called
    std::vector<uint32_t> untracked;  // members asked on every step
    Tick earliest = kNever;           // earliest member event, as of this step's scan
    std::unique_ptr<uint8_t> woken = std::make_unique<uint8_t>(0);  // a member was woken since the scan
    bool started = false;             // whether cycle now() has been visited
  };
  Tick ask(Domain& d, size_t k) { return d.events[k] = d.members[k]->next_event(); }
  Tick earliest_event(Domain& d);
  Cycle first_free(const Domain& d) const;
  void tick_due(Domain& d, Tick at);
  bool may_have_due(Domain& d, Tick at);

  std::deque<Domain> domains_;  // a deque: a Domain never moves once added
  Tick now_ = 0;
  uint64_t steps_ = 0;
  bool gating_ = true;
};

}  // namespace ws::timing
