// How the instruction lines of one kernel were stored, by their text. A
// trace repeats most lines verbatim (every iteration of a loop, every warp of
// a CTA: same pc, mask, registers and opcode), and most memory lines differ
// from an earlier one only in the base address of a base-and-stride access.
// The reader looks a line up here before parsing it:
//  - a line without addresses seen before is stored as it was then;
//  - a line that matches an earlier base-and-stride line everywhere but in
//    its base token (the last token of the form 0x<hex>) is stored as that
//    one was, with its own base: the rest of the line decided everything
//    else (opcode, registers, mask, stride, hence the lanes' pattern).
// Lines stored as a lane list, and generic accesses (whose space depends on
// the address), are not remembered. Parse errors are never remembered, so a
// line that would fail still reaches the parser.
#pragma once
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "common/flat_map.h"
#include "frontend/trace/trace_cta.h"

namespace ws::frontend {

class LineMemo {
 public:
  // The stored form of a line with exactly this text, or nullptr.
  const StoredInst* find(std::string_view line) const;
  // The stored form of `line` rebased from an earlier base-and-stride line
  // that differs from it only in its base token, or nullopt.
  std::optional<StoredInst> find_rebased(std::string_view line) const;

  // Remembers a line without addresses (its stored form does not depend on
  // where it is stored).
  void remember(std::string_view line, const StoredInst& stored);
  // Remembers a base-and-stride line whose base token (value `base`) lies at
  // [at, at + len) of the line; ignored unless that is the token
  // find_rebased() would cut out.
  void remember_rebased(std::string_view line, uint32_t at, uint32_t len, Addr base, const StoredInst& stored);

  size_t size() const { return entries_.size(); }
  static uint64_t hash(std::string_view s);
  // The span of the last whitespace-separated token starting with "0x", if any.
  static std::optional<std::pair<size_t, size_t>> base_token(std::string_view line);

  static constexpr size_t kMaxEntries = size_t{1} << 16;
  static constexpr size_t kMaxText = size_t{4} << 20;

 private:
  struct Entry {
    uint32_t text_at = 0, head_len = 0, tail_len = 0;
    bool rebased = false;
    StoredInst stored;
    uint64_t delta = 0;  // rebased: stored.where - base (mod 2^64)
  };
  static uint64_t key_of(std::string_view head, std::string_view tail, bool rebased);
  const Entry* lookup(std::string_view head, std::string_view tail, bool rebased) const;
  void add(std::string_view head, std::string_view tail, bool rebased, const StoredInst& stored, uint64_t delta);

  std::vector<char> text_;
  std::vector<Entry> entries_;
  FlatMap<uint32_t> by_hash_{1024};
};

}  // namespace ws::frontend
