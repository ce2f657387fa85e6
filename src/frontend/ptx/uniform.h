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
  // Register index `r` of the function (false for an index out of range).
  bool reg(int32_t r) const;
  // An operand's value (or, for an address, the address) is uniform.
  bool operand(const Operand& o) const;

 private:
  bool inputs_uniform(const Instruction& in) const;
  const Function& fn_;
  std::vector<bool> uniform_;
};

}  // namespace ws::ptx
