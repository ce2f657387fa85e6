// A fixed-size set of small indices as bits, 64 to a word, for hot loops that
// visit only the members (set bits) of a mostly-empty range, in ascending
// order: e.g. the DRAM banks whose scheduler summary is out of date.
#pragma once
#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace ws {

class BitSet {
 public:
  explicit BitSet(size_t size = 0) : size_(size), words_((size + 63) / 64, 0) {}

  size_t size() const { return size_; }
  bool test(size_t i) const { return (words_[i / 64] >> (i % 64)) & 1; }
  void set(size_t i) { words_[i / 64] |= bit(i); }
  void set_all() {
    std::fill(words_.begin(), words_.end(), ~uint64_t{0});
    if (size_ % 64 != 0) words_.back() = bit(size_) - 1;
  }
  bool none() const {
    for (uint64_t w : words_)
      if (w) return false;
    return true;
  }

  // Calls f(i) for each member, ascending, emptying the set as it goes; f may
  // add members again (those in words already passed stay for the next call).
  template <class F>
  void take_each(F&& f) {
    for (size_t w = 0; w < words_.size(); ++w) {
      uint64_t m = words_[w];
      words_[w] = 0;
      for (; m; m &= m - 1) f(static_cast<uint32_t>(w * 64 + std::countr_zero(m)));
    }
  }

 private:
  static uint64_t bit(size_t i) { return uint64_t{1} << (i % 64); }
  size_t size_;
  std::vector<uint64_t> words_;
};

}  // namespace ws
