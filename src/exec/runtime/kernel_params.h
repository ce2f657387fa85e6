// The kernel parameter buffer. A launch passes only an array of pointers to
// the argument values; their sizes and offsets come from the PTX .entry.
#pragma once
#include <cstdint>
#include <vector>

#include "frontend/ptx/ast.h"

namespace ws::runtime {

// Lays the arguments out per `kernel.params` (each args[i] points at a value
// of params[i].size bytes). Throws Error when args is null but the kernel
// takes parameters.
std::vector<uint8_t> pack_kernel_params(const ptx::Function& kernel, void* const* args);

}  // namespace ws::runtime
