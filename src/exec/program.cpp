// Loading PTX modules: module-scope .global/.const variables become device
// allocations with their initial bytes; address initialisers are patched.
#include "exec/program.h"

#include <algorithm>
#include <cstdio>
#include <cstring>

#include "common/error.h"
#include "exec/device_memory.h"
#include "exec/memory_windows.h"
#include "exec/ptxas.h"
#include "frontend/ptx/fuse.h"
#include "frontend/ptx/predicate.h"
#include "frontend/ptx/schedule.h"
#include "frontend/ptx/scoreboards.h"
#include "frontend/ptx/unroll.h"
#include "frontend/ptx/vectorize.h"

namespace ws::exec {

namespace {

bool is_device_variable(const ptx::Variable& v) {
  return v.space == ptx::StateSpace::Global || v.space == ptx::StateSpace::Const;
}

// The address an initialiser `{name}` stands for: a variable of this or an
// earlier module, or a function (a fake but distinct address).
std::optional<Addr> initialiser_address(const LoadedModule& m, const Program& p, const std::string& name) {
  if (auto it = m.symbols.find(name); it != m.symbols.end()) return it->second;
  for (size_t i = 0; i < m.ast.functions.size(); ++i)
    if (m.ast.functions[i].name == name) return kFunctionBase + i * 16;
  if (auto s = p.symbol(name)) return s->first;
  return std::nullopt;
}

}  // namespace

LoadedModule& Program::load(ptx::Module module, const std::string& ptx_text) {
  auto lm = std::make_unique<LoadedModule>();
  lm->ast = std::move(module);
  if (ptxas_ && !ptx_text.empty()) {
    // ptxas assembles for the device's SM, or the module's target if newer.
    unsigned target = 0;
    std::sscanf(lm->ast.target.c_str(), "sm_%u", &target);
    std::map<std::string, unsigned> regs = ptxas_registers(*ptxas_, ptx_text, std::max(sm_, target));
    for (ptx::Function& f : lm->ast.functions)
      if (auto it = regs.find(f.name); it != regs.end()) f.allocated_regs = it->second;
  }
  if (unroll_ >= 2) ptx::unroll_module(lm->ast, {.factor = unroll_});
  if (schedule_) {
    // ptxas predicates short forward branches and schedules the result as
    // one block (frontend/ptx/predicate.h).
    if (if_convert_ > 0) ptx::predicate_regions_module(lm->ast, if_convert_);
    ptx::schedule_module(lm->ast, schedule_options_);
  }
  if (fuse_) ptx::fuse_module(lm->ast, fuse_options_);
  if (vectorize_) ptx::vectorize_shared_loads_module(lm->ast);
  if (if_convert_ > 0) ptx::if_convert_module(lm->ast, if_convert_);
  if (reconvergence_) ptx::mark_reconvergence_module(lm->ast);
  // Last: the counters follow the final order of each block.
  if (load_scoreboards_ > 0) ptx::assign_scoreboards_module(lm->ast, load_scoreboards_);
  const std::string& file = lm->ast.filename;
  for (const ptx::Variable& v : lm->ast.globals) {
    if (!is_device_variable(v)) continue;
    if (v.is_extern && v.size == 0) {
      auto s = symbol(v.name);
      if (!s) throw InputError(file, v.line, "", "extern variable '" + v.name + "' is defined by no loaded module");
      lm->symbols[v.name] = s->first;
      lm->symbol_sizes[v.name] = s->second;
      continue;
    }
    auto addr = v.is_managed ? mem_.allocate_unified(v.size) : mem_.allocate(v.size);
    if (!addr)
      throw InputError(file, v.line, "", "variable '" + v.name + "' (" + std::to_string(v.size) +
                                             " bytes) does not fit in device memory");
    if (!v.init.empty()) mem_.write(*addr, v.init.data(), std::min<uint64_t>(v.init.size(), v.size));
    lm->symbols[v.name] = *addr;
    lm->symbol_sizes[v.name] = v.size;
  }
  for (const ptx::Variable& v : lm->ast.globals) {
    if (!is_device_variable(v) || !lm->symbols.count(v.name)) continue;
    for (const auto& [offset, name] : v.init_symbols) {
      auto target = initialiser_address(*lm, *this, name);
      if (!target) throw InputError(file, v.line, "", "initialiser of '" + v.name + "' names unknown symbol '" + name + "'");
      unsigned bytes = lm->ast.address_size == 32 ? 4 : 8;
      if (offset + bytes > v.size) throw InputError(file, v.line, "", "initialiser of '" + v.name + "' is out of range");
      // The slot holds the addend (`gvar+8`); the address is added to it.
      uint64_t value = 0;
      mem_.read(lm->symbols[v.name] + offset, &value, bytes);
      value += *target;
      mem_.write(lm->symbols[v.name] + offset, &value, bytes);
    }
  }
  modules_.push_back(std::move(lm));
  return *modules_.back();
}

const LoadedModule* Program::module_of(const std::string& function_name) const {
  for (const auto& m : modules_)
    for (const ptx::Function& f : m->ast.functions)
      if (f.name == function_name && !f.is_extern) return m.get();
  return nullptr;
}

std::optional<std::pair<Addr, uint64_t>> Program::symbol(const std::string& name) const {
  for (const auto& m : modules_)
    if (auto it = m->symbols.find(name); it != m->symbols.end()) return std::make_pair(it->second, m->symbol_sizes.at(name));
  return std::nullopt;
}

}  // namespace ws::exec
