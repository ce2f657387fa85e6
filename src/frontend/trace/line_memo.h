// How the instruction lines of one kernel were stored, by their exact text.
// A trace repeats most lines verbatim (every iteration of a loop, every warp
// of a CTA: same pc, mask, registers and opcode), so the reader looks a line
// up here before parsing it, and a line seen before is stored as it was then
// without being parsed again. Only lines whose stored form does not depend
// on where they are stored (no lane addresses) are remembered; lines that
// carry addresses differ from instance to instance anyway.
#pragma once
#include <cstdint>
#include <string_view>
#include <vector>

#include "common/flat_map.h"
#include "frontend/trace/trace_cta.h"

namespace ws::frontend {

class LineMemo {
 public:
  // The stored form of a line with exactly this text, or nullptr.
  const StoredInst* find(std::string_view line) const {
    uint64_t h = hash(line);
    const uint32_t* at = by_hash_.find(h);
    if (!at) return nullptr;
    const Entry& e = entries_[*at];
    if (std::string_view(text_.data() + e.text_at, e.text_len) != line) return nullptr;  // another text, same hash
    return &e.stored;
  }
  // Remembers `line` (one whose parse did not depend on its position); a
  // memo past its size limit, or a hash already taken, remembers nothing.
  void remember(std::string_view line, const StoredInst& stored);
  size_t size() const { return entries_.size(); }
  static uint64_t hash(std::string_view s);

  static constexpr size_t kMaxEntries = size_t{1} << 16;
  static constexpr size_t kMaxText = size_t{4} << 20;

 private:
  struct Entry {
    uint32_t text_at = 0, text_len = 0;
    StoredInst stored;
  };
  std::vector<char> text_;
  std::vector<Entry> entries_;
  FlatMap<uint32_t> by_hash_{1024};
};

}  // namespace ws::frontend
