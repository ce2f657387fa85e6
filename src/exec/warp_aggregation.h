// Warp-aggregated atomics. When ptxas can prove that every thread of a warp
// names the same address (frontend/ptx/uniform.h), it does not send the
// warp's lanes to memory one by one: one lane (the highest active one, FLO
// of the active mask) performs the whole warp's operation. For an add of a
// constant (or uniform) amount the total is the count of active lanes
// (VOTEU.ANY, FLO, POPC, ISETP, then `@P ATOMG.ADD` with POPC x amount); a
// lane's own old value, when the program reads it, is the leader's result
// broadcast (SHFL) plus the count of active lanes below it (S2R LTMASK, LOP3,
// POPC, IADD). On sm_80 and later a reduction (no result read) of a
// per-thread integer is combined in the warp first (REDUX) and sent by the
// leader. Seen in the sm_90 SASS of nvcc 13 (bfs's `expand`, ubench/atomics'
// same-address loop, scoped_atomics, grid_sync: examples/hw/
// h100-2026-11-27-suite/sass.tar.xz). The instruction sequences are data:
// isa/ptx.toml [aggregate].
#pragma once
#include <cstdint>

#include "frontend/ptx/ast.h"
#include "frontend/ptx/uniform.h"

namespace ws::exec {

enum class Aggregation : uint8_t {
  None,
  Count,        // lanes counted, no result read: VOTEU, FLO, POPC, ISETP, @P RED
  CountResult,  // lanes counted, result read: the same, then SHFL of the old value plus the lane's rank
  Reduce,       // a per-thread integer combined first (REDUX), no result read (sm_80+)
};

// How ptxas issues atomic `in` (atom or red) of a kernel whose uniform
// registers are `u`; `result_read`: some instruction reads its destination.
// Only global and generic accesses (a shared-memory atomic has its own
// hardware forms).
Aggregation aggregation_of(const ptx::Instruction& in, const ptx::UniformRegs& u, bool result_read,
                           uint32_t binary_version);
// Its key in isa/ptx.toml [aggregate].
const char* aggregation_key(Aggregation a);

}  // namespace ws::exec
