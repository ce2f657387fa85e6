// The engine's calendar of one clock domain: which members are due at which
// cycle, so that a step finds the domain's earliest work and the members due
// then without looking at every member.
//
// A timing wheel of 64 slots, one per cycle of the window [base, base + 64),
// each a bitmap over the members (bit k: member k is due at that cycle), plus
// a bitmap of the members due later ("far"), which move into the wheel when
// the window reaches them. A member is in at most one place. Visiting a slot's
// bits in ascending order visits its members in registration order, which
// keeps runs deterministic.
#pragma once
#include <bit>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "common/types.h"

namespace ws::timing {

class EventWheel {
 public:
  static constexpr Cycle kNone = ~Cycle{0};
  static constexpr Cycle kSlots = 64;

  // Room for `members` members, none placed.
  void resize(size_t members);
  size_t words() const { return far_.size(); }

  // Moves the window's start to `base` (never backwards; no member may be due
  // before it), bringing far members that now fall inside into the wheel.
  void advance(Cycle base);
  Cycle base() const { return base_; }
  // Member k is due at cycle c (>= base; kNone: not due at all), replacing
  // where it was due before.
  void place(uint32_t k, Cycle c) {
    if (due_[k] == c) return;
    remove(k);
    insert(k, c);
  }
  // Member k, not placed now, is due at cycle c (>= base; kNone: never).
  void insert(uint32_t k, Cycle c) {
    due_[k] = c;
    if (c == kNone) return;
    if (c < base_) [[unlikely]]
      scheduled_in_the_past();
    if (c - base_ < kSlots) {
      size_t s = slot_of(c);
      slots_[s * words() + k / 64] |= bit_of(k);
      occupied_ |= uint64_t{1} << s;
    } else {
      insert_far(k, c);
    }
  }
  void remove(uint32_t k) {
    Cycle c = due_[k];
    if (c == kNone) return;
    due_[k] = kNone;
    uint64_t& far = far_[k / 64];
    if (far & bit_of(k)) far &= ~bit_of(k);  // far_low_ stays a lower bound
    else slots_[slot_of(c) * words() + k / 64] &= ~bit_of(k);  // occupied_ is checked in earliest()
  }
  // For a member due at base, while its slot is being visited: it is no
  // longer due there, but its bit stays until clear_due_now() drops the
  // whole slot at the end of the visit (cheaper than clearing bit by bit).
  void detach(uint32_t k) { due_[k] = kNone; }
  void clear_due_now();
  Cycle due(uint32_t k) const { return due_[k]; }
  // The earliest cycle at which some member is due, kNone if none is.
  Cycle earliest();
  // Word w of the bitmap of members due at the window's first cycle (base).
  uint64_t due_now(size_t w) const { return slots_[slot_of(base_) * words() + w]; }

 private:
  static size_t slot_of(Cycle c) { return static_cast<size_t>(c % kSlots); }
  static uint64_t bit_of(uint32_t k) { return uint64_t{1} << (k % 64); }
  void insert_far(uint32_t k, Cycle c);
  [[noreturn]] static void scheduled_in_the_past();
  Cycle far_min() const;

  Cycle base_ = 0;
  std::vector<Cycle> due_;        // by member; kNone: not placed
  std::vector<uint64_t> slots_;   // kSlots x words() bitmaps
  std::vector<uint64_t> far_;     // members due at or after base + kSlots
  uint64_t occupied_ = 0;         // bit s: slot s may have a member (cleared lazily by earliest())
  Cycle far_low_ = kNone;         // no far member is due before this
};

}  // namespace ws::timing
