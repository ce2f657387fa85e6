// LineIndex against a plain hash map: whatever the access pattern (walks,
// strides, scattered lines, lines far apart with equal low bits), every
// present line is found at its slot, absent lines are not found, and erasing
// keeps the rest findable (backward-shift deletion).
#include <gtest/gtest.h>

#include <random>
#include <unordered_map>
#include <vector>

#include "timing/mem/line_index.h"

namespace ws::timing {
namespace {

struct Pattern {
  const char* name;
  Addr stride_lines;  // 0: random lines
};

class LineIndexModel {
 public:
  explicit LineIndexModel(size_t lines) : addrs_(lines, ~Addr{0}) { index_.reset(lines); }
  void insert(Addr a, uint32_t slot) {
    index_.insert(a, slot);
    addrs_[slot] = a;
    ref_[a] = slot;
  }
  void erase(Addr a) {
    uint32_t slot = ref_.at(a);
    index_.erase(a, slot);
    addrs_[slot] = ~Addr{0};
    ref_.erase(a);
  }
  uint32_t find(Addr a) const {
    return index_.find(a, [this](uint32_t s) { return addrs_[s]; });
  }
  void check(Addr probe) const {
    auto it = ref_.find(probe);
    EXPECT_EQ(find(probe), it == ref_.end() ? LineIndex::kAbsent : it->second) << "line 0x" << std::hex << probe;
  }
  const std::unordered_map<Addr, uint32_t>& ref() const { return ref_; }

 private:
  LineIndex index_;
  std::vector<Addr> addrs_;  // by slot: the line it holds
  std::unordered_map<Addr, uint32_t> ref_;
};

// Fills `lines` slots along the pattern, then keeps replacing the oldest
// line with the next one (a streaming cache's churn), checking as it goes.
void run(const Pattern& p, size_t lines) {
  SCOPED_TRACE(p.name);
  LineIndexModel m(lines);
  std::mt19937_64 rng(42);
  Addr next = 0x7f0000000000ull >> 7;  // a line number high in the address space
  auto next_line = [&] {
    Addr n = p.stride_lines ? (next += p.stride_lines) : (rng() >> 25);
    return n << 7;
  };
  std::vector<Addr> fifo(lines);
  for (uint32_t s = 0; s < lines; ++s) {
    Addr a = next_line();
    while (m.ref().count(a)) a = next_line();
    fifo[s] = a;
    m.insert(a, s);
  }
  for (size_t step = 0; step < 20 * lines; ++step) {
    auto slot = static_cast<uint32_t>(step % lines);
    Addr a = next_line();
    while (m.ref().count(a)) a = next_line();
    m.check(a);  // absent before its insert
    m.erase(fifo[slot]);
    m.check(fifo[slot]);
    fifo[slot] = a;
    m.insert(a, slot);
    m.check(a);
    m.check(fifo[(slot + lines / 2) % lines]);  // an older line is still there
  }
  for (const auto& [a, s] : m.ref()) ASSERT_EQ(m.find(a), s);
}

TEST(LineIndex, MatchesAHashMapUnderStreamingChurn) {
  const Pattern patterns[] = {
      {"walk", 1},
      {"one L2 slice's lines of a walk", 64},
      {"stride of 24 lines", 24},
      {"stride of a whole index", 2048},
      {"stride of 2^32 lines (equal low bits)", Addr{1} << 32},
      {"random lines", 0},
  };
  for (const Pattern& p : patterns)
    for (size_t lines : {1u, 7u, 96u, 768u, 1024u}) run(p, lines);
}

}  // namespace
}  // namespace ws::timing
