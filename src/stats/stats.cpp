#include "stats/stats.h"

#include <algorithm>

#include "config/param.h"

namespace ws::stats {

Counter& Registry::counter(const std::string& name, const std::string& desc) {
  auto [it, added] = index_.try_emplace(name, names_.size());
  if (!added) return counters_[it->second];
  counters_.emplace_back();
  names_.push_back(name);
  descs_.push_back(desc);
  size_t dot = name.rfind('.');
  by_leaf_[dot == std::string::npos ? name : name.substr(dot + 1)].push_back(it->second);
  return counters_.back();
}

Snapshot Registry::snapshot() const {
  Snapshot s;
  s.reserve(counters_.size());
  for (const Counter& c : counters_) s.push_back(c.value());
  return s;
}

const std::vector<size_t>& Registry::matching(std::string_view pattern) const {
  Matches& m = matches_[std::string(pattern)];
  // Candidates: the counters with the pattern's last segment, or all of them
  // where that segment is '*'.
  size_t dot = pattern.rfind('.');
  std::string_view leaf = dot == std::string_view::npos ? pattern : pattern.substr(dot + 1);
  const std::vector<size_t>* by_leaf = nullptr;
  if (leaf != "*") {
    auto it = by_leaf_.find(std::string(leaf));
    if (it == by_leaf_.end()) return m.ids;
    by_leaf = &it->second;
  }
  for (size_t n = by_leaf ? by_leaf->size() : names_.size(); m.scanned < n; ++m.scanned) {
    size_t id = by_leaf ? (*by_leaf)[m.scanned] : m.scanned;
    if (config::name_matches(pattern, names_[id])) m.ids.push_back(id);
  }
  return m.ids;
}

uint64_t Registry::sum(std::string_view pattern) const {
  uint64_t total = 0;
  for (size_t i : matching(pattern)) total += counters_[i].value();
  return total;
}

namespace {
// Counter i's change between two snapshots (one taken before it was registered reads 0).
uint64_t delta(size_t i, const Snapshot& from, const Snapshot& to) {
  return (i < to.size() ? to[i] : 0) - (i < from.size() ? from[i] : 0);
}
}  // namespace

uint64_t Registry::sum(std::string_view pattern, const Snapshot& from, const Snapshot& to) const {
  uint64_t total = 0;
  for (size_t i : matching(pattern)) total += delta(i, from, to);
  return total;
}

uint64_t Registry::max(std::string_view pattern, const Snapshot& from, const Snapshot& to) const {
  uint64_t most = 0;
  for (size_t i : matching(pattern)) most = std::max(most, delta(i, from, to));
  return most;
}

std::vector<std::pair<std::string, uint64_t>> Registry::diff(const Snapshot& from, const Snapshot& to) const {
  std::vector<std::pair<std::string, uint64_t>> out;
  for (size_t i = 0; i < names_.size(); ++i) out.emplace_back(names_[i], delta(i, from, to));
  return out;
}

}  // namespace ws::stats
