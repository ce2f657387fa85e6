// Shared-memory loads ptxas merges into vector loads.
//
// nvcc's PTX reads a row of a shared tile one element at a time
// (`ld.shared.f32 %f7, [%r5]; ... [%r5+4]; ... [%r5+8]; ... [%r5+12]` in a
// tiled matrix multiply's unrolled inner loop); ptxas, which lays out shared
// memory itself, issues them as one LDS.128 when the base is 16-byte aligned
// (matrix_mul, lud_internal and lud_perimeter in the H100 SASS of
// examples/hw, LDS.64 for dwt2d's even/odd pairs). This pass finds such groups
// in a function whose loads of one base register (or shared variable) with
// constant offsets lie in one straight-line stretch with no shared store,
// barrier, fence or atomic between them, and marks them: the group's first
// load in program order issues the whole access (Instruction::merged_bytes,
// merged_below, merged_dsts), the others are `folded` (exec runs every load,
// so results are unchanged).
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "frontend/ptx/ast.h"

namespace ws::ptx {

// Each register's known alignment in bytes (a power of two, at most 256):
// what every definition of it guarantees, from immediates, shared variables
// (as ptxas lays them out), shifts, products, sums and masks. 1 where
// nothing is known (parameters, special registers, loads).
std::vector<uint32_t> register_alignment(const Function& f, const Module& m);

// The alignment ptxas gives a variable: its declared one, raised to 16
// bytes for a shared array of at least 16 bytes.
uint32_t variable_alignment(const Variable& v);

size_t vectorize_shared_loads(Function& f, const Module& m);
size_t vectorize_shared_loads_module(Module& m);

}  // namespace ws::ptx
