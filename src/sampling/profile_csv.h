// The CSV `warpsim profile` writes: one row per kernel launch, columns named
// by Nsight Compute metrics (docs/sampling.md). Shared by the trace-folder
// profile and the one a CUDA program under the warpsim runtime writes.
#pragma once
#include <string>

#include "sampling/kernel_features.h"

namespace ws::sampling {

// The header line (with its newline).
std::string profile_csv_header();
// One launch's row (with its newline).
std::string profile_csv_row(const KernelFeatures& f);
// A launch profiled cheaply (two-level profiling): name, grid and block, the
// features left empty; `warpsim sample plan` classifies it.
std::string profile_csv_cheap_row(uint32_t id, const std::string& name, Dim3 grid, Dim3 block);

}  // namespace ws::sampling
