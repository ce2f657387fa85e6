// Per-warp register scoreboard: the registers with a write still in flight
// and the cycle each write completes (kPending while a memory reply is
// awaited). Kept as a short list rather than a 256-entry table: a warp rarely
// has more than a few writes in flight. The first kInline entries live inside
// the warp (no pointer to chase on every issue check); more spill to the heap.
#pragma once
#include <algorithm>
#include <array>
#include <cstdint>
#include <vector>

#include "common/types.h"

namespace ws::timing {

inline constexpr Cycle kPending = ~Cycle{0};  // register waits on a memory reply

class Scoreboard {
 public:
  void clear() {
    count_ = 0;
    spill_.clear();
  }
  bool empty() const { return count_ == 0; }

  // Records that `reg` is written at cycle `ready` (kPending: unknown yet).
  void set(uint16_t reg, Cycle ready) {
    for (uint32_t i = 0; i < count_; ++i)
      if (at(i).reg == reg) {
        at(i).ready = ready;
        return;
      }
    if (count_ < kInline) inline_[count_] = Entry{reg, ready};
    else spill_.push_back(Entry{reg, ready});
    ++count_;
  }

  // The cycle by which every write in flight completes (0 if none).
  Cycle all_done(Cycle now) { return ready_at(nullptr, -1, now); }

  // The cycle by which every register in `regs` is written (n < 0: every
  // register) (0 if none is in flight). Drops entries that completed by `now`.
  Cycle ready_at(const uint16_t* regs, int n, Cycle now) {
    Cycle latest = 0;
    for (uint32_t i = 0; i < count_;) {
      const Entry& e = at(i);
      if (e.ready <= now) {
        remove(i);
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
  static constexpr uint32_t kInline = 6;

  Entry& at(uint32_t i) { return i < kInline ? inline_[i] : spill_[i - kInline]; }
  // Moves the last entry into slot i (the list is unordered).
  void remove(uint32_t i) {
    at(i) = at(count_ - 1);
    if (count_ > kInline) spill_.pop_back();
    --count_;
  }

  uint32_t count_ = 0;
  std::array<Entry, kInline> inline_;
  std::vector<Entry> spill_;  // entries past kInline, in order
};

}  // namespace ws::timing
