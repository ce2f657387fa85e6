#include "timing/engine/engine.h"

#include <algorithm>

namespace ws::timing {

ClockDomain& Engine::add_domain(const std::string& name, ClockPeriod period) {
  domains_.push_back(Domain{std::make_unique<ClockDomain>(name, period), {}, {}, false});
  return *domains_.back().clock;
}

void Engine::add(ClockDomain& domain, Clocked& component) {
  for (Domain& d : domains_)
    if (d.clock.get() == &domain) d.members.push_back(&component);
}

bool Engine::step() {
  // The candidate edge of each domain: the first edge, after the one already
  // ticked, at or after the earliest event of any of its members.
  Tick best = kNever;
  edge_.assign(domains_.size(), kNoEdge);
  std::vector<Cycle>& edge = edge_;
  for (size_t i = 0; i < domains_.size(); ++i) {
    Domain& d = domains_[i];
    Tick earliest = kNever;
    d.events.resize(d.members.size());
    for (size_t k = 0; k < d.members.size(); ++k) {
      d.events[k] = d.members[k]->next_event();
      earliest = std::min(earliest, d.events[k]);
    }
    if (earliest == kNever) continue;
    // Never before the current time (a domain left idle has a stale cycle),
    // and never the same edge twice.
    Cycle first_free = d.clock->cycle_at_or_after(now_);
    if (d.started) first_free = std::max(first_free, d.clock->now() + 1);
    edge[i] = std::max(d.clock->cycle_at_or_after(earliest), first_free);
    best = std::min(best, d.clock->tick_of(edge[i]));
  }
  if (best == kNever) return false;
  now_ = best;
  ++steps_;
  for (size_t i = 0; i < domains_.size(); ++i) {
    Domain& d = domains_[i];
    if (edge[i] == kNoEdge || d.clock->tick_of(edge[i]) != best) continue;
    d.clock->set_now(edge[i]);
    d.started = true;
    // A component already due ticks without asking again; one that was not
    // may have become due through an earlier tick at this same time.
    for (size_t k = 0; k < d.members.size(); ++k)
      if (d.events[k] <= best || d.members[k]->next_event() <= best) d.members[k]->tick();
  }
  return true;
}

}  // namespace ws::timing
