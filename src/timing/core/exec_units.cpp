#include "timing/core/exec_units.h"

#include <algorithm>

#include "common/error.h"
#include "ir/warp_inst.h"

namespace ws::timing {

namespace {
const config::Param<int64_t> kCount{"core.units.*.count", 1, "pipelines", "pipelines of this unit per sub-core", {1, 64}};
const config::Param<int64_t> kLatency{"core.units.*.latency", 4, "cycles", "issue-to-result latency", {1, 10000}};
const config::Param<int64_t> kIi{"core.units.*.ii", 1, "cycles", "initiation interval of one pipeline", {1, 10000}};
const config::Param<int64_t> kFmaPerClk{"core.units.*.fma_per_clk", 0, "FMA/cycle",
                                        "tensor units: f16 multiply-adds per cycle per pipeline; an MMA occupies the "
                                        "pipeline M*N*K/this cycles (0: ii for every instruction)",
                                        {0, 65536}};
}  // namespace

std::vector<UnitSpec> read_unit_specs(const config::Config& cfg) {
  std::vector<UnitSpec> specs;
  for (const std::string& name : cfg.instances("core.units")) {
    specs.push_back(UnitSpec{name, static_cast<uint32_t>(kCount.get(cfg, name)),
                             static_cast<uint32_t>(kLatency.get(cfg, name)), static_cast<uint32_t>(kIi.get(cfg, name)),
                             static_cast<uint32_t>(kFmaPerClk.get(cfg, name))});
  }
  if (specs.empty()) throw ConfigError("core.units", "the preset declares no execution units");
  return specs;
}

int find_unit(const std::vector<UnitSpec>& specs, const std::string& unit) {
  auto named = [&](const std::string& n) {
    auto it = std::find_if(specs.begin(), specs.end(), [&](const UnitSpec& s) { return s.name == n; });
    return it == specs.end() ? -1 : static_cast<int>(it - specs.begin());
  };
  int k = named(unit);
  return k < 0 && unit == "mio" ? named("int") : k;
}

UnitPool::UnitPool(const std::vector<UnitSpec>& specs) : specs_(specs) {
  for (const UnitSpec& s : specs_) {
    busy_until_.emplace_back(s.count, 0);
    runs_.emplace_back(s.count);
  }
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

UnitPool::Held UnitPool::last_held_of_many(uint32_t kind) const {
  const auto& pipes = busy_until_[kind];
  size_t p = static_cast<size_t>(std::min_element(pipes.begin(), pipes.end()) - pipes.begin());
  return runs_[kind][p];
}

uint32_t UnitPool::occupancy(uint32_t kind, uint32_t tensor_work) const {
  const UnitSpec& s = specs_[kind];
  if (tensor_work == 0 || s.fma_per_clk == 0) return s.ii;
  uint64_t fmas = uint64_t{tensor_work} * ir::kTensorWorkUnit;
  return static_cast<uint32_t>((fmas + s.fma_per_clk - 1) / s.fma_per_clk);
}

Cycle UnitPool::issue(uint32_t kind, int pipe, Cycle now, uint32_t tensor_work) {
  uint32_t busy = occupancy(kind, tensor_work);
  Held& run = runs_[kind][pipe];
  if (now != run.until) run = Held{now, now, 0};  // idle since the last one: a new run
  run.until = busy_until_[kind][pipe] = now + busy;
  ++run.issues;
  bool sliced = tensor_work != 0 && specs_[kind].fma_per_clk != 0;
  return now + specs_[kind].latency + (sliced ? busy : 0);
}

}  // namespace ws::timing
