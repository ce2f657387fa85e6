// Instructions ptxas merges into their neighbours, as the assembler does it.
//
// nvcc's PTX spells out steps that the SASS does not issue on their own:
// `mul.wide.s32 m, i, 4; add.s64 a, base, m` is one IMAD.WIDE, a `setp`
// feeding `and.pred` is one ISETP with its combining predicate, `not.pred`
// is a negated predicate operand, `cvta.to.global` is no instruction at all
// (a global address is its generic address), `shl.b32 s, i, k; add.s32 a,
// b, s` is one LEA, a 32-bit `mul` read only by 32-bit adds and subtracts
// is one IMAD with each of them (where the ISA has IMAD), a float `mul`
// and the `add` that alone reads it, neither naming a rounding, are one
// FFMA (PTX allows the contraction), an `add` of an immediate read only as the
// base of addresses is their offset (`[R+0x40]`), and a `mov` of an
// immediate is folded into the instructions that read it. Seen throughout the sm_90 SASS of nvcc 13
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
#include <vector>

#include "frontend/ptx/ast.h"

namespace ws::ptx {

struct FuseStats {
  size_t folded = 0;  // instructions marked folded
};

struct FuseOptions {
  // IMAD: a 32-bit product into the adds that read it. Maxwell and Pascal
  // (sm_5x, sm_6x) multiply 32-bit integers with XMAD sequences instead.
  bool imad = true;
  // sm_90's VIADDMNMX and VIMNMX.RELU: an integer add folds into the min or
  // max that alone reads it, a min into a max with 0 that alone reads it
  // (ptxas for sm_90 issues a clamp `min(max(x + k, 0), n)` as one
  // instruction; earlier ISAs have IMNMX alone).
  bool add_min_max = false;
};

FuseStats fuse_function(Function& f, const FuseOptions& o = {});
FuseStats fuse_module(Module& m, const FuseOptions& o = {});

// If-conversion: ptxas predicates a short region that a forward `@p bra`
// skips instead of branching around it (dot_partial's tree levels, four
// instructions each, are `@!P1 LDS ...` in the H100 SASS; hotspot's
// 17-instruction region and bfs's 14 with atomics keep BSSY/BRA/BSYNC).
// Marks such branches (Instruction::if_converted_end) when the region has at
// most `max_region` issued instructions, no label inside, no guarded
// instruction, and nothing that orders or leaves (branch, call, return,
// barrier, fence, atomic), and the branch does not go to a `ret` or `exit`
// (that is an `@P EXIT`, which issues). Returns the branches marked.
size_t if_convert_function(Function& f, unsigned max_region);
// The end (the label's instruction) of the region the forward `@p bra` at
// `i` jumps over when ptxas predicates it, as above; -1 when it does not.
// `labelled`: labelled_instructions(f).
int32_t predicable_region_end(const Function& f, size_t i, const std::vector<bool>& labelled, unsigned max_region);
size_t if_convert_module(Module& m, unsigned max_region);

// Reconvergence: a forward `@p bra` that is not if-converted, whose
// predicate is not provably uniform (uniform.h) and whose target is not a
// `ret` or `exit` (an `@P EXIT`) nor skipped by a lone jump (an if/else's
// `@p bra THEN; bra ELSE`), is BSSY, the branch, and BSYNC at the target in
// ptxas's sm_70+ code (bfs's atomic region, hotspot's 17-instruction one,
// pathfinder's and dwt2d's guarded blocks in the H100 SASS). Marks them
// (Instruction::bssy, Instruction::bsync); returns the branches marked.
size_t mark_reconvergence_function(Function& f);
size_t mark_reconvergence_module(Module& m);

}  // namespace ws::ptx
