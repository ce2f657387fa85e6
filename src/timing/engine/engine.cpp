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
      if (!component.tracked_) d.untracked.push_back(static_cast<uint32_t>(d.members.size()));
      d.members.push_back(&component);
      d.events.push_back(Clocked::kAskAgain);
      d.tracked.push_back(component.tracked_ ? 1 : 0);
      // The flat array may have moved: point every member at its slot again.
      for (size_t k = 0; k < d.members.size(); ++k) d.members[k]->event_slot_ = &d.events[k];
      component.domain_woken_ = d.woken.get();
    }
}

void Engine::wake_all() {
  for (Domain& d : domains_) std::fill(d.events.begin(), d.events.end(), Clocked::kAskAgain);
}

// The earliest next_event() of the domain's members. A cached event holds
// until the member is woken (kAskAgain: asked again). One that has come
// without the member ticking (it fell between the domain's edges) is due at
// the domain's next edge: asking again could only say the same or later, and
// a member ticked with nothing to do changes nothing (set_gating(false)).
Tick Engine::earliest_event(Domain& d) {
  for (uint32_t k : d.untracked) d.events[k] = Clocked::kAskAgain;
  Tick earliest = kNever;
  const Tick next_edge = d.clock->tick_of(first_free(d));
  Tick* ev = d.events.data();
  for (size_t k = 0, n = d.events.size(); k < n; ++k) {
    Tick e = ev[k];
    if (e == Clocked::kAskAgain) e = ask(d, k);
    else if (e <= now_) e = ev[k] = next_edge;
    earliest = std::min(earliest, e);
  }
  *d.woken = 0;
  return d.earliest = earliest;
}

// The domain's first edge not yet visited: never before the current time (a
// domain left idle has a stale cycle), and never the same edge twice.
Cycle Engine::first_free(const Domain& d) const {
  Cycle c = d.clock->cycle_at_or_after(now_);
  return d.started ? std::max(c, d.clock->now() + 1) : c;
}

// Advances to the earliest edge at which some member of some domain has work.
// At that time every domain with an edge there is visited in declaration
// order, exactly as if each ticked all its members on every edge: a domain
// sees what earlier domains did at this time (a member they woke may tick
// now) and not what later ones do (that waits for its next edge). A visited
// domain is not visited again at the same time.
bool Engine::step() {
  Tick best = kNever;
  bool any = false;
  for (Domain& d : domains_) {
    Tick earliest = earliest_event(d);
    if (earliest == kNever) continue;
    any = true;
    Cycle edge = std::max(d.clock->cycle_at_or_after(earliest), first_free(d));
    best = std::min(best, d.clock->tick_of(edge));
  }
  if (!any) return false;
  if (!gating_)
    for (Domain& d : domains_) best = std::min(best, d.clock->tick_of(first_free(d)));
  now_ = best;
  ++steps_;
  for (Domain& d : domains_) {
    Cycle c = d.clock->cycle_at_or_after(best);
    if (d.clock->tick_of(c) != best || (d.started && c <= d.clock->now())) continue;
    d.clock->set_now(c);
    d.started = true;
    if (may_have_due(d, best)) tick_due(d, best);
  }
  return true;
}

// Whether a member may be due at `at`: one was at the scan, or was woken since
// (by an earlier tick at this time), or an untracked one says so. Saves the
// walk over every member of a domain that merely has an edge now.
bool Engine::may_have_due(Domain& d, Tick at) {
  if (!gating_ || d.earliest <= at || *d.woken) return true;
  for (uint32_t k : d.untracked)
    if (ask(d, k) <= at) return true;
  return false;
}

// Ticks the members whose event has come. One that was not due may have
// become due through an earlier tick at this same time (if it was woken; an
// untracked one is asked again). A member that ticked is asked right away,
// while its state is still in the host's caches (input pushes only move its
// event earlier, see Clocked::wake_at, so the answer mostly survives the
// step); work left for now means the next edge.
void Engine::tick_due(Domain& d, Tick at) {
  const Tick next_edge = d.clock->tick_of(d.clock->now() + 1);
  for (size_t k = 0; k < d.members.size(); ++k) {
    Tick e = d.events[k];
    if (e == Clocked::kAskAgain || (e > at && !d.tracked[k])) e = ask(d, k);
    if (e > at && gating_) continue;
    d.members[k]->tick();
    if (ask(d, k) <= at) d.events[k] = next_edge;
  }
}

}  // namespace ws::timing
