// Registers per thread as ptxas allocates them. PTX names no allocation;
// when the CUDA toolkit's ptxas is at hand, each module's PTX is assembled
// once (`ptxas -v`, output discarded) for the device's SM (or the module's
// target, if newer) and the figure it reports per kernel goes to the
// occupancy rules, as on a GPU. Without ptxas every kernel keeps
// exec.regs_per_thread (docs/exec.md, "Registers per thread").
#pragma once
#include <map>
#include <optional>
#include <string>

namespace ws::exec {

// The ptxas to run: $WARPSIM_PTXAS (empty or "none": none), else `ptxas` on
// PATH, else $CUDA_HOME/bin/ptxas, else /usr/local/cuda/bin/ptxas.
std::optional<std::string> find_ptxas();

// Kernel name -> registers per thread, from `ptxas -v` on `ptx` for sm_<sm>;
// empty when ptxas is missing or refuses the module.
std::map<std::string, unsigned> ptxas_registers(const std::string& ptxas, const std::string& ptx, unsigned sm);

// The "Used N registers" lines of `ptxas -v` output, per entry function.
std::map<std::string, unsigned> parse_ptxas_registers(const std::string& output);

}  // namespace ws::exec
