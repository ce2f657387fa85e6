#include "frontend/trace/line_memo.h"

#include <cstring>

namespace ws::frontend {

namespace {

bool is_space(char c) { return static_cast<unsigned char>(c) <= ' '; }

}  // namespace

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

uint64_t LineMemo::key_of(std::string_view head, std::string_view tail, bool rebased) {
  if (!rebased) return hash(head);
  return (hash(head) * 0xff51afd7ed558ccdull) ^ hash(tail) ^ 0x5bd1e995u;
}

std::optional<std::pair<size_t, size_t>> LineMemo::base_token(std::string_view line) {
  for (size_t i = line.size(); i-- > 1;) {
    if (line[i] != 'x' || line[i - 1] != '0' || (i >= 2 && !is_space(line[i - 2]))) continue;
    size_t b = i - 1, e = i + 1;
    while (e < line.size() && !is_space(line[e])) ++e;
    return std::make_pair(b, e - b);
  }
  return std::nullopt;
}

const LineMemo::Entry* LineMemo::lookup(std::string_view head, std::string_view tail, bool rebased) const {
  const uint32_t* at = by_hash_.find(key_of(head, tail, rebased));
  if (!at) return nullptr;
  const Entry& e = entries_[*at];
  if (e.rebased != rebased || e.head_len != head.size() || e.tail_len != tail.size()) return nullptr;
  const char* t = text_.data() + e.text_at;
  // (string_view comparison: an empty tail may have a null data(), which memcmp must not see)
  if (std::string_view(t, head.size()) != head || std::string_view(t + head.size(), tail.size()) != tail)
    return nullptr;  // another text, same hash
  return &e;
}

const StoredInst* LineMemo::find(std::string_view line) const {
  const Entry* e = lookup(line, {}, false);
  return e ? &e->stored : nullptr;
}

std::optional<StoredInst> LineMemo::find_rebased(std::string_view line) const {
  auto tok = base_token(line);
  if (!tok) return std::nullopt;
  const Entry* e = lookup(line.substr(0, tok->first), line.substr(tok->first + tok->second), true);
  if (!e) return std::nullopt;
  // The parser's own reading of the token: a bad one is left to the parser.
  std::optional<Addr> base = hex_value(line.substr(tok->first, tok->second));
  if (!base) return std::nullopt;
  StoredInst s = e->stored;
  s.where = *base + e->delta;
  return s;
}

void LineMemo::add(std::string_view head, std::string_view tail, bool rebased, const StoredInst& stored,
                   uint64_t delta) {
  if (entries_.size() >= kMaxEntries || text_.size() + head.size() + tail.size() > kMaxText) return;
  uint64_t h = key_of(head, tail, rebased);
  if (by_hash_.find(h)) return;
  by_hash_[h] = static_cast<uint32_t>(entries_.size());
  entries_.push_back(Entry{static_cast<uint32_t>(text_.size()), static_cast<uint32_t>(head.size()),
                           static_cast<uint32_t>(tail.size()), rebased, stored, delta});
  text_.insert(text_.end(), head.begin(), head.end());
  text_.insert(text_.end(), tail.begin(), tail.end());
}

void LineMemo::remember(std::string_view line, const StoredInst& stored) { add(line, {}, false, stored, 0); }

void LineMemo::remember_rebased(std::string_view line, uint32_t at, uint32_t len, Addr base,
                                const StoredInst& stored) {
  auto tok = base_token(line);
  if (!tok || tok->first != at || tok->second != len) return;
  add(line.substr(0, at), line.substr(at + len), true, stored, stored.where - base);
}

}  // namespace ws::frontend
