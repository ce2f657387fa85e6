// Which registers of a PTX function hold the same value in every thread of a
// warp, as far as a compiler can prove it without running the code: what
// ptxas needs before it turns an atomic on such an address into one
// operation per warp (exec/warp_aggregation.h).
//
// Conservative by construction. A register is uniform when it has exactly
// one definition, unguarded, by an instruction that computes only on uniform
// inputs: immediates, symbols (variable addresses), the kernel's own
// parameters (`ld.param` in an .entry), constant-space loads from a uniform
// address, and the special registers every thread of a grid or CTA shares
// (%ctaid, %nctaid, %ntid, %nsmid, %gridid, ...). A register written in two
// places (a loop's induction variable, a value merged after a branch) is not
// uniform even when both writes are: telling those apart needs the control
// flow, and a wrong "uniform" would model an aggregation the compiler does
// not make.
#pragma once
#include <cstdint>
#include <vector>

#include "frontend/ptx/ast.h"

namespace ws::ptx {

class UniformRegs {
 public:
  explicit UniformRegs(const Function& fn);
  // As a compiler sees a branch's predicate (mark_reconvergence_function):
  // a register written in several places (a loop's induction variable) is
  // uniform too when every write computes on uniform inputs and none lies
  // in a region that a non-uniform branch skips or repeats (a forward
  // branch's region, a backward branch's loop). Optimistic: every register
  // starts uniform and loses it, until nothing changes.
  static UniformRegs through_control(const Function& fn);
  // Register index `r` of the function (false for an index out of range).
  bool reg(int32_t r) const;
  // An operand's value (or, for an address, the address) is uniform.
  bool operand(const Operand& o) const;

 private:
  UniformRegs(const Function& fn, std::vector<bool> uniform) : fn_(fn), uniform_(std::move(uniform)) {}
  bool inputs_uniform(const Instruction& in) const;
  // Instructions that a branch on a non-uniform predicate skips or repeats.
  std::vector<bool> divergent_regions() const;
  const Function& fn_;
  std::vector<bool> uniform_;
};

}  // namespace ws::ptx
