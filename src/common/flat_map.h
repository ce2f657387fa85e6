// An open-addressing hash map from 64-bit keys to small values, for the hot
// paths of the memory system (tag lookup, MSHRs): linear probing in one flat
// array, backward-shift deletion (no tombstones), power-of-two capacity.
#pragma once
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace ws {

// Backward-shift deletion in a linear-probing table: whether the entry at
// `j`, whose probe run starts at `home`, may move back into the hole at
// `hole` (it would still be found from its home). Shared with LineIndex.
inline bool probe_may_fill(size_t hole, size_t j, size_t home) {
  return hole <= j ? (home <= hole || home > j) : (home <= hole && home > j);
}

template <class V>
class FlatMap {
 public:
  explicit FlatMap(size_t expected = 16) { rehash(capacity_for(expected)); }

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  void clear() {
    for (Slot& s : slots_) s.used = false;
    size_ = 0;
  }
  void reserve(size_t n) {
    if (capacity_for(n) > slots_.size()) rehash(capacity_for(n));
  }

  V* find(uint64_t key) {
    for (size_t i = home(key);; i = (i + 1) & mask_) {
      Slot& s = slots_[i];
      if (!s.used) return nullptr;
      if (s.key == key) return &s.value;
    }
  }
  const V* find(uint64_t key) const { return const_cast<FlatMap*>(this)->find(key); }
  // Starts loading the slot a lookup of `key` begins at: a hint to the host
  // cache for a lookup expected a few simulated cycles later.
  void prefetch(uint64_t key) const { __builtin_prefetch(&slots_[home(key)]); }

  // Inserts a default value if absent; returns a reference to the value.
  V& operator[](uint64_t key) {
    if (V* v = find(key)) return *v;
    if ((size_ + 1) * 4 > slots_.size() * 3) rehash(slots_.size() * 2);
    size_t i = home(key);
    while (slots_[i].used) i = (i + 1) & mask_;
    slots_[i] = Slot{key, V{}, true};
    ++size_;
    return slots_[i].value;
  }

  bool erase(uint64_t key) {
    size_t i = home(key);
    while (true) {
      if (!slots_[i].used) return false;
      if (slots_[i].key == key) break;
      i = (i + 1) & mask_;
    }
    // Shift later members of the probe run back so lookups never stop early.
    size_t hole = i;
    for (size_t j = (i + 1) & mask_; slots_[j].used; j = (j + 1) & mask_) {
      size_t h = home(slots_[j].key);
      if (probe_may_fill(hole, j, h)) {
        slots_[hole] = std::move(slots_[j]);
        slots_[j].used = false;
        hole = j;
      }
    }
    slots_[hole].used = false;
    --size_;
    return true;
  }

  template <class F>
  void for_each(F&& f) {
    for (Slot& s : slots_)
      if (s.used) f(s.key, s.value);
  }

 private:
  struct Slot {
    uint64_t key = 0;
    V value{};
    bool used = false;
  };
  static size_t capacity_for(size_t n) {
    size_t c = 16;
    while (c * 3 < n * 4 + 4) c *= 2;
    return c;
  }
  size_t home(uint64_t key) const { return static_cast<size_t>((key * 0x9E3779B97F4A7C15ull) >> shift_); }
  void rehash(size_t cap) {
    std::vector<Slot> old = std::move(slots_);
    slots_.assign(cap, Slot{});
    mask_ = cap - 1;
    shift_ = 64;
    for (size_t c = cap; c > 1; c >>= 1) --shift_;
    size_ = 0;
    for (Slot& s : old)
      if (s.used) (*this)[s.key] = std::move(s.value);
  }

  std::vector<Slot> slots_;
  size_t mask_ = 0, size_ = 0;
  int shift_ = 60;
};

}  // namespace ws
