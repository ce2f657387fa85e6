#include "frontend/trace/line_memo.h"

#include <cstring>

namespace ws::frontend {

// Eight bytes at a time, multiply-and-fold: trace lines are 20 to 60 bytes,
// and this runs once per line.
uint64_t LineMemo::hash(std::string_view s) {
  constexpr uint64_t kMul = 0x9e3779b97f4a7c15ull;
  uint64_t h = s.size() * kMul;
  size_t i = 0;
  for (; i + 8 <= s.size(); i += 8) {
    uint64_t w;
    std::memcpy(&w, s.data() + i, 8);
    h = (h ^ w) * kMul;
    h ^= h >> 32;
  }
  if (i < s.size()) {
    uint64_t w = 0;
    std::memcpy(&w, s.data() + i, s.size() - i);
    h = (h ^ w) * kMul;
    h ^= h >> 32;
  }
  h *= kMul;
  return h ^ (h >> 29);
}

void LineMemo::remember(std::string_view line, const StoredInst& stored) {
  if (entries_.size() >= kMaxEntries || text_.size() + line.size() > kMaxText) return;
  uint64_t h = hash(line);
  if (by_hash_.find(h)) return;
  by_hash_[h] = static_cast<uint32_t>(entries_.size());
  entries_.push_back(Entry{static_cast<uint32_t>(text_.size()), static_cast<uint32_t>(line.size()), stored});
  text_.insert(text_.end(), line.begin(), line.end());
}

}  // namespace ws::frontend
