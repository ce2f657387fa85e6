// The CSV `warpsim profile` writes: one row per kernel launch, columns named
// by Nsight Compute metrics (docs/sampling.md). Shared by the trace-folder
// profile and the one a CUDA program under the warpsim runtime writes.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "sampling/kernel_features.h"

namespace ws::sampling {

// The header line (with its newline).
std::string profile_csv_header();
// One launch's row (with its newline).
std::string profile_csv_row(const KernelFeatures& f);
// A launch profiled cheaply (two-level profiling): name, grid and block, the
// features left empty; `warpsim sample plan` classifies it.
std::string profile_csv_cheap_row(uint32_t id, const std::string& name, Dim3 grid, Dim3 block);

// The name in the CSV column a real GPU's cycles have (ncu): `warpsim sample
// plan` checks its groupings against it.
inline constexpr const char* kCyclesColumn = "gpc__cycles_elapsed.max";

// One launch of a timed run (`warpsim profile --cycles-model`).
struct LaunchCycles {
  std::string name;  // mangled, as in the CSV
  uint64_t cycles = 0;
};

// `csv` (a profile, written to `csv_path`) with the cycles of each launch
// added as a last column. The launches must be the CSV's, in order: a count
// or name that differs is an InputError naming `timed_from` and the launch.
std::string profile_csv_add_cycles(const std::string& csv, const std::vector<LaunchCycles>& launches,
                                   const std::string& csv_path, const std::string& timed_from);

}  // namespace ws::sampling
