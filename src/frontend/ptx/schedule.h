// Instruction scheduling of PTX basic blocks, as the assembler does it.
//
// A GPU runs the SASS that ptxas makes from a kernel's PTX, and ptxas
// reorders each basic block: long-latency loads are issued as early as their
// operands allow, so that several are in flight before the first use. nvcc's
// PTX keeps source order instead (`ld a; add s,a; ld b; add s,b`), and a warp
// that issued PTX in that order would wait a whole memory round trip per load
// where the hardware waits one for all of them. warpsim emulates PTX, so it
// applies the same kind of scheduling before a module runs: a list scheduler
// per basic block, with priority by the longest latency path to the block's
// end. It only moves instructions past ones they do not depend on (registers,
// the carry flag, memory order), so results are unchanged; see docs/exec.md.
#pragma once
#include <cstddef>
#include <cstdint>

#include "frontend/ptx/ast.h"

namespace ws::ptx {

struct ScheduleStats {
  size_t blocks = 0;   // basic-block regions considered
  size_t moved = 0;    // instructions whose position changed
};

struct ScheduleOptions {
  // Keep each block's live registers within the kernel's (ptxas's allocation,
  // else `fallback_regs`; .maxnreg caps both): ptxas does not start a load
  // whose result would need a register it does not have.
  bool register_pressure = true;
  uint32_t fallback_regs = 0;  // 0 with no allocation known: no limit
  // Warp-uniform values take no register (compute capability 7.5 on: the
  // uniform datapath); kernel parameters never do (constant-bank operands).
  bool uniform_registers = true;
};

// Reorders the instructions of every basic block of `f` in place. Labels keep
// pointing at their block's first instruction; terminators (bra, ret, exit,
// trap) and ordering points (barriers, fences, calls, clock reads, anything
// not known to be free of side effects) keep their place.
ScheduleStats schedule_function(Function& f, const ScheduleOptions& opt = {});
ScheduleStats schedule_module(Module& m, const ScheduleOptions& opt = {});

}  // namespace ws::ptx
