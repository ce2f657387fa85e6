// Predication of short forward branches, as ptxas does it, so that the
// scheduler (schedule.h) sees one basic block where the PTX has several.
//
// nvcc writes a bounds-checked tile load as `@p bra L; ld.global a, [x]; L:
// st.shared [s], a;` and the next one the same way, so every load sits in a
// basic block of its own and the list scheduler cannot issue the second
// load before the first store. ptxas predicates such regions (`@!P0 LDG`)
// and schedules the result as one block: the sm_90 SASS of
// tests/cuda/matmul_tiled issues both tiles' LDGs before either STS, where
// the PTX, run in order, waits a memory round trip per tile. This pass
// rewrites `@p bra L; <region>; L:` as `@!p <region>` (each instruction of
// the region takes the branch's negated guard) and removes the branch, and
// the label when nothing else jumps to it. Same conditions as exec's
// if-conversion (fuse.h, if_convert_function): at most `max_region` issued
// instructions, no label, guard, control flow, barrier, fence, atomic,
// texture, warp collective or clock read inside, and nothing in the region
// writes the predicate. The lanes that branched around the region run its
// instructions with their guard off, so results are unchanged.
#pragma once
#include <cstddef>

#include "frontend/ptx/ast.h"

namespace ws::ptx {

// Returns how many branches were removed.
size_t predicate_regions_function(Function& f, unsigned max_region);
size_t predicate_regions_module(Module& m, unsigned max_region);

}  // namespace ws::ptx
