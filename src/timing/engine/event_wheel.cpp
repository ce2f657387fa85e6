#include "timing/engine/event_wheel.h"

#include <algorithm>

#include "common/error.h"

namespace ws::timing {

// Keeps the window's start; every member ends up not placed.
void EventWheel::resize(size_t members) {
  size_t words = (members + 63) / 64;
  due_.assign(members, kNone);
  slots_.assign(kSlots * words, 0);
  far_.assign(words, 0);
  occupied_ = 0;
  far_low_ = kNone;
}

void EventWheel::advance(Cycle base) {
  if (base < base_) [[unlikely]]
    throw Error("internal error: the event wheel was moved backwards");
  base_ = base;
  if (far_low_ >= base_ + kSlots) return;
  // Some far member may now be inside the window: move those that are, and
  // make the bound on the rest exact again.
  for (size_t w = 0; w < far_.size(); ++w)
    for (uint64_t m = far_[w]; m; m &= m - 1) {
      auto k = static_cast<uint32_t>(w * 64 + std::countr_zero(m));
      if (due_[k] >= base_ + kSlots) continue;
      far_[w] &= ~bit_of(k);
      insert(k, due_[k]);
    }
  far_low_ = far_min();
}

void EventWheel::insert_far(uint32_t k, Cycle c) {
  far_[k / 64] |= bit_of(k);
  far_low_ = std::min(far_low_, c);
}

void EventWheel::scheduled_in_the_past() {
  throw Error("internal error: a component was scheduled before its domain's current cycle");
}

void EventWheel::clear_due_now() {
  size_t s = slot_of(base_);
  std::fill_n(slots_.begin() + static_cast<ptrdiff_t>(s * words()), words(), 0);
  occupied_ &= ~(uint64_t{1} << s);
}

// Every wheel member is due before every far member (advance keeps far
// members at or after base + kSlots), so the wheel's first occupied slot
// from base on is the earliest when there is one.
Cycle EventWheel::earliest() {
  while (occupied_) {
    Cycle c = base_ + std::countr_zero(std::rotr(occupied_, static_cast<int>(slot_of(base_))));
    const uint64_t* words = &slots_[slot_of(c) * this->words()];
    for (size_t w = 0; w < this->words(); ++w)
      if (words[w]) return c;
    occupied_ &= ~(uint64_t{1} << slot_of(c));  // emptied by remove()
  }
  far_low_ = far_min();
  return far_low_;
}

Cycle EventWheel::far_min() const {
  Cycle low = kNone;
  for (size_t w = 0; w < far_.size(); ++w)
    for (uint64_t m = far_[w]; m; m &= m - 1) low = std::min(low, due_[w * 64 + std::countr_zero(m)]);
  return low;
}

}  // namespace ws::timing
