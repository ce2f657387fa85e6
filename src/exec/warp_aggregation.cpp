#include "exec/warp_aggregation.h"

#include <string>

#include "frontend/ptx/reg_access.h"

namespace ws::exec {

namespace {

bool any_of_mods(const ptx::Instruction& in, std::initializer_list<const char*> names) {
  for (const char* n : names)
    if (ptx::has_mod(in, n)) return true;
  return false;
}

}  // namespace

Aggregation aggregation_of(const ptx::Instruction& in, const ptx::UniformRegs& u, bool result_read,
                           uint32_t binary_version) {
  bool red = in.opcode == "red";
  if (!red && in.opcode != "atom") return Aggregation::None;
  for (const std::string& m : in.mods)
    if (m.rfind("shared", 0) == 0 || m == "local" || m == "param" || m == "const") return Aggregation::None;
  size_t addr = red ? 0 : 1;
  if (in.ops.size() < addr + 2 || in.ops[addr].kind != ptx::Operand::Kind::Address || !u.operand(in.ops[addr]))
    return Aggregation::None;
  const ptx::Operand& value = in.ops[addr + 1];
  bool word = any_of_mods(in, {"u32", "s32", "b32"});
  bool integer = word || any_of_mods(in, {"u64", "s64"});
  if (!integer || any_of_mods(in, {"v2", "v4", "v8"})) return Aggregation::None;
  bool read = !red && result_read;
  bool constant = value.kind == ptx::Operand::Kind::Imm || (value.kind == ptx::Operand::Kind::Reg && u.reg(value.reg));
  if (ptx::has_mod(in, "add") && constant) return read ? Aggregation::CountResult : Aggregation::Count;
  bool combinable = any_of_mods(in, {"add", "min", "max", "and", "or", "xor"});
  if (!read && combinable && word && value.kind == ptx::Operand::Kind::Reg && binary_version >= 80)
    return Aggregation::Reduce;
  return Aggregation::None;
}

const char* aggregation_key(Aggregation a) {
  switch (a) {
    case Aggregation::Count: return "count";
    case Aggregation::CountResult: return "count.result";
    case Aggregation::Reduce: return "reduce";
    default: return "";
  }
}

}  // namespace ws::exec
