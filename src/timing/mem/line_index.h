// Line address -> slot in a tag array, for lookups that stay O(1) however
// many ways a set has (the L1's 256). Open addressing with linear probing
// and backward-shift deletion, like FlatMap, but an entry is 8 bytes: a
// 32-bit fingerprint of the line address and the slot. The tag array holds
// the full address, and a lookup confirms a fingerprint match there (it
// reads that line next anyway), so lines whose fingerprints collide are
// still told apart. Half of FlatMap's 16-byte slots: a kernel streaming
// through 80 L1s and 64 L2 slices touches a random entry per access, and
// the smaller table keeps more of them in the host's caches.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "common/flat_map.h"
#include "common/types.h"

namespace ws::timing {

class LineIndex {
 public:
  // Sized for `lines` entries at most (load factor at most 1/2).
  void reset(size_t lines) {
    size_t cap = 16;
    while (cap < 2 * lines) cap *= 2;
    slots_.assign(cap, Slot{});
    mask_ = cap - 1;
    shift_ = 32;
    for (size_t c = cap; c > 1; c >>= 1) --shift_;
  }
  static uint32_t fingerprint(Addr line_addr) {
    uint64_t n = line_addr >> 7;
    return static_cast<uint32_t>(n ^ (n >> 32));
  }
  static constexpr uint32_t kAbsent = ~0u;
  // The slot of `line_addr`, or kAbsent: `addr_of(slot)` gives a slot's full
  // address.
  template <class AddrOf>
  uint32_t find(Addr line_addr, AddrOf&& addr_of) const {
    uint32_t fp = fingerprint(line_addr);
    for (size_t i = home(fp);; i = (i + 1) & mask_) {
      const Slot& s = slots_[i];
      if (s.slot_plus1 == 0) return kAbsent;
      if (s.fp == fp && addr_of(s.slot_plus1 - 1) == line_addr) return s.slot_plus1 - 1;
    }
  }
  void prefetch(Addr line_addr) const { __builtin_prefetch(&slots_[home(fingerprint(line_addr))]); }
  // `line_addr` must be absent.
  void insert(Addr line_addr, uint32_t slot) {
    uint32_t fp = fingerprint(line_addr);
    size_t i = home(fp);
    while (slots_[i].slot_plus1 != 0) i = (i + 1) & mask_;
    slots_[i] = Slot{fp, slot + 1};
  }
  // Removes the entry pointing at `slot` (which holds `line_addr`).
  void erase(Addr line_addr, uint32_t slot) {
    size_t i = home(fingerprint(line_addr));
    while (slots_[i].slot_plus1 != slot + 1) {
      if (slots_[i].slot_plus1 == 0) return;
      i = (i + 1) & mask_;
    }
    size_t hole = i;
    for (size_t j = (i + 1) & mask_; slots_[j].slot_plus1 != 0; j = (j + 1) & mask_) {
      if (probe_may_fill(hole, j, home(slots_[j].fp))) {
        slots_[hole] = slots_[j];
        hole = j;
      }
    }
    slots_[hole] = Slot{};
  }

 private:
  struct Slot {
    uint32_t fp = 0;
    uint32_t slot_plus1 = 0;  // 0: empty
  };
  size_t home(uint32_t fp) const { return static_cast<size_t>((fp * 0x9E3779B9u) >> shift_) & mask_; }

  std::vector<Slot> slots_;
  size_t mask_ = 0;
  int shift_ = 28;
};

}  // namespace ws::timing
