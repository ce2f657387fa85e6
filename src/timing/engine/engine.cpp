#include "timing/engine/engine.h"

#include <algorithm>

namespace ws::timing {

ClockDomain& Engine::add_domain(const std::string& name, ClockPeriod period) {
  domains_.emplace_back();
  domains_.back().clock = std::make_unique<ClockDomain>(name, period);
  return *domains_.back().clock;
}

void Engine::add(ClockDomain& domain, Clocked& component) {
  for (Domain& d : domains_)
    if (d.clock.get() == &domain) {
      d.members.push_back(&component);
      d.events.push_back(0);
      d.tracked.push_back(component.tracked_ ? 1 : 0);
      d.stale.push_back(1);
      component.stale_ = &d.stale.back();
    }
}

void Engine::wake_all() {
  for (Domain& d : domains_) std::fill(d.stale.begin(), d.stale.end(), uint8_t{1});
}

// The member's next event: asked again unless the cached answer is known to
// still hold (a tracked component, not woken since, whose event was in the
// future at the last step).
Tick Engine::refresh(Domain& d, size_t k) {
  if (d.tracked[k] && !d.stale[k] && d.events[k] > now_) return d.events[k];
  return ask(d, k);
}

Tick Engine::ask(Domain& d, size_t k) {
  d.stale[k] = 0;
  return d.events[k] = d.members[k]->next_event();
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
    for (size_t k = 0; k < d.members.size(); ++k) earliest = std::min(earliest, refresh(d, k));
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
    // may have become due through an earlier tick at this same time (if it
    // was woken; an untracked one is asked again).
    for (size_t k = 0; k < d.members.size(); ++k) {
      bool due = d.events[k] <= best;
      if (!due && (!d.tracked[k] || d.stale[k])) due = ask(d, k) <= best;
      if (!due) continue;
      d.members[k]->tick();
      d.stale[k] = 1;
    }
  }
  return true;
}

}  // namespace ws::timing
