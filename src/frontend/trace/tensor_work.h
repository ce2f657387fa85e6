// The work of a tensor-core SASS instruction, read from its name: the shape
// token (HMMA.884, HMMA.16816, IMMA.16832, ...) gives M x N x K multiply-adds
// per warp, and the input type scales them to the f16 rate, so that one
// fma_per_clk figure per tensor unit times every type. Both frontends use it
// (exec names its tensor instructions the same way), so a replayed trace
// times them as the run that wrote it.
#pragma once
#include <cstdint>
#include <string_view>

#include "ir/warp_inst.h"

namespace ws::frontend {

// M, N, K of a shape token ("16816" -> 16, 8, 16); false when `digits` is not one.
bool parse_mma_shape(std::string_view digits, unsigned& m, unsigned& n, unsigned& k);

// WarpInst::tensor_work for SASS opcode `opcode` (with modifiers): 0 unless
// its base ends in "MMA" and it names a shape. Relative rates (per the
// NVIDIA Ampere/Hopper whitepapers' dense figures): tf32 1/2 of f16, 8-bit
// integers 2x, 4-bit 4x, f64 1/16.
uint8_t tensor_work_of(std::string_view opcode);

}  // namespace ws::frontend
