// Control flow: branches with SIMT divergence, calls and returns to .func
// (params copied between per-lane param frames), exit, barriers, no-ops.
#include <bit>
#include <cstdio>

#include "exec/memory_windows.h"

#include "exec/ops_common.h"

namespace ws::exec::emu {

namespace {

// The main loop has already advanced the top entry's pc past this branch.
// A divergent branch turns the top entry into the reconvergence entry and
// pushes the fall-through and taken paths (taken runs first).
void run_bra(Ctx& c, const DecodedInst& in, uint32_t m) {
  std::vector<StackEntry>& stack = c.w->stack;
  StackEntry& top = stack.back();
  uint32_t active = top.mask;
  if (m == active) {
    top.pc = in.target;
    return;
  }
  if (m == 0) return;
  uint32_t fall = top.pc, rpc = in.reconv;
  top.pc = rpc;
  if (fall != rpc) stack.push_back({fall, rpc, active & ~m});
  if (in.target != rpc) stack.push_back({in.target, rpc, m});
}

void decode_bra(Decoder& dc, DecodedInst& out) {
  dc.mods().take("uni");
  out.target = dc.label(0);
  out.fn = run_bra;
}

void run_exit(Ctx& c, const DecodedInst&, uint32_t m) {
  if (m) finish_lanes(c, m);
}

void return_from_call(Ctx& c) {
  Warp& w = *c.w;
  Frame callee = w.frames.back();
  w.frames.pop_back();
  const Frame& caller = w.frames.back();
  uint32_t cb = callee.fn->param_frame_bytes, rb = caller.fn->param_frame_bytes;
  for (const ParamCopy& p : callee.site->rets)
    for (unsigned l = 0; l < kLanes; ++l)
      std::memcpy(&w.params[caller.param_base + l * rb + p.to], &w.params[callee.param_base + l * cb + p.from],
                  p.bytes);
  c.R = frame_registers(w);
}

void run_ret(Ctx& c, const DecodedInst& in, uint32_t m) {
  Warp& w = *c.w;
  if (w.frames.size() == 1) return run_exit(c, in, m);
  const Frame& f = w.frames.back();
  for (size_t i = f.stack_depth; i < w.stack.size(); ++i) w.stack[i].mask &= ~m;
  while (w.stack.size() > f.stack_depth && w.stack.back().mask == 0) w.stack.pop_back();
  if (w.stack.size() == f.stack_depth) return_from_call(c);
}

void decode_ret(Decoder& dc, DecodedInst& out) {
  dc.mods().take("uni");
  out.fn = run_ret;
}

// Enters `site`'s callee for lanes `m` (the caller's pc already points past the call).
void enter_call(Ctx& c, const DecodedInst& in, const CallSite& site, uint32_t m) {
  Warp& w = *c.w;
  const Frame cur = w.frames.back();
  const DecodedFunction& callee = *c.kernel->funcs[site.callee];
  if (m != w.stack.back().mask) {
    uint32_t after = w.stack.back().pc;
    w.stack.push_back({after, after, m});
  }
  Frame next{&callee, cur.reg_base + cur.fn->nslots * kLanes, cur.param_base + cur.fn->param_frame_bytes * kLanes,
             cur.local_base + cur.fn->local_bytes, static_cast<uint32_t>(w.stack.size()), &site};
  if (next.local_base + callee.local_bytes > c.local_stride || w.frames.size() > 256)
    return fault(c, in, static_cast<unsigned>(std::countr_zero(m)), "call stack overflow (recursion)");
  size_t pb = callee.param_frame_bytes;
  if (w.params.size() < next.param_base + pb * kLanes) w.params.resize(next.param_base + pb * kLanes);
  for (const ParamCopy& p : site.args)
    for (unsigned l = 0; l < kLanes; ++l)
      std::memcpy(&w.params[next.param_base + l * pb + p.to],
                  &w.params[cur.param_base + l * cur.fn->param_frame_bytes + p.from], p.bytes);
  w.stack.push_back({0, kNoPc, m});
  prepare_frame(c, callee, next.reg_base, w.frames.size());
  w.frames.push_back(next);
  c.R = frame_registers(w);
}

void run_call(Ctx& c, const DecodedInst& in, uint32_t m) {
  if (m == 0) return;
  enter_call(c, in, c.w->frames.back().fn->calls[in.aux], m);
}

// Through a function pointer (s[0]); candidate sites are calls[aux .. aux+imm).
// Lanes calling the first lane's target go now; the others re-run the call
// afterwards (an entry at the call's pc that reconverges just after it).
void run_call_indirect(Ctx& c, const DecodedInst& in, uint32_t m) {
  if (m == 0) return;
  const uint64_t* fp = c.R + in.s[0];
  auto first = static_cast<unsigned>(std::countr_zero(m));
  uint64_t target = fp[first];
  uint32_t same = 0;
  each_lane(m, [&](unsigned l) { same |= uint32_t(fp[l] == target) << l; });
  const DecodedFunction& caller = *c.w->frames.back().fn;
  const ptx::Module& module = c.kernel->module->ast;
  uint64_t index = (target - kFunctionBase) / 16;
  const ptx::Function* fn = (target - kFunctionBase) % 16 == 0 && index < module.functions.size()
                                ? &module.functions[index] : nullptr;
  const CallSite* site = nullptr;
  for (uint32_t i = in.aux; i < in.aux + static_cast<uint32_t>(in.imm) && fn && !site; ++i)
    if (c.kernel->funcs[caller.calls[i].callee]->fn == fn) site = &caller.calls[i];
  if (!site) {
    char text[96];
    std::snprintf(text, sizeof text, "indirect call to 0x%llx, not a function with this call's parameters",
                  static_cast<unsigned long long>(target));
    return fault(c, in, first, text);
  }
  if (same != m) {
    uint32_t after = c.w->stack.back().pc;
    c.w->stack.push_back({after - 1, after, m & ~same});
  }
  enter_call(c, in, *site, same);
}

uint32_t call_param(Decoder& dc, const ptx::Operand* o) {
  if (o->kind != ptx::Operand::Kind::Symbol) dc.fail("call arguments must be .param variables");
  ptx::StateSpace sp = ptx::StateSpace::None;
  uint16_t flags = 0;
  uint64_t off = dc.symbol_address(o->symbol, sp, flags, o->local);
  if (sp != ptx::StateSpace::Param) dc.fail("call argument '" + o->symbol + "' is not a .param variable");
  return static_cast<uint32_t>(off);
}

// A call site to layout function `callee`: param copies in both directions.
void add_call_site(Decoder& dc, uint32_t& index, uint32_t callee, const std::vector<const ptx::Operand*>& rets,
                   const std::vector<const ptx::Operand*>& args) {
  const ptx::Function& fn = *dc.layout().functions[callee];
  const FrameLayout& callee_frame = dc.layout().frames.at(&fn);
  if (rets.size() != fn.returns.size() || args.size() < fn.params.size())
    dc.fail("call does not match the parameters of '" + fn.name + "'");
  CallSite& site = dc.new_call_site(index);
  site.callee = callee;
  for (size_t i = 0; i < fn.returns.size(); ++i)
    site.rets.push_back({callee_frame.returns[i], call_param(dc, rets[i]), static_cast<uint32_t>(fn.returns[i].size)});
  for (size_t i = 0; i < fn.params.size(); ++i)
    site.args.push_back({call_param(dc, args[i]), callee_frame.inputs[i], static_cast<uint32_t>(fn.params[i].size)});
}

// call (rets), %rd, (args), prototype: a site for every function the kernel
// can reach whose parameter and return counts match.
void decode_indirect_call(Decoder& dc, DecodedInst& out) {
  const ptx::Instruction& inst = dc.inst();
  std::vector<const ptx::Operand*> rets, args;
  for (const ptx::Operand& o : inst.ops[0].elems) rets.push_back(&o);
  for (const ptx::Operand& o : inst.ops[2].elems) args.push_back(&o);
  const auto& fns = dc.layout().functions;
  uint32_t first = 0, count = 0;
  for (uint32_t i = 1; i < fns.size(); ++i) {
    if (fns[i]->is_entry || fns[i]->returns.size() != rets.size() || fns[i]->params.size() != args.size()) continue;
    uint32_t index = 0;
    add_call_site(dc, index, i, rets, args);
    if (count++ == 0) first = index;
  }
  if (count == 0) dc.fail("indirect call: no function the kernel can reach has these parameters");
  out.s[0] = dc.src(1, ptx::Type::U64);
  out.ns = 1;
  out.aux = first;
  out.imm = count;
  out.fn = run_call_indirect;
}

// call{.uni} (rets...), fn, (args...): the parser may give each group as
// a vector of symbols or as separate symbol operands.
void decode_call(Decoder& dc, DecodedInst& out) {
  dc.mods().take("uni");
  if (decode_builtin_call(dc, out)) return;
  const ptx::Instruction& inst = dc.inst();
  if (inst.ops.size() >= 3 && inst.ops[1].kind == ptx::Operand::Kind::Reg) return decode_indirect_call(dc, out);
  std::vector<const ptx::Operand*> flat;
  for (const ptx::Operand& o : inst.ops) {
    if (o.kind == ptx::Operand::Kind::Vector)
      for (const ptx::Operand& e : o.elems) flat.push_back(&e);
    else
      flat.push_back(&o);
  }
  const auto& index = dc.layout().function_index;
  size_t at = flat.size();
  for (size_t i = 0; i < flat.size() && at == flat.size(); ++i)
    if (flat[i]->kind == ptx::Operand::Kind::Symbol && index.count(flat[i]->symbol)) at = i;
  if (at == flat.size()) dc.fail("unsupported call: to a function without a body");
  std::vector<const ptx::Operand*> rets(flat.begin(), flat.begin() + static_cast<std::ptrdiff_t>(at));
  std::vector<const ptx::Operand*> args(flat.begin() + static_cast<std::ptrdiff_t>(at) + 1, flat.end());
  add_call_site(dc, out.aux, index.at(flat[at]->symbol), rets, args);
  out.fn = run_call;
}

// --- barriers ---

enum BarKind : uint8_t { kSync, kArrive, kRedPopc, kRedAnd, kRedOr };

unsigned first_lane(uint32_t m) { return m ? static_cast<unsigned>(std::countr_zero(m)) : 0; }

// s[0]: barrier id, s[1]: thread count (aux=1 when given), s[2]: reduction predicate (kNeg), d[0]: result.
void run_bar(Ctx& c, const DecodedInst& in, uint32_t m) {
  Warp& w = *c.w;
  unsigned l0 = first_lane(m);
  uint32_t id = static_cast<uint32_t>(c.R[in.s[0] + l0]) & 15;
  Barrier& b = c.cta->bars[id];
  b.arrived++;
  if (in.aux) b.expected_threads = static_cast<uint32_t>(c.R[in.s[1] + l0]);
  if (in.sub >= kRedPopc) {
    bool neg = in.flags & kNeg;
    each_lane(m, [&](unsigned l) {
      bool v = ((c.R[in.s[2] + l] & 1) != 0) != neg;
      b.popc += v, b.participants++, b.all_count += v;
    });
  }
  if (in.sub != kArrive) {
    w.state = WarpState::AtBarrier;
    w.bar_id = static_cast<uint8_t>(id);
    w.bar_kind = in.sub;
    w.bar_dst = in.d[0];
    w.bar_mask = m;
    b.waiters.push_back(w.index);
    c.yield = true;
  }
  release_barriers(c);
}

void decode_bar(Decoder& dc, DecodedInst& out) {
  Mods& m = dc.mods();
  out.fn = run_bar;
  if (m.take("warp")) return decode_warp_sync(dc, out);  // warps run in lockstep: only the mask is checked
  size_t first = 0;
  if (m.take("red")) {
    int op = m.take_one({"popc", "and", "or"});
    if (op < 0) dc.fail("bar.red needs .popc, .and or .or");
    out.sub = static_cast<uint8_t>(kRedPopc + op);
    out.d[0] = dc.dst(0);
    out.nd = 1;
    first = 1;
    const ptx::Operand& p = dc.op(dc.nops() - 1);
    ptx::Operand plain = p;
    plain.negate = false;
    out.s[2] = dc.src_operand(plain, ptx::Type::Pred);
    if (p.negate) out.flags |= kNeg;
  } else {
    out.sub = m.take("arrive") ? kArrive : (m.take("sync"), kSync);
  }
  size_t counts = dc.nops() - first - (out.sub >= kRedPopc ? 1 : 0);
  if (counts < 1 || counts > 2) dc.fail("wrong number of barrier operands");
  out.s[0] = dc.src(first, ptx::Type::U32);
  out.aux = counts == 2;
  out.s[1] = counts == 2 ? dc.src(first + 1, ptx::Type::U32) : dc.constant(0);
}

void run_trap(Ctx& c, const DecodedInst& in, uint32_t m) {
  if (m) fault(c, in, first_lane(m), "trap");
}

void decode_nop(Decoder& dc, DecodedInst& out) {
  // Fences (membar.cta/gl/sys, fence.sc/acq_rel/acquire/release at any scope)
  // have no functional effect here: every store is visible at once.
  // griddepcontrol.wait / .launch_dependents: a kernel starts only after the
  // grid it depends on has ended, so there is nothing to wait for or release.
  for (const char* w : {"sync", "proxy", "async", "alias", "tensormap", "generic", "release", "acquire", "mbarrier_init",
                        "gl", "cta", "sys", "gpu", "cluster", "sc", "acq_rel", "wait", "launch_dependents",
                        "tensormap::generic", "async::generic", "shared::cluster", "sync_restrict::shared::cluster",
                        "sync_restrict::shared::cta", "op_restrict::mbarrier_init"})
    dc.mods().take(w);
  out.fn = [](Ctx&, const DecodedInst&, uint32_t) {};
}

}  // namespace

ExecFn implicit_return() { return run_ret; }

void release_barriers(Ctx& c) {
  Cta& cta = *c.cta;
  uint32_t live_warps = 0;
  for (uint32_t i = 0; i < cta.nwarps; ++i) live_warps += (*cta.warps)[i].state != WarpState::Done;
  for (Barrier& b : cta.bars) {
    if (b.arrived == 0) continue;
    uint32_t need = b.expected_threads ? (b.expected_threads + kLanes - 1) / kLanes : live_warps;
    if (b.arrived < need) continue;
    for (uint32_t wi : b.waiters) {
      Warp& w = (*cta.warps)[wi];
      w.state = WarpState::Ready;
      if (w.bar_kind < kRedPopc) continue;
      uint64_t v = w.bar_kind == kRedPopc ? b.popc
                 : w.bar_kind == kRedAnd ? (b.all_count == b.participants) : (b.popc != 0);
      uint64_t* d = frame_registers(w) + w.bar_dst;
      each_lane(w.bar_mask, [&](unsigned l) { d[l] = v; });
    }
    b = Barrier{};
  }
}

void register_control_ops(DecodeTable& t) {
  t["bra"] = decode_bra;
  t["exit"] = [](Decoder&, DecodedInst& out) { out.fn = run_exit; };
  t["ret"] = decode_ret;
  t["call"] = decode_call;
  t["bar"] = decode_bar;
  t["barrier"] = decode_bar;
  t["trap"] = [](Decoder&, DecodedInst& out) { out.fn = run_trap; };
  t["membar"] = decode_nop;
  t["fence"] = decode_nop;
  // nanosleep ends the warp's turn: the loops around it wait for other threads.
  t["nanosleep"] = [](Decoder&, DecodedInst& out) { out.fn = [](Ctx& c, const DecodedInst&, uint32_t) { c.yield = true; }; };
  t["brkpt"] = decode_nop;
  t["pmevent"] = decode_nop;
  t["griddepcontrol"] = decode_nop;
  // setmaxnreg.inc/dec.sync.aligned.u32 N (sm_90a warp-group register
  // reallocation): PTX registers are virtual here, so there is nothing to move.
  t["setmaxnreg"] = [](Decoder& dc, DecodedInst& out) {
    if (dc.mods().take_one({"inc", "dec"}) < 0 || dc.nops() != 1) dc.fail("expected setmaxnreg.inc/dec ... N");
    dc.mods().take("sync");
    out.fn = [](Ctx&, const DecodedInst&, uint32_t) {};
  };
}

}  // namespace ws::exec::emu
