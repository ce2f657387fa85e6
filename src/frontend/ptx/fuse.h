// Instructions ptxas merges into their neighbours, as the assembler does it.
//
// nvcc's PTX spells out steps that the SASS does not issue on their own:
// `mul.wide.s32 m, i, 4; add.s64 a, base, m` is one IMAD.WIDE, a `setp`
// feeding `and.pred` is one ISETP with its combining predicate, `not.pred`
// is a negated predicate operand, `cvta.to.global` is no instruction at all
// (a global address is its generic address), `shl.b32 s, i, k; add.s32 a,
// b, s` is one LEA, an `add` of an immediate read only as the base of
// addresses is their offset (`[R+0x40]`), and a `mov` of an immediate is
// folded into the instructions that read it. Seen throughout the sm_90 SASS of nvcc 13
// (examples/hw/h100-2026-11-27-suite/sass.tar.xz; docs/exec.md). This pass
// marks such instructions `folded` (exec runs them, so results are
// unchanged, but does not issue them) and gives each instruction that read a
// folded one's result that one's sources (`Instruction::fused_reads`), so
// the timing model's dependences still run from the original producers.
//
// Only where the SASS form exists whatever the surroundings: the producer is
// unguarded and the only definition of its register, and every reader can
// take the merged form (an IMAD.WIDE needs a 64-bit add, a folded immediate
// a reader with no immediate of its own, ...).
#pragma once
#include <cstddef>

#include "frontend/ptx/ast.h"

namespace ws::ptx {

struct FuseStats {
  size_t folded = 0;  // instructions marked folded
};

FuseStats fuse_function(Function& f);
FuseStats fuse_module(Module& m);

}  // namespace ws::ptx
