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
  // Tensor units: f16 multiply-adds one pipeline does per cycle (0: every
  // instruction occupies it `ii` cycles). An MMA instruction then occupies
  // it for its work (WarpInst::tensor_work) at that rate.
  uint32_t fma_per_clk = 0;
};

// All unit kinds the config declares, in name order.
std::vector<UnitSpec> read_unit_specs(const config::Config& cfg);
// The pipeline kind (index into `specs`) that times ISA unit `unit`, or -1
// when the preset declares none. A preset without an `mio` unit times the
// shuffles the tables give it on its `int` unit, as before that unit existed.
int find_unit(const std::vector<UnitSpec>& specs, const std::string& unit);

// The pipelines of one sub-core.
class UnitPool {
 public:
  explicit UnitPool(const std::vector<UnitSpec>& specs);
  // Index of a free pipeline of kind `kind` at cycle `now`, or -1.
  int free_pipe(uint32_t kind, Cycle now) const;
  // Earliest cycle a pipeline of `kind` frees up.
  Cycle next_free(uint32_t kind) const;
  // The last run of back-to-back instructions on the pipeline of `kind` that
  // frees first (stall attribution): it started at `since`, holds the
  // pipeline until `until`, and took `issues` instructions. Another warp
  // wanting the pipeline then was throttled, except on those issue cycles
  // (the pipeline is free at the start of its issue cycle: not selected).
  struct Held {
    Cycle since = 0, until = 0, issues = 0;
  };
  Held last_held(uint32_t kind) const {
    const auto& runs = runs_[kind];
    return runs.size() == 1 ? runs[0] : last_held_of_many(kind);
  }
  // Issues on pipeline `pipe` of kind `kind`; returns the result-ready cycle.
  // `tensor_work` (WarpInst::tensor_work) > 0 on a unit with fma_per_clk
  // occupies the pipeline for that work, and the result follows the last
  // slice by the unit's latency.
  Cycle issue(uint32_t kind, int pipe, Cycle now, uint32_t tensor_work = 0);
  // Cycles an instruction of `tensor_work` occupies a pipeline of `kind`.
  uint32_t occupancy(uint32_t kind, uint32_t tensor_work) const;
  uint32_t latency(uint32_t kind) const { return specs_[kind].latency; }

 private:
  Held last_held_of_many(uint32_t kind) const;
  std::vector<UnitSpec> specs_;
  std::vector<std::vector<Cycle>> busy_until_;  // [kind][pipe]
  std::vector<std::vector<Held>> runs_;        // [kind][pipe]: its current run of instructions
};

}  // namespace ws::timing
