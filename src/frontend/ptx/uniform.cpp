#include "frontend/ptx/uniform.h"

#include <algorithm>
#include <string_view>

#include "frontend/ptx/reg_access.h"

namespace ws::ptx {

namespace {

// Special registers with one value for every thread of a CTA or grid.
bool uniform_special(SpecialReg s) {
  switch (s) {
    case SpecialReg::CtaidX: case SpecialReg::CtaidY: case SpecialReg::CtaidZ:
    case SpecialReg::NctaidX: case SpecialReg::NctaidY: case SpecialReg::NctaidZ:
    case SpecialReg::NtidX: case SpecialReg::NtidY: case SpecialReg::NtidZ:
    case SpecialReg::NSmId: case SpecialReg::NWarpId: case SpecialReg::GridId: case SpecialReg::EnvReg:
    case SpecialReg::DynamicSmemSize: case SpecialReg::TotalSmemSize: case SpecialReg::ReservedSmem:
      return true;
    default: return false;
  }
}

// Opcodes whose result is a function of their operands alone: the pure ones
// except the warp collectives, whose lanes see other lanes' values.
bool computes(std::string_view op) { return !warp_collective(op) && pure_opcode(op); }

}  // namespace

UniformRegs::UniformRegs(const Function& fn) : fn_(fn), uniform_(fn.regs.size(), false) {
  const std::vector<int32_t> def = reg_uses(fn).def;
  for (size_t r = 0; r < def.size(); ++r) uniform_[r] = def[r] >= 0;
  // Start from every singly defined register and take away those whose
  // definition reads something not uniform, until nothing changes (each
  // pass only removes, so this ends).
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t r = 0; r < def.size(); ++r) {
      if (!uniform_[r] || inputs_uniform(fn.body[static_cast<size_t>(def[r])])) continue;
      uniform_[r] = false;
      changed = true;
    }
  }
}

UniformRegs UniformRegs::through_control(const Function& fn) {
  const auto cc = static_cast<int32_t>(fn.regs.size());
  std::vector<std::vector<size_t>> defs(fn.regs.size());
  for (size_t i = 0; i < fn.body.size(); ++i)
    for (int32_t r : reg_access(fn.body[i], fn, cc).writes)
      if (r >= 0 && r < cc) defs[static_cast<size_t>(r)].push_back(i);
  std::vector<bool> start(fn.regs.size());
  for (size_t r = 0; r < defs.size(); ++r) start[r] = !defs[r].empty();
  UniformRegs u(fn, std::move(start));
  for (bool changed = true; changed;) {
    changed = false;
    std::vector<bool> divergent = u.divergent_regions();
    for (size_t r = 0; r < defs.size(); ++r) {
      if (!u.uniform_[r]) continue;
      for (size_t d : defs[r])
        if (divergent[d] || !u.inputs_uniform(fn.body[d])) {
          u.uniform_[r] = false;
          changed = true;
          break;
        }
    }
  }
  return u;
}

std::vector<bool> UniformRegs::divergent_regions() const {
  std::vector<bool> in(fn_.body.size(), false);
  for (size_t i = 0; i < fn_.body.size(); ++i) {
    int32_t label = conditional_branch_target(fn_.body[i]);
    if (label < 0 || reg(fn_.body[i].guard)) continue;
    auto target = static_cast<size_t>(label);
    size_t from = target > i ? i + 1 : target, to = target > i ? target : i + 1;
    for (size_t k = from; k < std::min(to, in.size()); ++k) in[k] = true;
  }
  return in;
}

bool UniformRegs::reg(int32_t r) const {
  return r >= 0 && static_cast<size_t>(r) < uniform_.size() && uniform_[static_cast<size_t>(r)];
}

bool UniformRegs::operand(const Operand& o) const {
  switch (o.kind) {
    case Operand::Kind::Reg: return reg(o.reg);
    case Operand::Kind::Address: return o.reg < 0 || reg(o.reg);
    case Operand::Kind::Vector:
      return std::all_of(o.elems.begin(), o.elems.end(), [&](const Operand& e) { return operand(e); });
    case Operand::Kind::Special: return uniform_special(o.special);
    case Operand::Kind::Sink: return false;
    default: return true;  // immediates and symbols
  }
}

// Whether the instruction that defines a register gives every thread the
// same value.
bool UniformRegs::inputs_uniform(const Instruction& in) const {
  if (in.guard >= 0) return false;  // written by some threads only
  if (in.opcode == "addc" || in.opcode == "subc" || in.opcode == "madc") return false;
  bool load = in.opcode == "ld" || in.opcode == "ldu";
  if (load) {
    // The kernel's parameters, constant memory and `ldu` give every thread
    // the value at a uniform address; other spaces may differ per thread
    // (and a function's .param holds what its caller passed).
    bool param = has_mod(in, "param") && fn_.is_entry;
    if (!param && !has_mod(in, "const") && in.opcode != "ldu") return false;
  } else if (!computes(in.opcode)) {
    return false;
  }
  for (size_t i = 0; i < in.ops.size(); ++i)
    if (!writes_operand(in, fn_, i) && !operand(in.ops[i])) return false;
  return true;
}

}  // namespace ws::ptx
