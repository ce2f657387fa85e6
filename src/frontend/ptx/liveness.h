// Which registers of a PTX function hold a value that some later instruction
// may still read: backward dataflow over the function's basic blocks. The
// list scheduler (schedule.h) counts these to keep a block's order within the
// registers ptxas has for it.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "frontend/ptx/ast.h"

namespace ws::ptx {

// A set of register indices of one function; index regs.size() is the carry
// flag of add.cc/addc (reg_access.h).
class RegSet {
 public:
  explicit RegSet(size_t regs = 0) : words_((regs + 64) / 64, 0) {}
  bool has(int32_t r) const { return (words_[static_cast<size_t>(r) / 64] >> (r % 64)) & 1; }
  void add(int32_t r) { words_[static_cast<size_t>(r) / 64] |= uint64_t{1} << (r % 64); }
  void remove(int32_t r) { words_[static_cast<size_t>(r) / 64] &= ~(uint64_t{1} << (r % 64)); }
  // this |= other; true when this grew.
  bool merge(const RegSet& other);
  bool operator==(const RegSet& other) const = default;

 private:
  std::vector<uint64_t> words_;
};

// Registers that every instruction writing or reading them does so under one
// guard (`@p`, same predicate and sense): the temporaries of a predicated
// region. A guarded write ends such a register's earlier value, as an
// unguarded one does, since nothing reads it when the guard is false.
std::vector<bool> guard_local_registers(const Function& f);

// Whether `in`'s write of register `r` ends the value `r` held before: an
// unguarded write does; a guarded one may not happen, so the earlier value
// reaches past it, but for a predicated region's temporaries.
inline bool write_ends_value(const Instruction& in, int32_t r, const std::vector<bool>& guard_local) {
  return in.guard < 0 || (r >= 0 && static_cast<size_t>(r) < guard_local.size() && guard_local[static_cast<size_t>(r)]);
}

class Liveness {
 public:
  // Analyses `f` as it is now; reordering inside a basic block afterwards
  // does not change what is live at the block's ends.
  explicit Liveness(const Function& f);
  // Registers live just before instruction `i` (i == body size: after the last one).
  RegSet live_before(size_t i) const;
  // guard_local_registers(f), as the analysis used it.
  const std::vector<bool>& guard_local() const { return guard_local_; }

 private:
  void step_back(size_t i, RegSet& live) const;  // live before i from live after it

  const Function& f_;
  std::vector<bool> guard_local_;
  std::vector<size_t> block_of_;    // instruction -> basic block
  std::vector<size_t> block_end_;   // basic block -> one past its last instruction
  std::vector<RegSet> live_out_;    // basic block -> live after its last instruction
};

}  // namespace ws::ptx
