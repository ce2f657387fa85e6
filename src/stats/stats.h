// Typed counters registered under hierarchical names ("sm.3.l1d.sector_hits").
// Components hold a Counter& and increment it on the hot path (one add, no
// lookup); printing and aggregation happen here, never in components.
#pragma once
#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace ws::stats {

class Counter {
 public:
  void inc(uint64_t n = 1) { value_ += n; }
  void set(uint64_t v) { value_ = v; }
  uint64_t value() const { return value_; }

 private:
  uint64_t value_ = 0;
};

// Values of every counter at one moment, in registration order.
using Snapshot = std::vector<uint64_t>;

class Registry {
 public:
  // Registers (or returns the existing) counter; its address stays valid for
  // the registry's lifetime.
  Counter& counter(const std::string& name, const std::string& desc = "");
  Snapshot snapshot() const;
  // Sum over counters whose name matches `pattern` ('*' matches one segment).
  uint64_t sum(std::string_view pattern) const;
  uint64_t sum(std::string_view pattern, const Snapshot& from, const Snapshot& to) const;
  // The largest change over the matching counters between two snapshots.
  uint64_t max(std::string_view pattern, const Snapshot& from, const Snapshot& to) const;
  // (name, to - from) for every counter.
  std::vector<std::pair<std::string, uint64_t>> diff(const Snapshot& from, const Snapshot& to) const;
  size_t size() const { return counters_.size(); }
  const std::string& name(size_t i) const { return names_[i]; }
  const std::string& desc(size_t i) const { return descs_[i]; }

 private:
  std::deque<Counter> counters_;
  std::deque<std::string> names_, descs_;  // a deque: growing moves no strings
  // Thousands of counters are registered at start-up: a linear search each
  // made building a GPU quadratic in its size.
  std::unordered_map<std::string, size_t> index_;
  // Counter ids by last name segment: a pattern whose last segment is not '*'
  // is matched against those only (a QV100 report matched 16 patterns against
  // all ~5,600 counters: a quarter of a small run's host time).
  std::unordered_map<std::string, std::vector<size_t>> by_leaf_;
  // Counters matching each pattern summed so far. Names are only appended, so
  // a list is brought up to date by matching the candidates added since
  // (`scanned` counts candidates: all names, or those with the pattern's leaf).
  struct Matches {
    size_t scanned = 0;
    std::vector<size_t> ids;
  };
  const std::vector<size_t>& matching(std::string_view pattern) const;
  mutable std::unordered_map<std::string, Matches> matches_;
};

// A registry view with a name prefix, handed to a component at construction.
class Scope {
 public:
  Scope(Registry& reg, std::string prefix) : reg_(&reg), prefix_(std::move(prefix)) {}
  Counter& counter(std::string_view leaf, const std::string& desc = "") const {
    return reg_->counter(prefix_.empty() ? std::string(leaf) : prefix_ + "." + std::string(leaf), desc);
  }
  Scope sub(std::string_view child) const {
    return Scope(*reg_, prefix_.empty() ? std::string(child) : prefix_ + "." + std::string(child));
  }
  const std::string& prefix() const { return prefix_; }
  Registry& registry() const { return *reg_; }

 private:
  Registry* reg_;
  std::string prefix_;
};

}  // namespace ws::stats
