// Dependency scoreboards of global loads, as ptxas assigns them.
//
// An SM sub-core tracks a warp's variable-latency results with six counters
// (the SASS control bits' write barriers, SB0-SB5): a load names one to count
// up at issue and down when its data arrives, and a consumer names the ones
// it waits for, until they read zero. A consumer therefore waits for every
// load on its scoreboard, not only the one it reads. Shared-memory loads
// return in order, so ptxas rotates them through the counters; global loads
// do not, and when more loads are in flight than counters are free, ptxas
// puts the rest on one counter. The sm_90 SASS of PolyBench's `gemm` (a
// 16-times unrolled dot product) gives its first three load pairs SB2, SB3
// and SB4 and the next seven loads SB5; the fourth FFMA waits on SB5, that
// is for all seven (docs/exec.md, "Load scoreboards").
//
// This pass replays that assignment on the scheduled PTX of each basic
// block: a global, local, generic or texture load (or an atomic whose
// result is read) joins the counter of an earlier load with the same first
// consumer, else takes a free counter, else joins the counter taken last;
// an instruction that reads or rewrites a counted register frees that
// counter. The counter rides on the instruction (Instruction::scoreboard);
// the timing model makes a consumer wait for all loads on it.
#pragma once
#include <cstddef>

#include "frontend/ptx/ast.h"

namespace ws::ptx {

// Assigns counters 1..`counters` to the loads of `f` (0 leaves them all 0).
// Returns how many loads share a counter with an earlier one.
size_t assign_scoreboards_function(Function& f, unsigned counters);
size_t assign_scoreboards_module(Module& m, unsigned counters);

}  // namespace ws::ptx
