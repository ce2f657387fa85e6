// Execution units declared in config, per sub-core:
//
//   [core.units.sp]  count = 1, latency = 4, ii = 1
//
// Any unit a preset declares exists; an opcode table maps opcodes to unit
// names. Timing is data: latency (issue to result) and initiation interval.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "common/types.h"
#include "config/config.h"

namespace ws::timing {

struct UnitSpec {
  std::string name;
  uint32_t count = 1;    // pipelines of this kind per sub-core
  uint32_t latency = 4;  // cycles from issue to result
  uint32_t ii = 1;       // cycles between issues on one pipeline
};

// All unit kinds the config declares, in name order.
std::vector<UnitSpec> read_unit_specs(const config::Config& cfg);

// The pipelines of one sub-core.
class UnitPool {
 public:
  explicit UnitPool(const std::vector<UnitSpec>& specs);
  // Index of a free pipeline of kind `kind` at cycle `now`, or -1.
  int free_pipe(uint32_t kind, Cycle now) const;
  // Earliest cycle a pipeline of `kind` frees up.
  Cycle next_free(uint32_t kind) const;
  // Issues on pipeline `pipe` of kind `kind`; returns the result-ready cycle.
  Cycle issue(uint32_t kind, int pipe, Cycle now);
  uint32_t latency(uint32_t kind) const { return specs_[kind].latency; }

 private:
  std::vector<UnitSpec> specs_;
  std::vector<std::vector<Cycle>> busy_until_;  // [kind][pipe]
};

}  // namespace ws::timing
