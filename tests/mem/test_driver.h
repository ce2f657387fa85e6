// A tiny stand-in for the engine: steps clock domains in time order and ticks
// each component whose next_event() has come (so tests also check gating).
#pragma once
#include <algorithm>
#include <functional>
#include <vector>

#include "timing/engine/clocked.h"
#include "timing/engine/port.h"
#include "timing/mem/mem_request.h"

namespace ws::timing::test {

class TestDriver {
 public:
  void add(ClockDomain& dom, Clocked& c) { entries_.push_back({&dom, &c}); }
  // Runs every edge of the registered domains up to and including `until`.
  // Gated (default) ticks only components whose next_event() <= now; ungated
  // ticks all, which must give the same results if next_event() is honest.
  void set_gated(bool g) { gated_ = g; }
  void run_until(Tick until) {
    while (true) {
      Tick next = kNever;
      for (auto& e : entries_) next = std::min(next, e.dom->tick_of(e.dom->cycle_at_or_after(now_)));
      if (next > until) break;
      for (auto& e : entries_) {
        if (e.dom->tick_of(e.dom->cycle_at_or_after(next)) != next) continue;
        e.dom->set_now(e.dom->cycle_at_or_after(next));
        if (!gated_ || e.comp->next_event() <= next) e.comp->tick();
      }
      if (hook_) hook_(next);
      now_ = next + 1;
    }
  }
  // Runs until `done()` holds after an edge, or `limit` ps pass; returns success.
  bool run_while_not(const std::function<bool()>& done, Tick limit) {
    Tick end = now_ + limit;
    while (!done()) {
      if (now_ > end) return false;
      Tick next = kNever;
      for (auto& e : entries_) next = std::min(next, e.dom->tick_of(e.dom->cycle_at_or_after(now_)));
      run_until(next);
    }
    return true;
  }
  // Called after every edge with its time (fake neighbours live here).
  void on_edge(std::function<void(Tick)> h) { hook_ = std::move(h); }
  Tick now() const { return now_; }

 private:
  struct Entry {
    ClockDomain* dom;
    Clocked* comp;
  };
  std::vector<Entry> entries_;
  std::function<void(Tick)> hook_;
  Tick now_ = 0;
  bool gated_ = true;
};

// A fake lower level: takes requests from `in` and answers the ones that need
// a reply after `latency` ps into `out` (when set): the whole request in one
// reply, or with `per_sector` a reply per sector, `sector_gap` ps apart.
struct FakeMemory {
  Port<MemRequest> in{64};
  Port<MemRequest>* out = nullptr;
  Tick latency = 0;
  bool per_sector = false;
  Tick sector_gap = 0;
  std::vector<MemRequest> seen;
  std::vector<Tick> seen_at;  // when each arrived
  void step(Tick now) {
    while (in.ready(now)) {
      MemRequest r = in.front();
      in.pop();
      seen.push_back(r);
      seen_at.push_back(now);
      if (!out || !r.needs_reply()) continue;
      r.is_reply = true;
      if (!per_sector) {
        out->push(r, now + latency);
        continue;
      }
      Tick at = now + latency;
      for (uint8_t bits = r.sector_bits(); bits != 0; bits &= static_cast<uint8_t>(bits - 1), at += sector_gap) {
        MemRequest one = r;
        one.keep_sectors(static_cast<uint8_t>(bits & -bits));
        out->push(one, at);
      }
    }
  }
  // Sectors requested in all (a read request names several).
  uint32_t sectors_seen() const {
    uint32_t n = 0;
    for (const MemRequest& r : seen) n += r.sector_count();
    return n;
  }
};

}  // namespace ws::timing::test
