#include "timing/core/exec_units.h"

#include <algorithm>

#include "common/error.h"

namespace ws::timing {

namespace {
const config::Param<int64_t> kCount{"core.units.*.count", 1, "pipelines", "pipelines of this unit per sub-core", {1, 64}};
const config::Param<int64_t> kLatency{"core.units.*.latency", 4, "cycles", "issue-to-result latency", {1, 10000}};
const config::Param<int64_t> kIi{"core.units.*.ii", 1, "cycles", "initiation interval of one pipeline", {1, 10000}};
}  // namespace

std::vector<UnitSpec> read_unit_specs(const config::Config& cfg) {
  std::vector<UnitSpec> specs;
  for (const std::string& name : cfg.instances("core.units")) {
    specs.push_back(UnitSpec{name, static_cast<uint32_t>(kCount.get(cfg, name)),
                             static_cast<uint32_t>(kLatency.get(cfg, name)), static_cast<uint32_t>(kIi.get(cfg, name))});
  }
  if (specs.empty()) throw ConfigError("core.units", "the preset declares no execution units");
  return specs;
}

UnitPool::UnitPool(const std::vector<UnitSpec>& specs) : specs_(specs) {
  for (const UnitSpec& s : specs_) busy_until_.emplace_back(s.count, 0);
}

int UnitPool::free_pipe(uint32_t kind, Cycle now) const {
  const auto& pipes = busy_until_[kind];
  for (size_t i = 0; i < pipes.size(); ++i)
    if (pipes[i] <= now) return static_cast<int>(i);
  return -1;
}

Cycle UnitPool::next_free(uint32_t kind) const {
  const auto& pipes = busy_until_[kind];
  return *std::min_element(pipes.begin(), pipes.end());
}

Cycle UnitPool::issue(uint32_t kind, int pipe, Cycle now) {
  busy_until_[kind][pipe] = now + specs_[kind].ii;
  return now + specs_[kind].latency;
}

}  // namespace ws::timing
