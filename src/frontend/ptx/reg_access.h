// Which registers a PTX instruction reads and writes, for the passes that
// reorder (schedule.h) or fold (fold.h) instructions. Conservative where the
// operand list is ambiguous: a register taken for written is also ordered
// after its last writer, so a mistaken destination only adds order.
#pragma once
#include <algorithm>
#include <cstdint>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "frontend/ptx/ast.h"

namespace ws::ptx {

inline bool has_mod(const Instruction& in, std::string_view m) {
  return std::find(in.mods.begin(), in.mods.end(), m) != in.mods.end();
}

// An instruction's type: its last modifier that names one (ld.shared.f32 ->
// F32, cvt.rn.f32.s32 -> S32); Type::None without.
inline Type type_of(const Instruction& in) {
  for (auto it = in.mods.rbegin(); it != in.mods.rend(); ++it)
    if (Type t = type_from_name(*it); t != Type::None) return t;
  return Type::None;
}

// Which instructions a label stands before (a basic block starts there);
// one more entry for the end of the body.
inline std::vector<bool> labelled_instructions(const Function& f) {
  std::vector<bool> labelled(f.body.size() + 1, false);
  for (const auto& [name, at] : f.labels)
    if (at >= 0 && static_cast<size_t>(at) < labelled.size()) labelled[static_cast<size_t>(at)] = true;
  return labelled;
}

// Instructions after which control does not simply fall through: a basic
// block ends there (bra, brx.idx, exit, ret, trap).
inline bool ends_block(const Instruction& in) {
  const std::string& op = in.opcode;
  return op == "bra" || op == "brx" || op == "exit" || op == "ret" || op == "trap";
}

// Points an operand's label references (branch targets) at their new
// positions after instructions were inserted or removed: `at[i]` is where the
// old instruction i (or the end, i == body size) now is.
inline void remap_labels(Operand& o, const std::vector<int32_t>& at) {
  if (o.kind == Operand::Kind::Symbol && o.label >= 0) o.label = at[static_cast<size_t>(o.label)];
  for (Operand& e : o.elems) remap_labels(e, at);
}

// Whether an operand reads %clock, %clock64 or %globaltimer.
inline bool reads_clock(const Operand& o) {
  if (o.kind == Operand::Kind::Special)
    return o.special == SpecialReg::Clock || o.special == SpecialReg::Clock64 ||
           o.special == SpecialReg::GlobalTimer;
  return std::any_of(o.elems.begin(), o.elems.end(), reads_clock);
}

// Warp collectives: a lane's result depends on other lanes' registers.
inline bool warp_collective(std::string_view op) {
  return op == "shfl" || op == "vote" || op == "match" || op == "redux" || op == "activemask" || op == "elect";
}

// Opcodes that only compute on registers (PTX ISA, "Instruction Set":
// integer, floating-point, half, comparison, logic, conversion, movement).
inline bool pure_opcode(std::string_view op) {
  static const std::unordered_set<std::string_view> kPure = {
      "add", "sub", "mul", "mad", "mul24", "mad24", "sad", "div", "rem", "abs", "neg", "min", "max",
      "popc", "clz", "bfind", "fns", "brev", "bfe", "bfi", "bmsk", "szext", "dp4a", "dp2a", "and", "or",
      "xor", "not", "cnot", "lop3", "shf", "shl", "shr", "mov", "selp", "set", "setp", "slct", "cvt",
      "cvta", "fma", "rcp", "sqrt", "rsqrt", "sin", "cos", "lg2", "ex2", "tanh", "copysign", "testp",
      "prmt", "isspacep", "addc", "subc", "madc", "mma", "vadd", "vsub", "vabsdiff", "vmin", "vmax",
      "vshl", "vshr", "vmad", "vset", "vadd2", "vsub2", "vavrg2", "vabsdiff2", "vmin2", "vmax2", "vadd4",
      "vsub4", "vavrg4", "vabsdiff4", "vmin4", "vmax4", "istypep", "createpolicy",
      // Warp collectives read other lanes' registers, which every lane of the
      // block computes in the same (scheduled) order.
      "shfl", "vote", "match", "redux", "activemask"};
  return kPure.count(op) != 0;
}

struct RegAccess {
  std::vector<int32_t> reads, writes;
};

inline void collect_regs(const Operand& o, std::vector<int32_t>& out) {
  if ((o.kind == Operand::Kind::Reg || o.kind == Operand::Kind::Address) && o.reg >= 0) out.push_back(o.reg);
  for (const Operand& e : o.elems) collect_regs(e, out);
}

// The label index an `@p bra label` (guarded, not .uni) jumps to; -1 for
// anything else (if-conversion, reconvergence and uniformity look at these).
inline int32_t conditional_branch_target(const Instruction& in) {
  if (in.opcode != "bra" || in.guard < 0 || has_mod(in, "uni") || in.ops.size() != 1 ||
      in.ops[0].kind != Operand::Kind::Symbol)
    return -1;
  return in.ops[0].label;
}

// The first operand is the destination when it is a register or a vector of
// them (an address operand is read: st, red, ...); a second predicate operand
// is a second destination in `d|p` forms (setp, shfl, match, elect, tex), but
// a source of predicate logic and moves (`and.pred d, a, b`, `not.pred d, a`).
inline bool writes_operand(const Instruction& in, const Function& f, size_t i) {
  const Operand& o = in.ops[i];
  if (i == 0) return o.kind == Operand::Kind::Reg || o.kind == Operand::Kind::Vector;
  static const std::unordered_set<std::string_view> kPredicateSources = {"and", "or", "xor", "not", "cnot", "mov"};
  return i == 1 && o.kind == Operand::Kind::Reg && o.reg >= 0 && static_cast<size_t>(o.reg) < f.regs.size() &&
         f.regs[o.reg].type == Type::Pred && kPredicateSources.count(in.opcode) == 0;
}

// The carry flag of add.cc/addc is register `cc` (pass f.regs.size()).
inline RegAccess reg_access(const Instruction& in, const Function& f, int32_t cc) {
  RegAccess a;
  if (in.guard >= 0) a.reads.push_back(in.guard);
  for (size_t i = 0; i < in.ops.size(); ++i) collect_regs(in.ops[i], writes_operand(in, f, i) ? a.writes : a.reads);
  if (in.opcode == "addc" || in.opcode == "subc" || in.opcode == "madc") a.reads.push_back(cc);
  if (has_mod(in, "cc")) a.writes.push_back(cc);
  return a;
}

// Who defines and who reads each register of a function (uniform.h,
// fuse.h).
struct RegUses {
  std::vector<int32_t> def;                  // the one defining instruction; -1 none, -2 several
  std::vector<std::vector<size_t>> readers;  // instructions reading it (sources, addresses, guards)
};

inline RegUses reg_uses(const Function& f) {
  const auto cc = static_cast<int32_t>(f.regs.size());
  RegUses u;
  u.def.assign(f.regs.size(), -1);
  u.readers.resize(f.regs.size());
  for (size_t i = 0; i < f.body.size(); ++i) {
    RegAccess a = reg_access(f.body[i], f, cc);
    for (int32_t r : a.writes)
      if (r >= 0 && r < cc) {
        int32_t& d = u.def[static_cast<size_t>(r)];
        d = d == -1 ? static_cast<int32_t>(i) : -2;
      }
    for (int32_t r : a.reads) {
      if (r < 0 || r >= cc) continue;
      auto& rs = u.readers[static_cast<size_t>(r)];
      if (rs.empty() || rs.back() != i) rs.push_back(i);
    }
  }
  return u;
}

}  // namespace ws::ptx
