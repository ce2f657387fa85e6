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
  Tick now() const { return now_; }
  uint64_t steps() const { return steps_; }

 private:
  struct Domain {
    std::unique_ptr<ClockDomain> clock;
    std::vector<Clocked*> members;
    std::vector<Tick> events;  // members' next_event(), kept while still valid (see Clocked::track_events)
    std::vector<uint8_t> tracked;  // per member: Clocked::track_events() was called
    std::deque<uint8_t> stale;     // per member: woken since asked (stable addresses for Clocked::wake)
    bool started = false;  // whether cycle now() has been ticked
  };
  Tick refresh(Domain& d, size_t k);  // cached or asked
  Tick ask(Domain& d, size_t k);      // asks the member and caches the answer

  std::deque<Domain> domains_;  // a deque: members hold pointers into their domain's flags
  static constexpr Cycle kNoEdge = ~Cycle{0};
  std::vector<Cycle> edge_;  // per domain, the edge chosen by the current step
  Tick now_ = 0;
  uint64_t steps_ = 0;
};

}  // namespace ws::timing
