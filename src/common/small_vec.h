// A list whose first N elements live inside the object and the rest on the
// heap: for per-entry lists that are nearly always short (MSHR waiters,
// scoreboard entries), so the common case chases no pointer and allocates
// nothing. Elements are default-constructible values; order is kept.
#pragma once
#include <array>
#include <cstdint>
#include <vector>

namespace ws {

template <class T, uint32_t N>
class SmallVec {
 public:
  uint32_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  T& operator[](uint32_t i) { return i < N ? inline_[i] : spill_[i - N]; }
  const T& operator[](uint32_t i) const { return i < N ? inline_[i] : spill_[i - N]; }
  T& back() { return (*this)[size_ - 1]; }

  void push_back(const T& v) {
    if (size_ < N) inline_[size_] = v;
    else spill_.push_back(v);
    ++size_;
  }
  void pop_back() {
    if (size_ > N) spill_.pop_back();
    --size_;
  }
  // Removes element i; the others keep their order.
  void erase(uint32_t i) {
    for (uint32_t j = i; j + 1 < size_; ++j) (*this)[j] = (*this)[j + 1];
    pop_back();
  }
  // Keeps the spill capacity, so a reused entry does not allocate again.
  void clear() {
    size_ = 0;
    spill_.clear();
  }

 private:
  uint32_t size_ = 0;
  std::array<T, N> inline_{};
  std::vector<T> spill_;  // elements past N, in order
};

}  // namespace ws
