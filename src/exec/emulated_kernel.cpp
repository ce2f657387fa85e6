#include "exec/emulated_kernel.h"

#include <algorithm>
#include <bit>
#include <cctype>
#include <cstdio>

#include "common/error.h"
#include "exec/decode.h"
#include "exec/warp_aggregation.h"
#include "frontend/trace/tensor_work.h"
#include "frontend/trace/trace_parse.h"
#include "ir/param_bank.h"

namespace ws::exec {

namespace {

// Opcodes whose first operand is not a register they write.
bool writes_first_operand(const std::string& op) {
  static const char* const kNoDst[] = {"st", "red", "bar", "barrier", "bra", "brx", "call", "ret", "exit",
                                       "membar", "fence", "prefetch", "prefetchu", "cp", "trap", "nanosleep",
                                       "pmevent", "discard", "applypriority", "stmatrix", "griddepcontrol"};
  return std::none_of(std::begin(kNoDst), std::end(kNoDst), [&](const char* s) { return op == s; });
}

// Whether operand `i` of `in` is its destination (all others are read).
bool is_dst_operand(const ptx::Instruction& in, size_t i) {
  return i == 0 && writes_first_operand(in.opcode) && in.ops[0].kind != ptx::Operand::Kind::Address;
}

// Register operands as trace register numbers R0..R254 (predicates, which
// traces do not list, are skipped; PTX's unbounded virtual registers fold
// onto the 255 names, which can add a rare false dependence).
void add_regs(const ptx::Operand& o, const ptx::Function& fn, std::vector<uint16_t>& out) {
  auto add = [&](int32_t r) {
    if (r < 0 || fn.regs[static_cast<size_t>(r)].type == ptx::Type::Pred) return;
    auto id = static_cast<uint16_t>(r % 255);
    if (std::find(out.begin(), out.end(), id) == out.end()) out.push_back(id);
  };
  switch (o.kind) {
    case ptx::Operand::Kind::Reg: add(o.reg); break;
    case ptx::Operand::Kind::Address:  // [base + imm], or a texture/surface's [handle, {coordinates}]
      add(o.reg);
      for (const ptx::Operand& e : o.elems) add_regs(e, fn, out);
      break;
    case ptx::Operand::Kind::Vector:
      for (const ptx::Operand& e : o.elems) add_regs(e, fn, out);
      break;
    default: break;
  }
}

// Source registers operand by operand in turn, so that when they exceed
// WarpInst's slots every operand still has some listed (an mma's
// accumulator after its 8 A registers would otherwise lose its dependence).
std::vector<uint16_t> interleave(const std::vector<std::vector<uint16_t>>& per_operand) {
  std::vector<uint16_t> out;
  for (size_t k = 0;; ++k) {
    bool any = false;
    for (const auto& regs : per_operand) {
      if (k >= regs.size()) continue;
      any = true;
      if (std::find(out.begin(), out.end(), regs[k]) == out.end()) out.push_back(regs[k]);
    }
    if (!any) return out;
  }
}

// Tensor instructions carry their shape and types as SASS names them
// (HMMA.16816.F32.BF16): frontend/trace/tensor_work.h reads the work back.
std::string tensor_suffix(const ptx::Instruction& in) {
  bool math = in.opcode == "mma" || (in.opcode == "wmma" && !in.mods.empty() && in.mods[0] == "mma");
  if (!math) return "";
  std::string shape, types;
  for (const std::string& m : in.mods) {
    unsigned a = 0, b = 0, c = 0;
    char tail = 0;
    if (std::sscanf(m.c_str(), "m%un%uk%u%c", &a, &b, &c, &tail) == 3) {
      shape = "." + std::to_string(a) + std::to_string(b) + std::to_string(c);
    } else if (ptx::type_from_name(m) != ptx::Type::None) {
      types += '.';
      for (char ch : m) types += static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
    }
  }
  // Volta's f16 m8n8k4 is four 8x8x4 products per warp, one per quad pair.
  if (shape == ".884" && types.find(".F16.F16") != std::string::npos) types += ".QUADPAIR";
  return shape + types;
}

std::string width_suffix(uint32_t bytes) {
  switch (bytes) {
    case 1: return ".U8";
    case 2: return ".U16";
    case 4: return "";
    case 8: return ".64";
    case 32: return ".256";  // .v8.b32 / .v4.b64 (sm_100's 256-bit loads and stores)
    default: return ".128";
  }
}

ir::MemSpace mem_space(frontend::IsaSpace s) {
  switch (s) {
    case frontend::IsaSpace::Shared: return ir::MemSpace::Shared;
    case frontend::IsaSpace::Local: return ir::MemSpace::Local;
    case frontend::IsaSpace::Const: return ir::MemSpace::Const;
    case frontend::IsaSpace::Tex: return ir::MemSpace::Tex;
    default: return ir::MemSpace::Global;
  }
}

uint64_t function_index(const LoadedModule& m, const ptx::Function* f) {
  const auto& fs = m.ast.functions;
  for (size_t i = 0; i < fs.size(); ++i)
    if (&fs[i] == f) return i;
  return 0;
}

// Whether some label names instruction `pc` of `fn` (a branch may come back
// to it).
bool branched_to(const ptx::Function& fn, uint32_t pc) {
  return std::any_of(fn.labels.begin(), fn.labels.end(),
                     [&](const auto& l) { return l.second == static_cast<int32_t>(pc); });
}

}  // namespace

Dim3 cta_at(Dim3 grid, uint64_t i) {
  Dim3 c;
  c.x = static_cast<uint32_t>(i % grid.x);
  c.y = static_cast<uint32_t>(i / grid.x % grid.y);
  c.z = static_cast<uint32_t>(i / (uint64_t{grid.x} * grid.y));
  return c;
}

// Whether any instruction of `fn` reads PTX register `reg` (as a source,
// an address or a guard).
bool StepTranslator::reads_register(const ptx::Function& fn, int32_t reg) const {
  auto it = read_regs_.find(&fn);
  if (it == read_regs_.end()) {
    std::vector<bool> read(fn.regs.size() + 1, false);
    auto mark = [&](const ptx::Operand& o, auto& self) -> void {
      if ((o.kind == ptx::Operand::Kind::Reg || o.kind == ptx::Operand::Kind::Address) && o.reg >= 0)
        read[static_cast<size_t>(o.reg)] = true;
      for (const ptx::Operand& e : o.elems) self(e, self);
    };
    for (const ptx::Instruction& i : fn.body) {
      if (i.guard >= 0) read[static_cast<size_t>(i.guard)] = true;
      for (size_t k = 0; k < i.ops.size(); ++k)
        if (!is_dst_operand(i, k)) mark(i.ops[k], mark);
    }
    it = read_regs_.emplace(&fn, std::move(read)).first;
  }
  return reg < 0 || static_cast<size_t>(reg) >= it->second.size() || it->second[static_cast<size_t>(reg)];
}

StepTranslator::StepTranslator(const PtxOpNames& names, std::shared_ptr<const frontend::IsaTable> isa,
                               const Launch& launch, bool param_bank)
    : names_(names), isa_(std::move(isa)), launch_(launch), param_bank_(param_bank) {}

const StepTranslator::Entry& StepTranslator::entry(const WarpStep& step) {
  uint64_t key = reinterpret_cast<uintptr_t>(step.inst) * 16 + static_cast<uint64_t>(step.space);
  auto it = cache_.find(key);
  if (it == cache_.end()) it = cache_.emplace(key, make(step)).first;
  return it->second;
}

StepTranslator::Entry StepTranslator::make(const WarpStep& step) const {
  const ptx::Instruction& in = *step.inst;
  const ptx::Function& fn = *step.function;
  Entry e;
  // A kernel's own parameters are in its launch's constant bank (LDC); a
  // called function's are registers or its stack (a MOV).
  e.param = param_bank_ && step.space == ptx::StateSpace::Param && step.function == launch_.kernel &&
            in.opcode == "ld";
  bool accessed = step.space != ptx::StateSpace::None && (step.space != ptx::StateSpace::Param || e.param);
  std::string base = e.param ? std::string("LDC")
                             : names_.sass_name(in, step.space, step.function == launch_.kernel,
                                                launch_.module->ast.filename);
  const frontend::OpInfo* op = &resolve(base, in);
  ir::WarpInst& w = e.inst;
  w.pc = (function_index(*launch_.module, step.function) << 20) + uint64_t{step.pc} * 16;
  w.kind = op->kind;
  w.unit = op->unit;
  op->mark(w);
  bool memory = w.is_memory() && accessed;
  // The cache operator rides in the SASS name so that a replay reads it back.
  // A load ptxas merges into a vector load (ptx/vectorize.h) issues its width.
  uint32_t bytes = in.merged_bytes ? in.merged_bytes : step.access_bytes;
  e.sass = memory ? base + width_suffix(bytes) +
                        frontend::cache_op_suffix(step.cache_op, isa_->binary_version())
                  : base + tensor_suffix(in);
  w.tensor_work = frontend::tensor_work_of(e.sass);
  if (w.kind == ir::OpKind::MemBar) w.space = frontend::fence_scope_of(e.sass);
  if (w.is_memory() && !memory) w.kind = ir::OpKind::Alu;
  if (memory) {
    // A generic opcode (older generations) gets the space the trace reader
    // will give it from the address windows: shared goes into its window.
    e.generic = op->space == frontend::IsaSpace::Generic;
    w.space = !e.generic ? mem_space(op->space)
              : step.space == ptx::StateSpace::Shared ? ir::MemSpace::Shared
              : step.space == ptx::StateSpace::Local ? ir::MemSpace::Local
                                                     : ir::MemSpace::Global;
    w.access_bytes = frontend::access_bytes_of(e.sass);
    w.cache_op = step.cache_op;
  }
  std::vector<uint16_t> dst;
  std::vector<std::vector<uint16_t>> srcs;
  for (size_t i = 0; i < in.ops.size(); ++i) {
    add_regs(in.ops[i], fn, is_dst_operand(in, i) ? dst : srcs.emplace_back());
  }
  for (int32_t r : in.merged_dsts) {
    ptx::Operand o;
    o.kind = ptx::Operand::Kind::Reg;
    o.reg = r;
    add_regs(o, fn, dst);
  }
  // What folded producers read (ptx/fuse.h), as the merged SASS reads it.
  for (int32_t r : in.fused_reads) {
    ptx::Operand o;
    o.kind = ptx::Operand::Kind::Reg;
    o.reg = r;
    add_regs(o, fn, srcs.emplace_back());
  }
  // An atomic whose result nothing reads is a reduction (ptxas makes it a
  // RED): it writes no register, and its warp does not wait for it.
  bool result_read = in.opcode == "atom" && !in.ops.empty() && in.ops[0].kind == ptx::Operand::Kind::Reg &&
                     reads_register(fn, in.ops[0].reg);
  if (in.opcode == "atom" && !result_read) dst.clear();
  std::vector<uint16_t> src = interleave(srcs);
  w.n_dst = static_cast<uint8_t>(std::min<size_t>(dst.size(), ir::kMaxDst));
  w.n_src = static_cast<uint8_t>(std::min<size_t>(src.size(), ir::kMaxSrc));
  std::copy_n(dst.begin(), w.n_dst, w.dst.begin());
  std::copy_n(src.begin(), w.n_src, w.src.begin());
  w.write_barrier = in.scoreboard & 7;
  expand(in, e);  // fences around an ordered access
  if (memory) aggregate(step, result_read, e);
  if (step.function == launch_.kernel && step.pc == 0 && !branched_to(fn, 0)) prologue(in, e);
  reconvergence(in, e);
  return e;
}

// ptxas's BSSY ahead of a branch around an unpredicated region and the
// BSYNC at its target, ahead of everything else there (frontend/ptx/fuse.h,
// mark_reconvergence_function). They use no registers; a generation whose
// table has neither (nor a [fallback]) issues nothing.
void StepTranslator::reconvergence(const ptx::Instruction& in, Entry& e) const {
  auto control = [&](std::string& sass) -> std::optional<ir::WarpInst> {
    const frontend::OpInfo* op = try_resolve(sass);
    if (!op) return std::nullopt;
    ir::WarpInst b;
    b.pc = e.inst.pc;
    b.kind = op->kind;
    b.unit = op->unit;
    op->mark(b);
    return b;
  };
  std::string bssy = "BSSY", bsync = "BSYNC";
  if (in.bssy)
    if (auto b = control(bssy)) {
      e.before.push_back(*b);
      e.before_sass.push_back(bssy);
    }
  for (uint8_t k = 0; k < in.bsync; ++k)
    if (auto b = control(bsync)) {
      e.before.insert(e.before.begin(), *b);
      e.before_sass.insert(e.before_sass.begin(), bsync);
    }
}

const frontend::OpInfo* StepTranslator::try_resolve(std::string& sass) const {
  const frontend::OpInfo* op = isa_->find(sass);
  for (int hop = 0; !op && hop < 4; ++hop) {
    std::string older = names_.fallback(sass);
    if (older.empty()) break;
    sass = older;
    op = isa_->find(sass);
  }
  return op;
}

const frontend::OpInfo& StepTranslator::resolve(std::string& sass, const ptx::Instruction& in) const {
  const frontend::OpInfo* op = try_resolve(sass);
  if (!op)
    throw InputError(launch_.module->ast.filename, static_cast<uint64_t>(in.line), in.opcode,
                     "isa/ptx.toml names " + sass + " for `" + in.text + "`, which isa/sm_" +
                         std::to_string(isa_->binary_version()) + ".toml does not define (nor a [fallback])");
  return *op;
}

// The instructions ptxas puts around this one: a division's reciprocal and
// Newton steps ahead of it, fences around an ordered access. An arithmetic
// chain runs through the instruction's own destination (traces name only
// R0..R254, so there is no scratch register to take): the first step reads
// its sources, each later one the step before, and the instruction then
// reads and writes it last. Steps marked independent read the sources and
// write nothing the others wait for. Fence steps use no registers. All share
// its PC (their code is not modelled).
void StepTranslator::expand(const ptx::Instruction& in, Entry& e) const {
  const std::vector<PtxOpNames::Step>* steps = names_.expansion(in);
  if (!steps) return;
  ir::WarpInst& w = e.inst;
  bool chained = false;  // some step wrote the destination
  for (const PtxOpNames::Step& st : *steps) {
    std::string sass = st.sass;
    const frontend::OpInfo& op = resolve(sass, in);
    bool fence = op.kind == ir::OpKind::MemBar;
    bool control = op.kind == ir::OpKind::Branch;  // a slow path's BRA or BSYNC: no registers
    if (!fence && !control &&
        (op.kind != ir::OpKind::Alu || st.after || w.is_memory() || w.kind == ir::OpKind::MemBar))
      throw InputError(launch_.module->ast.filename, static_cast<uint64_t>(in.line), in.opcode,
                       "isa/ptx.toml [expand] lists " + sass + " for `" + in.text +
                           "`: a step is a fence, a branch, or arithmetic ahead of an arithmetic instruction");
    ir::WarpInst b;
    b.pc = w.pc;
    b.kind = op.kind;
    b.unit = op.unit;
    op.mark(b);
    if (fence) {
      b.space = frontend::fence_scope_of(sass);
    } else if (!control) {
      chain_step(st, w, b, chained);
    }
    (st.after ? e.after : e.before).push_back(b);
    (st.after ? e.after_sass : e.before_sass).push_back(sass);
  }
  if (chained && w.n_src < ir::kMaxSrc &&
      std::find(w.src.begin(), w.src.begin() + w.n_src, w.dst[0]) == w.src.begin() + w.n_src)
    w.src[w.n_src++] = w.dst[0];
}

// An arithmetic step's registers: the chain through `w`'s destination.
void StepTranslator::chain_step(const PtxOpNames::Step& st, const ir::WarpInst& w, ir::WarpInst& b, bool& chained) {
  if (st.chained && chained) {
    b.src[0] = w.dst[0];
    b.n_src = 1;
  } else {
    b.src = w.src;
    b.n_src = w.n_src;
  }
  if (st.chained && w.n_dst > 0) {
    b.dst[0] = w.dst[0];
    b.n_dst = 1;
    chained = true;
  }
}

// An arithmetic step of a [prologue] or [aggregate] sequence with no
// registers yet; `sass` receives its name on the preset.
ir::WarpInst StepTranslator::alu_step(const PtxOpNames::Step& st, const ptx::Instruction& in, uint64_t pc,
                                      const char* table, std::string& sass) const {
  sass = st.sass;
  const frontend::OpInfo& op = resolve(sass, in);
  if (op.kind != ir::OpKind::Alu)
    throw InputError(launch_.module->ast.filename, static_cast<uint64_t>(in.line), in.opcode,
                     std::string("isa/ptx.toml [") + table + "] lists " + sass + ", which is not an arithmetic instruction");
  ir::WarpInst b;
  b.pc = pc;
  b.kind = op.kind;
  b.unit = op.unit;
  op.mark(b);
  return b;
}

// The kernel's first instruction carries what every warp issues ahead of
// it ([prologue]: the stack pointer, the memory descriptor). They use no
// register the kernel's instructions name.
void StepTranslator::prologue(const ptx::Instruction& in, Entry& e) const {
  const std::vector<PtxOpNames::Step>* steps = names_.prologue(isa_->binary_version());
  if (!steps) return;
  std::vector<ir::WarpInst> insts;
  std::vector<std::string> sass;
  for (const PtxOpNames::Step& st : *steps) insts.push_back(alu_step(st, in, e.inst.pc, "prologue", sass.emplace_back()));
  e.before.insert(e.before.begin(), insts.begin(), insts.end());
  e.before_sass.insert(e.before_sass.begin(), sass.begin(), sass.end());
}

// The steps run through one register: the atomic's destination, else its
// value operand when that is a register; with neither (a constant added
// without a result) every step only reads the atomic's sources.
bool StepTranslator::aggregate(const WarpStep& step, bool result_read, Entry& e) const {
  const ptx::Instruction& in = *step.inst;
  const ptx::Function& fn = *step.function;
  auto u = uniform_.find(&fn);
  if (u == uniform_.end()) u = uniform_.emplace(&fn, ptx::UniformRegs(fn)).first;
  Aggregation form = aggregation_of(in, u->second, result_read, isa_->binary_version());
  const std::vector<PtxOpNames::Step>* steps = form == Aggregation::None ? nullptr : names_.aggregation(aggregation_key(form));
  if (!steps) return false;
  ir::WarpInst& w = e.inst;
  std::vector<uint16_t> value;
  if (in.opcode == "red" ? in.ops.size() > 1 : in.ops.size() > 2)
    add_regs(in.ops[in.opcode == "red" ? 1 : 2], fn, value);
  int chain = w.n_dst > 0 ? w.dst[0] : value.size() == 1 ? value[0] : -1;
  bool chained = false;
  for (const PtxOpNames::Step& st : *steps) {
    std::string sass;
    ir::WarpInst b = alu_step(st, in, w.pc, "aggregate", sass);
    b.src = w.src;
    b.n_src = w.n_src;
    if (st.chained && chain >= 0) {
      if (st.after || chained) {  // after the atomic, the first reads its result
        b.src[0] = static_cast<uint16_t>(chain);
        b.n_src = 1;
      }
      b.dst[0] = static_cast<uint16_t>(chain);
      b.n_dst = 1;
      chained = chained || !st.after;
    }
    (st.after ? e.after : e.before).push_back(b);
    (st.after ? e.after_sass : e.before_sass).push_back(sass);
  }
  if (chained && w.n_src < ir::kMaxSrc &&
      std::find(w.src.begin(), w.src.begin() + w.n_src, chain) == w.src.begin() + w.n_src)
    w.src[w.n_src++] = static_cast<uint16_t>(chain);
  e.leader_only = true;
  return true;
}

void StepTranslator::timing_addrs(const WarpStep& step, const Entry& e, uint64_t warp_uid, Addr* out) const {
  bool local = step.space == ptx::StateSpace::Local;
  Addr window = e.generic && step.space == ptx::StateSpace::Shared ? kTraceSharedWindow
                : e.param ? ir::kParamBankBase + ir::param_bank_offset(isa_->binary_version())
                          : 0;
  for (unsigned lane = 0; lane < 32; ++lane) {
    if (!(step.active_mask >> lane & 1)) {
      out[lane] = 0;
      continue;
    }
    Addr a = step.addrs[lane] - step.inst->merged_below;
    if (local) {
      uint64_t off = a % kLocalBytesPerThread;
      a = kLocalTimingBase + warp_uid * 32 * kLocalBytesPerThread + off / 4 * 128 + lane * 4 + off % 4;
    }
    out[lane] = a + window;
  }
}

CtaRecording::CtaRecording(EmulatedKernel& kernel, uint64_t index, Dim3 cta, uint32_t num_warps,
                           std::shared_ptr<bool> alive)
    : kernel_(kernel), index_(index), cta_(cta), alive_(std::move(alive)), warps_(num_warps) {}

CtaRecording::~CtaRecording() {
  if (!alive_ || !*alive_) return;  // the launch failed and is gone
  if (run_) kernel_.add_counts(run_->result());
  kernel_.cta_finished(index_, cta_, std::move(warps_));
}

void CtaRecording::on_step(const WarpStep& step) {
  if (step.inst->if_converted_end >= 0) {
    // Predicated in the SASS: the branch does not issue, and a warp whose
    // lanes all jumped issues the region with no lane on.
    if (step.warp_mask != 0 && step.active_mask == step.warp_mask) issue_skipped(step);
    return;
  }
  if (step.inst->folded) return;  // executed, never issued (ptx/unroll.h, ptx/fuse.h)
  StepTranslator& tr = kernel_.translator();
  const StepTranslator::Entry& e = tr.entry(step);
  Warp& w = warps_[step.warp];
  for (size_t k = 0; k < e.before.size(); ++k) {
    w.insts.emplace_back(e.before[k]).active_mask = step.active_mask;
    if (kernel_.keeps_trace()) w.sass.push_back(&e.before_sass[k]);
  }
  ir::WarpInst& in = w.insts.emplace_back(e.inst);
  in.active_mask = step.active_mask;
  if (e.leader_only && in.active_mask) in.active_mask = 1u << (31 - std::countl_zero(in.active_mask));
  if (in.is_memory()) {
    std::array<Addr, 32>& a = w.addrs.emplace_back();
    tr.timing_addrs(step, e, kernel_.warp_uid(index_, step.warp), a.data());
    in.addrs = a.data();
  }
  if (kernel_.keeps_trace()) w.sass.push_back(&e.sass);
  for (size_t k = 0; k < e.after.size(); ++k) {
    w.insts.emplace_back(e.after[k]).active_mask = step.active_mask;
    if (kernel_.keeps_trace()) w.sass.push_back(&e.after_sass[k]);
  }
}

// The region an if-converted branch jumped over, as predicated-off
// instructions. A memory instruction takes its space, width and cache
// operator from its modifiers as the decoder reads them (a generic access
// named as global, as for an access no lane made), so that its SASS entry
// is the one a run of it would make.
void CtaRecording::issue_skipped(const WarpStep& branch) {
  static const char* const kAccesses[] = {"ld", "ldu", "st"};
  const ptx::Function& fn = *branch.function;
  for (auto k = static_cast<size_t>(branch.pc) + 1; k < static_cast<size_t>(branch.inst->if_converted_end); ++k) {
    const ptx::Instruction& in = fn.body[k];
    WarpStep s;
    s.warp = branch.warp;
    s.inst = &in;
    s.pc = static_cast<uint32_t>(k);
    s.function = branch.function;
    if (std::any_of(std::begin(kAccesses), std::end(kAccesses), [&](const char* op) { return in.opcode == op; })) {
      emu::Mods m = emu::parse_mods(in.mods);
      s.space = m.space == ptx::StateSpace::None ? ptx::StateSpace::Global : m.space;
      s.access_bytes = m.types.empty() ? 4 : emu::type_bytes(m.types.back()) * m.vec;
      s.cache_op = m.cache;
    }
    on_step(s);
  }
}

// Without a trace to write, what the SM has taken is dropped: it issued
// the instruction (reading its lane addresses) before asking for the next,
// so a warp holds only what the emulator ran ahead of the SM.
void CtaRecording::Warp::drop_taken() {
  for (; pos > 0; --pos) {
    if (insts.front().addrs) addrs.pop_front();
    insts.pop_front();
  }
}

const ir::WarpInst* CtaRecording::next(uint32_t wi) {
  Warp& w = warps_[wi];
  if (!kernel_.keeps_trace()) w.drop_taken();
  // A step may issue nothing (a folded instruction): step on until one does.
  while (w.pos == w.insts.size() && run_) {
    CtaRun::Status status = run_->step(wi);
    if (status == CtaRun::Status::Done) return nullptr;
    if (status == CtaRun::Status::Fault) kernel_.fail(run_->result());
  }
  return w.pos < w.insts.size() ? &w.insts[w.pos++] : nullptr;
}

void CtaRecording::write_trace(frontend::CtaSink& tw, Dim3 cta, const std::vector<Warp>& warps) {
  tw.begin_cta(cta);
  for (uint32_t wi = 0; wi < warps.size(); ++wi) {
    const Warp& w = warps[wi];
    tw.begin_warp(wi, static_cast<uint32_t>(w.insts.size()));
    for (size_t i = 0; i < w.insts.size(); ++i) {
      const ir::WarpInst& in = w.insts[i];
      frontend::TraceInst t;
      t.pc = in.pc;
      t.mask = in.active_mask;
      t.opcode = *w.sass[i];
      t.dst.assign(in.dst.begin(), in.dst.begin() + in.n_dst);
      t.src.assign(in.src.begin(), in.src.begin() + in.n_src);
      if (in.is_memory()) {
        t.mem_width = in.access_bytes;
        for (uint32_t l = 0; l < 32; ++l) t.addrs[l] = in.lane_addr(l);
      }
      tw.add(t);
    }
  }
  tw.end_cta();
}

EmulatedKernel::EmulatedKernel(Emulator& emu, const Launch& launch, ir::KernelInfo info, StepTranslator& tr,
                               frontend::CtaSink* trace, bool on_demand)
    : emu_(emu), launch_(launch), info_(std::move(info)), tr_(tr), trace_(trace), on_demand_(on_demand),
      alive_(std::make_shared<bool>(true)) {}

EmulatedKernel::~EmulatedKernel() { *alive_ = false; }

const std::vector<std::string>& EmulatedKernel::unit_names() const { return tr_.isa().unit_names(); }

void EmulatedKernel::add_counts(const LaunchResult& r) {
  result_.warp_insts += r.warp_insts;
  result_.thread_insts += r.thread_insts;
}

void EmulatedKernel::fail(const LaunchResult& r) {
  if (result_.ok) {
    result_.ok = false;
    result_.error = r.error;
    result_.failure = r.failure;
  }
  *alive_ = false;  // CTAs still on SMs are abandoned with the run
  throw Error(r.error);  // stops the timing run; the device reports the fault
}

std::unique_ptr<ir::CtaSource> EmulatedKernel::next_cta() {
  if (next_ >= info_.grid.count() || !result_.ok) return nullptr;
  uint64_t index = next_++;
  Dim3 id = cta_at(info_.grid, index);
  auto rec = std::make_unique<CtaRecording>(*this, index, id, info_.warps_per_cta(), alive_);
  if (on_demand_) {
    rec->set_run(emu_.start_cta(launch_, id, rec.get()));
    return rec;
  }
  LaunchResult r = emu_.run_cta(launch_, id, rec.get());
  add_counts(r);
  if (!r.ok) fail(r);
  return rec;
}

void EmulatedKernel::cta_finished(uint64_t index, Dim3 cta, std::vector<CtaRecording::Warp> warps) {
  if (!trace_) return;
  finished_.emplace(index, std::make_pair(cta, std::move(warps)));
  // CTAs finish out of order on the SMs; the trace lists them in dispatch order.
  for (auto it = finished_.begin(); it != finished_.end() && it->first == next_to_write_; it = finished_.erase(it)) {
    CtaRecording::write_trace(*trace_, it->second.first, it->second.second);
    ++next_to_write_;
  }
}

}  // namespace ws::exec
