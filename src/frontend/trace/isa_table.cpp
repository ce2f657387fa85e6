#include "frontend/trace/isa_table.h"

#include <algorithm>
#include <filesystem>
#include <toml++/toml.h>

#include "common/error.h"
#include "common/paths.h"
#include "config/param.h"

namespace ws::frontend {

namespace {

struct KindName {
  const char* name;
  ir::OpKind kind;
};
constexpr KindName kKinds[] = {{"alu", ir::OpKind::Alu},         {"load", ir::OpKind::Load},
                               {"store", ir::OpKind::Store},     {"atomic", ir::OpKind::Atomic},
                               {"barrier", ir::OpKind::Barrier}, {"membar", ir::OpKind::MemBar},
                               {"branch", ir::OpKind::Branch},   {"exit", ir::OpKind::Exit}};

struct SpaceName {
  const char* name;
  IsaSpace space;
};
constexpr SpaceName kSpaces[] = {{"global", IsaSpace::Global}, {"shared", IsaSpace::Shared},
                                 {"local", IsaSpace::Local},   {"const", IsaSpace::Const},
                                 {"tex", IsaSpace::Tex},       {"generic", IsaSpace::Generic}};

// Reads one [[group]] entry into its OpInfo template; errors name the file and key.
OpInfo parse_group(const toml::table& g, const std::string& file) {
  OpInfo info;
  std::string kind = g["kind"].value_or(std::string{});
  auto k = std::find_if(std::begin(kKinds), std::end(kKinds), [&](const KindName& n) { return kind == n.name; });
  if (k == std::end(kKinds)) throw InputError(file, 0, "kind", "unknown kind '" + kind + "'");
  info.kind = k->kind;
  std::string unit = g["unit"].value_or(std::string{});
  info.unit = IsaTable::unit_index(unit);
  if (info.unit == 0xff) throw InputError(file, 0, "unit", "unknown unit '" + unit + "'");
  if (auto sp = g["space"].value<std::string>()) {
    auto s = std::find_if(std::begin(kSpaces), std::end(kSpaces), [&](const SpaceName& n) { return *sp == n.name; });
    if (s == std::end(kSpaces)) throw InputError(file, 0, "space", "unknown space '" + *sp + "'");
    info.space = s->space;
  }
  bool mem = info.kind == ir::OpKind::Load || info.kind == ir::OpKind::Store || info.kind == ir::OpKind::Atomic;
  if (mem && info.space == IsaSpace::None) throw InputError(file, 0, "space", "memory opcodes need a space");
  return info;
}

// A preset's `core.units.<name>` is read only when an opcode table names the
// unit, so only the vocabulary's names mean anything there (ldst is the LD/ST
// unit's, timed by its own parameters): a typo is an error, not a silent no-op.
const struct UnitInstances {
  UnitInstances() {
    std::vector<std::string> names;
    for (const std::string& u : IsaTable::unit_vocabulary())
      if (u != "ldst") names.push_back(u);
    config::ParamRegistry::instance().declare_instances("core.units", std::move(names));
  }
} kUnitInstances;

// Sets `flag` on each opcode of the list [section] key = [...]; every one
// must be an opcode this file or a base defined.
template <class Ops>
void mark_listed(const toml::table& root, const std::string& file, const char* section, const char* key, Ops& table,
                 bool OpInfo::*flag) {
  const toml::table* t = root[section].as_table();
  if (!t) return;
  std::string field = std::string(section) + "." + key;
  const toml::array* list = (*t)[key].as_array();
  if (!list) throw InputError(file, 0, field, "expected a list of opcodes");
  for (const toml::node& op : *list) {
    auto s = op.value<std::string>();
    auto it = s ? table.find(*s) : table.end();
    if (it == table.end())
      throw InputError(file, 0, field, "'" + s.value_or("") + "' is not an opcode of this table's groups");
    it->second.*flag = true;
  }
}

}  // namespace

const std::vector<std::string>& IsaTable::unit_vocabulary() {
  static const std::vector<std::string> v{"sp", "int", "dp", "sfu", "tensor", "branch", "mio", "ldst"};
  return v;
}

uint8_t IsaTable::unit_index(std::string_view name) {
  const auto& v = unit_vocabulary();
  for (size_t i = 0; i < v.size(); ++i)
    if (v[i] == name) return static_cast<uint8_t>(i);
  return 0xff;
}

IsaTable IsaTable::load(uint32_t binary_version) {
  return load_from((std::filesystem::path(data_dir()) / "isa").string(), binary_version);
}

IsaTable IsaTable::load_from(const std::string& isa_dir, uint32_t binary_version) {
  IsaTable t;
  t.version_ = binary_version;
  t.units_ = unit_vocabulary();
  t.load_file(isa_dir, "sm_" + std::to_string(binary_version), 0);
  return t;
}

// Base tables load first so that the derived file's groups override them.
void IsaTable::load_file(const std::string& dir, const std::string& name, int depth) {
  std::string file = (std::filesystem::path(dir) / (name + ".toml")).string();
  if (depth > 16) throw InputError(file, 0, "base", "inheritance chain too deep (a cycle?)");
  std::error_code ec;
  if (!std::filesystem::is_regular_file(file, ec))
    throw InputError(file, 0, "", "no ISA table for " + name + " (add " + file + " to support this GPU)");
  toml::table root;
  try {
    root = toml::parse_file(file);
  } catch (const toml::parse_error& e) {
    throw InputError(file, e.source().begin.line, "", std::string(e.description()));
  }
  if (auto base = root["base"].value<std::string>()) load_file(dir, *base, depth + 1);
  const toml::array* groups = root["group"].as_array();
  if (!groups) return;
  for (const toml::node& n : *groups) {
    const toml::table* g = n.as_table();
    if (!g) throw InputError(file, 0, "group", "each [[group]] must be a table");
    OpInfo info = parse_group(*g, file);
    const toml::array* ops = (*g)["ops"].as_array();
    if (!ops) throw InputError(file, 0, "ops", "each [[group]] needs an ops list");
    for (const toml::node& op : *ops) {
      auto s = op.value<std::string>();
      if (!s || s->empty()) throw InputError(file, 0, "ops", "opcode names must be non-empty strings");
      ops_[*s] = info;
    }
  }
  // [branch_predicate] sets/tests (core.branch_predicate_latency), [fma_pipe] ops (core.cross_pipe_cycles).
  mark_listed(root, file, "branch_predicate", "sets", ops_, &OpInfo::sets_branch_pred);
  mark_listed(root, file, "branch_predicate", "tests", ops_, &OpInfo::tests_branch_pred);
  mark_listed(root, file, "fma_pipe", "ops", ops_, &OpInfo::fma_pipe);
}

const OpInfo* IsaTable::find(std::string_view opcode) const {
  auto it = ops_.find(base_opcode(opcode));
  return it == ops_.end() ? nullptr : &it->second;
}

const OpInfo& IsaTable::lookup(std::string_view opcode) const {
  if (const OpInfo* i = find(opcode)) return *i;
  throw InputError("isa/sm_" + std::to_string(version_) + ".toml", 0, "opcode",
                   "unknown opcode '" + std::string(base_opcode(opcode)) + "' for sm_" + std::to_string(version_));
}

std::vector<std::string> IsaTable::opcodes() const {
  std::vector<std::string> v;
  for (const auto& [k, _] : ops_) v.push_back(k);
  std::sort(v.begin(), v.end());
  return v;
}

}  // namespace ws::frontend
