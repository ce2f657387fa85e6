// Per-warp register scoreboard: the registers with a write still in flight
// and the cycle each write completes (kPending while a memory reply is
// awaited). Kept as a short list rather than a 256-entry table: a warp rarely
// has more than a few writes in flight, and the list stays in cache.
#pragma once
#include <algorithm>
#include <cstdint>
#include <vector>

#include "common/types.h"

namespace ws::timing {

inline constexpr Cycle kPending = ~Cycle{0};  // register waits on a memory reply

class Scoreboard {
 public:
  void clear() { pending_.clear(); }
  bool empty() const { return pending_.empty(); }

  // Records that `reg` is written at cycle `ready` (kPending: unknown yet).
  void set(uint16_t reg, Cycle ready) {
    for (Entry& e : pending_)
      if (e.reg == reg) {
        e.ready = ready;
        return;
      }
    pending_.push_back(Entry{reg, ready});
  }

  // The cycle by which every write in flight completes (0 if none).
  Cycle all_done(Cycle now) { return ready_at(nullptr, -1, now); }

  // The cycle by which every register in `regs` is written (n < 0: every
  // register) (0 if none is in
  // flight). Drops entries that completed by `now`.
  Cycle ready_at(const uint16_t* regs, int n, Cycle now) {
    Cycle latest = 0;
    for (size_t i = 0; i < pending_.size();) {
      const Entry& e = pending_[i];
      if (e.ready <= now) {
        pending_[i] = pending_.back();
        pending_.pop_back();
        continue;
      }
      if (n < 0 || std::find(regs, regs + n, e.reg) != regs + n) latest = std::max(latest, e.ready);
      ++i;
    }
    return latest;
  }

 private:
  struct Entry {
    uint16_t reg;
    Cycle ready;
  };
  std::vector<Entry> pending_;
};

}  // namespace ws::timing
