#include "timing/engine/engine.h"

#include <algorithm>
#include <bit>

namespace ws::timing {
namespace {

uint64_t bit_of(uint32_t k) { return uint64_t{1} << (k % 64); }

}  // namespace

ClockDomain& Engine::add_domain(const std::string& name, ClockPeriod period) {
  domains_.emplace_back();
  domains_.back().clock = std::make_unique<ClockDomain>(name, period);
  return *domains_.back().clock;
}

// Members are normally added before the first step. One added later keeps
// every member's cached event: the wheel is rebuilt from those at the next
// step (only the newcomer, and members already due to be, are asked).
void Engine::add(ClockDomain& domain, Clocked& component) {
  for (Domain& d : domains_) {
    if (d.clock.get() != &domain) continue;
    auto k = static_cast<uint32_t>(d.members.size());
    d.members.push_back(&component);
    d.events.push_back(Clocked::kAskAgain);
    size_t words = (d.members.size() + 63) / 64;
    d.changed.resize(words, 0);
    d.untracked.resize(words, 0);
    if (!component.tracked_) d.untracked[k / 64] |= bit_of(k);
    d.wheel.resize(d.members.size());
    // The flat arrays may have moved: point every member at its slots again.
    for (uint32_t j = 0; j < d.members.size(); ++j) {
      Clocked& m = *d.members[j];
      m.event_slot_ = &d.events[j];
      m.changed_word_ = &d.changed[j / 64];
      m.changed_bit_ = bit_of(j);
      d.changed[j / 64] |= bit_of(j);
    }
  }
}

void Engine::wake_all() {
  for (Domain& d : domains_) {
    std::fill(d.events.begin(), d.events.end(), Clocked::kAskAgain);
    for (uint32_t k = 0; k < d.members.size(); ++k) d.changed[k / 64] |= bit_of(k);
  }
}

// The domain cycle at which an event at time `e` is due: its first edge at or
// after `e`, but never before `base`, the first edge not yet visited (an
// event that has come without the member ticking, e.g. one that fell between
// the domain's edges, is due at the next edge: asking again could only say
// the same or later, and a member ticked with nothing to do changes nothing,
// see set_gating(false)).
Cycle Engine::due_cycle(const Domain& d, Tick e, Cycle base) const {
  if (e == kNever) return EventWheel::kNone;
  if (e <= d.clock->tick_of(base)) return base;
  return d.clock->cycle_at_or_after(e);
}

// Places the members whose cached event changed since they were last placed
// (asking those woken with wake(), and the untracked ones, again), and
// returns the domain's earliest due cycle.
Cycle Engine::sync(Domain& d) {
  Cycle base = first_free(d);
  d.wheel.advance(base);
  for (size_t w = 0; w < d.changed.size(); ++w) {
    uint64_t untracked = d.untracked[w];
    uint64_t m = d.changed[w] | untracked;
    d.changed[w] = 0;
    for (; m; m &= m - 1) {
      auto k = static_cast<uint32_t>(w * 64 + std::countr_zero(m));
      Tick e = d.events[k];
      if (e == Clocked::kAskAgain || (untracked & bit_of(k))) e = ask(d, k);
      d.wheel.place(k, due_cycle(d, e, base));
    }
  }
  return d.wheel.earliest();
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
  Tick best = next_time();
  if (best == kNever) return false;
  run_step(best);
  return true;
}

bool Engine::step_before(Tick end) {
  Tick best = next_time();
  if (best >= end) return false;
  run_step(best);
  return true;
}

// The time of the next step (kNever: no member has work). Placing the
// changed members changes nothing a later step would not do the same way.
Tick Engine::next_time() {
  Tick best = kNever;
  bool any = false;
  for (Domain& d : domains_) {
    Cycle edge = sync(d);
    if (edge == EventWheel::kNone) continue;
    any = true;
    best = std::min(best, d.clock->tick_of(edge));
  }
  if (!any) return kNever;
  if (!gating_)
    for (Domain& d : domains_) best = std::min(best, d.clock->tick_of(first_free(d)));
  return best;
}

void Engine::run_step(Tick best) {
  now_ = best;
  ++steps_;
  for (Domain& d : domains_) {
    Cycle c = d.clock->cycle_at_or_after(best);
    if (d.clock->tick_of(c) != best || (d.started && c <= d.clock->now())) continue;
    d.clock->set_now(c);
    d.started = true;
    visit(d, best);
  }
}

// Visits, in registration order, the members due at this edge and those
// whose event changed since the step began (an earlier tick at this time may
// have given them work now; the untracked ones are asked again). Bits are
// re-read after each member, so one woken by an earlier member's tick is
// seen; one woken by a later member's tick waits for the next edge.
void Engine::visit(Domain& d, Tick at) {
  Cycle c = d.clock->now();
  d.wheel.advance(c);
  size_t n = d.members.size();
  for (size_t w = 0; w < d.changed.size(); ++w) {
    uint64_t valid = n - w * 64 >= 64 ? ~uint64_t{0} : (uint64_t{1} << (n - w * 64)) - 1;
    // Members due now only join through a change (placed at their turn), so
    // after each member only the changed bits need reading again.
    uint64_t pending = (gating_ ? d.wheel.due_now(w) : valid) | d.changed[w] | d.untracked[w];
    while (pending) {
      int b = std::countr_zero(pending);
      visit_member(d, static_cast<uint32_t>(w * 64 + b), c, at);
      uint64_t ahead = b == 63 ? 0 : ~uint64_t{0} << (b + 1);
      pending = (pending | d.changed[w]) & ahead;
    }
  }
  d.wheel.clear_due_now();  // every member due now was visited
}

// A member that ticked is asked right away, while its state is still in the
// host's caches (input pushes only move its event earlier, see
// Clocked::wake_at, so the answer mostly survives the step); work left for
// now means the next edge.
void Engine::visit_member(Domain& d, uint32_t k, Cycle c, Tick at) {
  uint64_t& changed = d.changed[k / 64];
  const uint64_t bit = bit_of(k);
  const bool untracked = d.untracked[k / 64] & bit;
  if ((changed & bit) || untracked) {
    changed &= ~bit;
    Tick e = d.events[k];
    if (e == Clocked::kAskAgain || (untracked && e > at)) e = ask(d, k);
    d.wheel.place(k, due_cycle(d, e, c));
  }
  if (d.wheel.due(k) == c) {
    d.wheel.detach(k);
    d.clock->set_busy(c);
  } else if (gating_) {
    return;  // not due
  } else {
    d.wheel.remove(k);
  }
  d.members[k]->tick();
  Tick e = ask(d, k);
  if (e <= at) e = d.events[k] = d.clock->tick_of(c + 1);
  changed &= ~bit;  // the member's own tick may have woken it: the answer above covers that
  d.wheel.insert(k, due_cycle(d, e, c + 1));  // not placed since detach/remove
}

}  // namespace ws::timing
