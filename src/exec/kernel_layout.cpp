// Everything about a kernel decided before its instructions are decoded: the
// functions it can call, its shared-memory layout (module and function
// .shared variables it names, then the dynamic array), and each function's
// param and local frames.
#include <algorithm>
#include <functional>
#include <set>

#include "exec/decode.h"

namespace ws::exec::emu {

namespace {

uint32_t align_up(uint64_t v, uint64_t a) { return static_cast<uint32_t>((v + a - 1) / a * a); }

uint32_t alignment_of(const ptx::Variable& v) {
  if (v.align) return v.align;
  return std::max(1u, type_bytes(v.type) * std::max(1u, v.vec));
}
uint32_t alignment_of(const ptx::Param& p) { return p.align ? p.align : std::max(1u, type_bytes(p.type)); }

const ptx::Function* find_definition(const ptx::Module& m, const std::string& name) {
  for (const ptx::Function& f : m.functions)
    if (f.name == name && !f.is_extern) return &f;
  return nullptr;
}

template <class F>
void each_symbol(const ptx::Function& f, F&& visit) {
  std::function<void(const ptx::Operand&)> walk = [&](const ptx::Operand& o) {
    if (!o.symbol.empty()) visit(o.symbol);
    for (const ptx::Operand& e : o.elems) walk(e);
  };
  for (const ptx::Instruction& in : f.body)
    for (const ptx::Operand& o : in.ops) walk(o);
}

// Functions the kernel names, directly or through the initialisers of the
// module variables it names (tables of function pointers), transitively.
std::vector<const ptx::Function*> reachable_functions(const ptx::Module& m, const ptx::Function& kernel) {
  std::vector<const ptx::Function*> order{&kernel};
  std::set<const ptx::Function*> seen{&kernel};
  std::set<std::string> seen_vars;
  std::function<void(const std::string&)> visit = [&](const std::string& name) {
    if (const ptx::Function* f = find_definition(m, name)) {
      if (!seen.count(f)) seen.insert(f), order.push_back(f);
    } else if (const ptx::Variable* v = m.find_global(name); v && seen_vars.insert(name).second) {
      for (const auto& [offset, symbol] : v->init_symbols) visit(symbol);
    }
  };
  for (size_t i = 0; i < order.size(); ++i) each_symbol(*order[i], visit);
  return order;
}

FrameLayout frame_layout(const ptx::Function& f) {
  FrameLayout l;
  uint64_t off = 0;
  for (const ptx::Param& p : f.params) {
    if (!f.is_entry) off = align_up(off, alignment_of(p));
    uint64_t at = f.is_entry ? p.offset : off;
    l.params[p.name] = static_cast<uint32_t>(at);
    l.inputs.push_back(static_cast<uint32_t>(at));
    off = std::max(off, at + p.size);
  }
  off = std::max<uint64_t>(off, f.param_bytes);
  for (const ptx::Param& p : f.returns) {
    off = align_up(off, alignment_of(p));
    l.params[p.name] = static_cast<uint32_t>(off);
    l.returns.push_back(static_cast<uint32_t>(off));
    off += p.size;
  }
  uint64_t local = 0;
  for (const ptx::Variable& v : f.locals) {
    uint32_t at = 0;
    if (v.space == ptx::StateSpace::Param) {
      off = align_up(off, alignment_of(v));
      at = l.params[v.name] = static_cast<uint32_t>(off);
      off += v.size;
    } else if (v.space == ptx::StateSpace::Local) {
      local = align_up(local, alignment_of(v));
      at = l.locals[v.name] = static_cast<uint32_t>(local);
      local += v.size;
    }
    l.local_offsets.push_back(at);
  }
  l.param_bytes = align_up(off, 8);
  l.local_bytes = align_up(local, 16);
  return l;
}

// Static shared variables the kernel's functions name, then the dynamic array.
void layout_shared(const ptx::Module& m, KernelLayout& l, DecodedKernel& k) {
  std::set<std::string> named;
  for (const ptx::Function* f : l.functions) each_symbol(*f, [&](const std::string& s) { named.insert(s); });
  uint64_t off = 0;
  uint32_t dynamic_align = 16;
  std::vector<std::string> dynamic;
  for (const ptx::Variable& v : m.globals) {
    if (v.space != ptx::StateSpace::Shared || !named.count(v.name)) continue;
    if (v.is_unsized_array || (v.is_extern && v.size == 0)) {
      dynamic.push_back(v.name);
      dynamic_align = std::max(dynamic_align, alignment_of(v));
      continue;
    }
    off = align_up(off, alignment_of(v));
    l.module_shared[v.name] = static_cast<uint32_t>(off);
    off += v.size;
  }
  for (const ptx::Function* f : l.functions)
    for (const ptx::Variable& v : f->locals) {
      if (v.space != ptx::StateSpace::Shared) continue;
      off = align_up(off, alignment_of(v));
      l.local_shared[f][v.name] = static_cast<uint32_t>(off);
      off += v.size;
    }
  k.static_shared = static_cast<uint32_t>(off);
  k.dynamic_shared_offset = align_up(off, dynamic_align);
  for (const std::string& name : dynamic) l.module_shared[name] = k.dynamic_shared_offset;
}

// Local bytes of a function plus its deepest callee chain (a recursive cycle adds nothing).
uint32_t stack_bytes(DecodedKernel& k, uint32_t f, std::vector<int>& state) {
  DecodedFunction& df = *k.funcs[f];
  if (state[f] == 2) return df.stack_bytes;
  if (state[f] == 1) return 0;
  state[f] = 1;
  uint32_t deepest = 0;
  for (const CallSite& cs : df.calls) deepest = std::max(deepest, stack_bytes(k, cs.callee, state));
  state[f] = 2;
  return df.stack_bytes = df.local_bytes + deepest;
}

}  // namespace

std::unique_ptr<DecodedKernel> decode_kernel(const LoadedModule& module, const ptx::Function& kernel,
                                             std::vector<std::string>* errors) {
  auto k = std::make_unique<DecodedKernel>();
  k->module = &module;
  KernelLayout l;
  l.functions = reachable_functions(module.ast, kernel);
  for (size_t i = 0; i < l.functions.size(); ++i) {
    const ptx::Function* f = l.functions[i];
    l.function_index[f->name] = static_cast<uint32_t>(i);
    l.frames[f] = frame_layout(*f);
  }
  layout_shared(module.ast, l, *k);
  for (const ptx::Function* f : l.functions) {
    k->funcs.push_back(std::make_unique<DecodedFunction>());
    k->funcs.back()->fn = f;
  }
  for (auto& df : k->funcs) {
    Decoder(module, l, *df).decode_all(errors);
    for (const DecodedFunction::SpecialSlot& s : df->specials)
      k->reserved_shared |= s.reg == ptx::SpecialReg::ReservedSmem;
  }
  std::vector<int> state(k->funcs.size(), 0);
  stack_bytes(*k, 0, state);
  return k;
}

}  // namespace ws::exec::emu
