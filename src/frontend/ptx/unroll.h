// Loop unrolling of small counted PTX loops, as the assembler does it.
//
// nvcc's PTX unrolls a simple loop by 4; ptxas unrolls that loop by 4 again
// when its body is small (every loop of at most about 30 PTX instructions
// without a barrier in the H100 SASS of examples/cuda/suite: docs/exec.md).
// The list scheduler (schedule.h) works within a basic block, so without
// this a warp has one PTX pass's loads in flight where the GPU has four
// passes' worth. The pass rewrites a loop that is one basic block ending in
// its own conditional back edge, whose exit test compares an induction
// register stepped by a constant with a loop-invariant bound:
//
//   L:      guard: would `factor` more passes run?      (4 instructions)
//           @!guard bra L_one
//           `factor` copies of the body: the exit tests of all but the last
//           dropped, the registers they write renamed so that the copies do
//           not reuse each other's; the last copy writes the original names
//           @p bra L
//           bra L_exit
//   L_one:  the original body and back edge (the last passes)
//   L_exit:
//
// The guard only decides whether the copies may run without their exit
// tests, so results are those of the original loop. As ptxas steps each
// induction register once per pass (offsets folded into the addresses that
// use it), the copies' `add/sub r, r, imm` steps other than the last copy's
// are marked `folded`: exec runs them and does not issue them. So are the
// guard, its branch and the `bra L_exit`: ptxas's back edge itself tests
// whether a whole pass remains (its ISETP early in the body,
// docs/architecture.md "Branches") and its remainder follows, so its passes
// issue one branch each, as the copies' back edge does here. Loops with predicated
// instructions, warp collectives, barriers, fences, calls, clock reads or
// the carry flag are left alone.
#pragma once
#include <cstddef>

#include "frontend/ptx/ast.h"

namespace ws::ptx {

struct UnrollStats {
  size_t loops = 0;  // loops unrolled
};

// Limits of the loops the assembler unrolls (see above).
struct UnrollLimits {
  unsigned factor = 4;        // copies per pass; below 2 the pass does nothing
  size_t max_body = 32;       // instructions of the loop, its back edge included
};

UnrollStats unroll_function(Function& f, const UnrollLimits& limits);
UnrollStats unroll_module(Module& m, const UnrollLimits& limits);

}  // namespace ws::ptx
