#include "frontend/ptx/link.h"

#include <map>
#include <set>

#include "common/error.h"

namespace ws::ptx {

namespace {

// Renames `from` -> `to` in every module-scope reference of one module.
void rename_refs(Operand& o, const std::map<std::string, std::string>& names) {
  for (Operand& e : o.elems) rename_refs(e, names);
  bool module_symbol = (o.kind == Operand::Kind::Symbol && o.label < 0) || o.kind == Operand::Kind::Address;
  if (!module_symbol || o.local >= 0 || o.symbol.empty()) return;
  if (auto it = names.find(o.symbol); it != names.end()) o.symbol = it->second;
}

// Internal names of module `k` get a unit suffix.
void make_internal_names_unique(Module& m, size_t k) {
  std::map<std::string, std::string> names;
  std::string suffix = "$unit" + std::to_string(k);
  for (Variable& v : m.globals)
    if (!v.is_visible && !v.is_extern) names[v.name] = v.name + suffix;
  for (Function& f : m.functions)
    if (!f.is_visible && !f.is_extern && !f.is_entry) names[f.name] = f.name + suffix;
  if (names.empty()) return;
  for (Variable& v : m.globals) {
    if (auto it = names.find(v.name); it != names.end()) v.name = it->second;
    for (auto& [offset, sym] : v.init_symbols)
      if (auto it = names.find(sym); it != names.end()) sym = it->second;
  }
  for (Function& f : m.functions) {
    if (auto it = names.find(f.name); it != names.end()) f.name = it->second;
    for (Instruction& in : f.body)
      for (Operand& o : in.ops) rename_refs(o, names);
  }
}

}  // namespace

Module link_modules(std::vector<Module> modules, const std::string& name) {
  Module out;
  out.filename = name;
  if (modules.empty()) return out;
  out.version_major = modules[0].version_major, out.version_minor = modules[0].version_minor;
  out.target = modules[0].target;
  out.address_size = modules[0].address_size;
  std::map<std::string, std::string> defined;  // name -> defining module's file
  for (size_t k = 0; k < modules.size(); ++k) {
    make_internal_names_unique(modules[k], k);
    for (const Variable& v : modules[k].globals)
      if (!v.is_extern && !defined.emplace(v.name, modules[k].filename).second)
        throw InputError(name, 0, v.name, "defined in " + defined[v.name] + " and " + modules[k].filename);
    for (const Function& f : modules[k].functions)
      if (!f.is_extern && !defined.emplace(f.name, modules[k].filename).second)
        throw InputError(name, 0, f.name, "defined in " + defined[f.name] + " and " + modules[k].filename);
  }
  std::set<std::string> declared;
  for (Module& m : modules) {
    for (Variable& v : m.globals)
      if (!v.is_extern || (!defined.count(v.name) && declared.insert(v.name).second)) out.globals.push_back(std::move(v));
    for (Function& f : m.functions)
      if (!f.is_extern || (!defined.count(f.name) && declared.insert(f.name).second))
        out.functions.push_back(std::move(f));
  }
  return out;
}

}  // namespace ws::ptx
