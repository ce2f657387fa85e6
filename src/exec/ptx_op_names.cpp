#include "exec/ptx_op_names.h"

#include <algorithm>
#include <cstdio>
#include <iterator>
#include <filesystem>
#include <toml++/toml.h>

#include "common/error.h"
#include "common/paths.h"

namespace ws::exec {

namespace {

bool is_space_mod(const std::string& m) {
  return m == "global" || m == "shared" || m == "local" || m == "const" || m == "param" || m == "generic" ||
         m == "tex" || m == "cta" || m == "cluster";
}

// f32, f64, f16, pred or int; "" when `m` is not a type.
const char* type_class(const std::string& m) {
  using ptx::Type;
  switch (ptx::type_from_name(m)) {
    case Type::None: return "";
    case Type::F32: case Type::TF32: return "f32";
    case Type::F64: return "f64";
    case Type::F16: case Type::F16x2: case Type::BF16: case Type::BF16x2: return "f16";
    case Type::Pred: return "pred";
    default: return "int";
  }
}

// The modifiers with the source's space dropped and the accessed one first.
std::vector<std::string> effective_mods(const ptx::Instruction& inst, ptx::StateSpace space) {
  // A generic access that no lane made (all predicated off, as in the
  // `@%p atom.add.release.gpu` of grid.sync in the warps without thread 0)
  // resolved no space: it takes the global form's name (it accesses nothing).
  if (space == ptx::StateSpace::Generic) space = ptx::StateSpace::Global;
  std::vector<std::string> mods;
  if (space != ptx::StateSpace::None) mods.push_back(ptx::space_name(space));
  for (const std::string& m : inst.mods) {
    // cp.async keeps its sub-operation ("async") ahead of the space.
    if (space != ptx::StateSpace::None && is_space_mod(m)) continue;
    mods.push_back(m);
  }
  if (inst.opcode == "cp" && !mods.empty() && mods[0] != "async") {
    auto it = std::find(mods.begin(), mods.end(), "async");
    if (it != mods.end()) std::rotate(mods.begin(), it, it + 1);
  }
  return mods;
}

// A table of step lists: "OP" reads the step before, "~OP" only the
// instruction's sources, ">" ahead of either puts the step after it.
void read_steps(const std::string& path, const toml::table& table,
                std::unordered_map<std::string, std::vector<PtxOpNames::Step>>& out) {
  for (const auto& [key, node] : table) {
    const toml::array* ops = node.as_array();
    if (!ops)
      throw InputError(path, node.source().begin.line, std::string(key.str()), "expected an array of SASS opcodes");
    std::vector<PtxOpNames::Step>& steps = out[std::string(key.str())];
    for (size_t i = 0; i < ops->size(); ++i) {
      auto v = (*ops)[i].value<std::string>();
      std::string op = v ? *v : std::string();
      bool after = !op.empty() && op[0] == '>';
      bool independent = op.size() > size_t{after} && op[after ? 1 : 0] == '~';
      op = op.substr(size_t{after} + size_t{independent});
      if (op.empty())
        throw InputError(path, node.source().begin.line, std::string(key.str()),
                         "expected an array of SASS opcodes (\"~OP\": reads only the instruction's sources; "
                         "\">OP\": comes after it)");
      steps.push_back(PtxOpNames::Step{op, !independent, after});
    }
  }
}

}  // namespace

PtxOpNames PtxOpNames::load() { return load_from((std::filesystem::path(data_dir()) / "isa" / "ptx.toml").string()); }

PtxOpNames PtxOpNames::load_from(const std::string& path) {
  PtxOpNames names;
  names.path_ = path;
  toml::table t;
  try {
    t = toml::parse_file(path);
  } catch (const toml::parse_error& e) {
    throw InputError(path, e.source().begin.line, "", std::string(e.description()));
  }
  const toml::table* map = t["map"].as_table();
  if (!map) throw InputError(path, 0, "map", "missing [map] table");
  for (const auto& [key, node] : *map) {
    auto v = node.value<std::string>();
    if (!v) throw InputError(path, node.source().begin.line, std::string(key.str()), "expected a SASS opcode string");
    names.map_.emplace(std::string(key.str()), *v);
  }
  if (const toml::table* fb = t["fallback"].as_table()) {
    for (const auto& [key, node] : *fb) {
      auto v = node.value<std::string>();
      if (!v) throw InputError(path, node.source().begin.line, std::string(key.str()), "expected a SASS opcode string");
      names.fallback_.emplace(std::string(key.str()), *v);
    }
  }
  if (const toml::table* ex = t["expand"].as_table()) read_steps(path, *ex, names.expand_);
  if (const toml::table* ag = t["aggregate"].as_table()) read_steps(path, *ag, names.aggregate_);
  if (const toml::table* pr = t["prologue"].as_table()) {
    std::unordered_map<std::string, std::vector<Step>> by_name;
    read_steps(path, *pr, by_name);
    for (auto& [key, steps] : by_name) {
      unsigned v = 0;
      char tail = 0;
      if (std::sscanf(key.c_str(), "sm_%u%c", &v, &tail) != 1)
        throw InputError(path, (*pr)[key].node()->source().begin.line, key, "expected a key sm_<version> (sm_80)");
      names.prologue_[v] = std::move(steps);
    }
  }
  return names;
}

std::string PtxOpNames::fallback(const std::string& sass) const {
  auto it = fallback_.find(sass);
  return it == fallback_.end() ? std::string() : it->second;
}

// Special registers ptxas reads with S2R (a variable-latency read through the
// SM's MIO path): the thread's and CTA's coordinates, its lane and lane masks,
// where it runs. The launch's sizes (%ntid, %nctaid, the shared-memory sizes)
// are constant-bank words and the clocks are CS2R, fixed-latency reads.
namespace {
bool reads_thread_register(const ptx::Instruction& inst) {
  using R = ptx::SpecialReg;
  for (const ptx::Operand& o : inst.ops) {
    if (o.kind != ptx::Operand::Kind::Special) continue;
    switch (o.special) {
      case R::TidX: case R::TidY: case R::TidZ: case R::CtaidX: case R::CtaidY: case R::CtaidZ:
      case R::LaneId: case R::WarpId: case R::SmId: case R::GridId: case R::LaneMaskEq:
      case R::LaneMaskLe: case R::LaneMaskLt: case R::LaneMaskGe: case R::LaneMaskGt:
        return true;
      default:
        break;
    }
  }
  return false;
}
}  // namespace

template <class V>
const V* PtxOpNames::lookup(const std::unordered_map<std::string, V>& table, const ptx::Instruction& inst,
                            ptx::StateSpace space, const std::string& suffix) const {
  std::vector<std::string> mods = effective_mods(inst, space);
  auto find = [&](const std::string& key) -> const V* {
    if (!suffix.empty())
      if (auto it = table.find(key + suffix); it != table.end()) return &it->second;
    auto it = table.find(key);
    return it == table.end() ? nullptr : &it->second;
  };
  std::string key = inst.opcode;
  std::vector<std::string> prefixes;
  for (const std::string& m : mods) prefixes.push_back(key += "." + m);
  for (auto it = prefixes.rbegin(); it != prefixes.rend(); ++it)
    if (const V* s = find(*it)) return s;
  std::vector<std::string> classes;
  for (const std::string& m : mods)
    if (*type_class(m)) classes.push_back(type_class(m));
  if (classes.size() >= 2)
    if (const V* s = find(inst.opcode + "." + classes[0] + "." + classes[1])) return s;
  if (!classes.empty())
    if (const V* s = find(inst.opcode + "." + classes.back())) return s;
  return find(inst.opcode);
}

std::string PtxOpNames::sass_name(const ptx::Instruction& inst, ptx::StateSpace space, bool in_kernel,
                                  const std::string& ptx_file) const {
  if (in_kernel && inst.opcode == "ret") return "EXIT";
  if (const std::string* s = lookup(map_, inst, space, reads_thread_register(inst) ? ".sreg" : "")) return *s;
  throw InputError(ptx_file, static_cast<uint64_t>(inst.line), inst.opcode,
                   "no SASS class for PTX instruction `" + inst.text + "` (add it to " + path_ + ")");
}

// A division by an immediate becomes a multiply by its reciprocal: the
// table's `.imm` entries. A memory order and its scope are looked up first
// whatever their place (libcu++ writes `atom.add.release.gpu`, the PTX
// manual `atom.release.gpu.global.add`).
const std::vector<PtxOpNames::Step>* PtxOpNames::expansion(const ptx::Instruction& inst) const {
  if (expand_.empty()) return nullptr;
  bool imm = !inst.ops.empty() &&
             (inst.ops.back().kind == ptx::Operand::Kind::Imm || inst.ops.back().kind == ptx::Operand::Kind::FImm);
  auto rank = [](const std::string& m) {
    for (const char* w : {"relaxed", "acquire", "release", "acq_rel", "sc", "volatile", "mmio"})
      if (m == w) return 0;
    for (const char* w : {"cta", "cluster", "gpu", "sys"})
      if (m == w) return 1;
    return 2;
  };
  ptx::Instruction ordered = inst;
  std::stable_sort(ordered.mods.begin(), ordered.mods.end(),
                   [&](const std::string& a, const std::string& b) { return rank(a) < rank(b); });
  return lookup(expand_, ordered, ptx::StateSpace::None, imm ? ".imm" : "");
}

const std::vector<PtxOpNames::Step>* PtxOpNames::prologue(uint32_t binary_version) const {
  auto it = prologue_.upper_bound(binary_version);
  return it == prologue_.begin() ? nullptr : &std::prev(it)->second;
}

const std::vector<PtxOpNames::Step>* PtxOpNames::aggregation(const std::string& key) const {
  auto it = aggregate_.find(key);
  return it == aggregate_.end() ? nullptr : &it->second;
}

}  // namespace ws::exec
