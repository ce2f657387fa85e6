#include "stats/stats.h"

#include "config/param.h"

namespace ws::stats {

Counter& Registry::counter(const std::string& name, const std::string& desc) {
  for (size_t i = 0; i < names_.size(); ++i)
    if (names_[i] == name) return counters_[i];
  counters_.emplace_back();
  names_.push_back(name);
  descs_.push_back(desc);
  return counters_.back();
}

Snapshot Registry::snapshot() const {
  Snapshot s;
  s.reserve(counters_.size());
  for (const Counter& c : counters_) s.push_back(c.value());
  return s;
}

uint64_t Registry::sum(std::string_view pattern) const {
  uint64_t total = 0;
  for (size_t i = 0; i < names_.size(); ++i)
    if (config::name_matches(pattern, names_[i])) total += counters_[i].value();
  return total;
}

uint64_t Registry::sum(std::string_view pattern, const Snapshot& from, const Snapshot& to) const {
  uint64_t total = 0;
  for (size_t i = 0; i < names_.size(); ++i) {
    if (!config::name_matches(pattern, names_[i])) continue;
    uint64_t a = i < from.size() ? from[i] : 0, b = i < to.size() ? to[i] : 0;
    total += b - a;
  }
  return total;
}

std::vector<std::pair<std::string, uint64_t>> Registry::diff(const Snapshot& from, const Snapshot& to) const {
  std::vector<std::pair<std::string, uint64_t>> out;
  for (size_t i = 0; i < names_.size(); ++i) {
    uint64_t a = i < from.size() ? from[i] : 0, b = i < to.size() ? to[i] : 0;
    out.emplace_back(names_[i], b - a);
  }
  return out;
}

}  // namespace ws::stats
