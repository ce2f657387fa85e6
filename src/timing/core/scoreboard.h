// Per-warp register scoreboard: the registers with a write still in flight
// and the cycle each write completes (kPending while a memory reply is
// awaited). Kept as a short list rather than a 256-entry table: a warp rarely
// has more than a few writes in flight. The first six entries live inside
// the warp (no pointer to chase on every issue check); more spill to the heap.
#pragma once
#include <algorithm>
#include <cstdint>

#include "common/small_vec.h"
#include "common/types.h"

namespace ws::timing {

inline constexpr Cycle kPending = ~Cycle{0};  // register waits on a memory reply

class Scoreboard {
 public:
  void clear() { list_.clear(); }
  bool empty() const { return list_.empty(); }

  // Records that `reg` is written at cycle `ready` (kPending: unknown yet).
  void set(uint16_t reg, Cycle ready) {
    for (uint32_t i = 0; i < list_.size(); ++i)
      if (list_[i].reg == reg) {
        list_[i].ready = ready;
        return;
      }
    list_.push_back(Entry{reg, ready});
  }

  // The cycle by which every write in flight completes (0 if none).
  Cycle all_done(Cycle now) { return ready_at(nullptr, -1, now); }

  // The cycle by which every register in `regs` is written (n < 0: every
  // register) (0 if none is in flight). Drops entries that completed by `now`.
  Cycle ready_at(const uint16_t* regs, int n, Cycle now) {
    return latest_of(now, [&](uint16_t r) { return n < 0 || std::find(regs, regs + n, r) != regs + n; });
  }
  // The same for two register lists at once (an instruction's sources and
  // destinations), without gathering them first.
  Cycle ready_at(const uint16_t* a, int na, const uint16_t* b, int nb, Cycle now) {
    return latest_of(now, [&](uint16_t r) { return std::find(a, a + na, r) != a + na || std::find(b, b + nb, r) != b + nb; });
  }

 private:
  struct Entry {
    uint16_t reg = 0;
    Cycle ready = 0;
  };

  // The latest write in flight to a register `counts`, dropping completed ones.
  template <class Counts>
  Cycle latest_of(Cycle now, Counts&& counts) {
    Cycle latest = 0;
    for (uint32_t i = 0; i < list_.size();) {
      const Entry& e = list_[i];
      if (e.ready <= now) {
        remove(i);
        continue;
      }
      if (counts(e.reg)) latest = std::max(latest, e.ready);
      ++i;
    }
    return latest;
  }

  // Moves the last entry into slot i (the list is unordered).
  void remove(uint32_t i) {
    list_[i] = list_.back();
    list_.pop_back();
  }

  SmallVec<Entry, 6> list_;
};

}  // namespace ws::timing
