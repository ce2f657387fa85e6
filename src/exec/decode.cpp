// Modifier parsing, operand resolution and the per-function decode loop.
#include "exec/decode.h"
#include "exec/ops_common.h"

#include <algorithm>
#include <cstring>

#include "common/error.h"
#include "exec/half.h"
#include "exec/memory_windows.h"

namespace ws::exec::emu {

namespace {

struct TypeName {
  const char* name;
  ptx::Type type;
};
constexpr TypeName kTypes[] = {
    {"pred", ptx::Type::Pred}, {"b8", ptx::Type::B8},     {"b16", ptx::Type::B16},     {"b32", ptx::Type::B32},
    {"b64", ptx::Type::B64},   {"b128", ptx::Type::B128}, {"u8", ptx::Type::U8},       {"u16", ptx::Type::U16},
    {"u32", ptx::Type::U32},   {"u64", ptx::Type::U64},   {"s8", ptx::Type::S8},       {"s16", ptx::Type::S16},
    {"s32", ptx::Type::S32},   {"s64", ptx::Type::S64},   {"f16", ptx::Type::F16},     {"f16x2", ptx::Type::F16x2},
    {"bf16", ptx::Type::BF16}, {"bf16x2", ptx::Type::BF16x2}, {"tf32", ptx::Type::TF32}, {"f32", ptx::Type::F32},
    {"f64", ptx::Type::F64},
};

// Modifiers with no functional effect: memory ordering, scopes and cache
// hints (cache operators are sorted out first, by classify_cache).
bool ignorable(std::string_view w) {
  static constexpr const char* kIgnored[] = {"relaxed", "acquire", "release", "acq_rel", "weak", "sc", "gpu", "sys",
                                             "cta", "cluster", "aligned", "mmio"};
  for (const char* k : kIgnored)
    if (w == k) return true;
  return w.rfind("L1::", 0) == 0 || w.rfind("L2::", 0) == 0;
}

// PTX cache operators (ld.cg, st.wt, ...) and ld.global.nc. An explicit
// operator wins over .nc (ld.global.nc.cg reads through L2 only).
bool classify_cache(Mods& m, std::string_view w, bool& nc) {
  static constexpr std::pair<const char*, ir::CacheOp> kOps[] = {
      {"ca", ir::CacheOp::CacheAll},   {"cg", ir::CacheOp::CacheGlobal}, {"cs", ir::CacheOp::Streaming},
      {"lu", ir::CacheOp::LastUse},    {"cv", ir::CacheOp::Volatile},    {"volatile", ir::CacheOp::Volatile},
      {"wb", ir::CacheOp::WriteBack},  {"wt", ir::CacheOp::WriteThrough}};
  if (w == "nc") return nc = true, true;
  for (auto [n, op] : kOps)
    if (w == n) return m.cache = op, true;
  return false;
}

// Strong (relaxed/acquire/release) accesses must see other SMs' writes: at
// GPU scope they bypass the L1 (as ld.cg), at system scope as volatile.
ir::CacheOp scoped_cache_op(const std::vector<std::string>& words) {
  bool strong = false;
  ir::CacheOp op = ir::CacheOp::Default;
  for (const std::string& w : words) {
    if (w == "relaxed" || w == "acquire" || w == "release") strong = true;
    if (w == "gpu" || w == "cluster") op = ir::CacheOp::CacheGlobal;
    if (w == "sys") op = ir::CacheOp::Volatile;
  }
  return strong ? op : ir::CacheOp::Default;
}

bool classify_rounding(Mods& m, std::string_view w) {
  static constexpr std::pair<const char*, Rounding> kRnd[] = {
      {"rn", Rounding::Rn}, {"rz", Rounding::Rz}, {"rm", Rounding::Rm}, {"rp", Rounding::Rp}, {"rna", Rounding::Rna}};
  static constexpr std::pair<const char*, Rounding> kIntRnd[] = {
      {"rni", Rounding::Rn}, {"rzi", Rounding::Rz}, {"rmi", Rounding::Rm}, {"rpi", Rounding::Rp}};
  for (auto [n, r] : kRnd)
    if (w == n) return m.rnd = r, m.has_rnd = true, true;
  for (auto [n, r] : kIntRnd)
    if (w == n) return m.rnd = r, m.has_rnd = m.int_rnd = true, true;
  return false;
}

bool classify_flag(Mods& m, std::string_view w) {
  std::pair<const char*, bool*> flags[] = {{"ftz", &m.ftz}, {"sat", &m.sat}, {"approx", &m.approx},
                                           {"full", &m.full}, {"hi", &m.hi},   {"lo", &m.lo},
                                           {"wide", &m.wide}, {"cc", &m.cc}};
  for (auto [n, p] : flags)
    if (w == n) return *p = true, true;
  return false;
}

bool classify_space(Mods& m, std::string_view w) {
  static constexpr std::pair<const char*, ptx::StateSpace> kSpaces[] = {
      {"global", ptx::StateSpace::Global}, {"shared", ptx::StateSpace::Shared},
      {"shared::cta", ptx::StateSpace::Shared}, {"local", ptx::StateSpace::Local},
      {"const", ptx::StateSpace::Const},   {"param", ptx::StateSpace::Param}};
  for (auto [n, s] : kSpaces)
    if (w == n) return m.space = s, true;
  return false;
}

}  // namespace

Mods parse_mods(const std::vector<std::string>& words) {
  Mods m;
  bool nc = false;
  for (const std::string& w : words) {
    if (ptx::Type t = parse_type(w); t != ptx::Type::None) {
      m.types.push_back(t);
    } else if (w == "v2" || w == "v4" || w == "v8") {
      m.vec = static_cast<unsigned>(w[1] - '0');
    } else if (!classify_rounding(m, w) && !classify_flag(m, w) && !classify_space(m, w) &&
               !classify_cache(m, w, nc) && !ignorable(w)) {
      m.words.push_back(w);
    }
  }
  if (m.cache == ir::CacheOp::Default) m.cache = nc ? ir::CacheOp::NonCoherent : scoped_cache_op(words);
  m.used.assign(m.words.size(), false);
  return m;
}

namespace {

const ptx::Instruction& end_of_function() {
  static const ptx::Instruction kRet = [] {
    ptx::Instruction i;
    i.opcode = "ret";
    i.text = "ret (end of function)";
    return i;
  }();
  return kRet;
}

}  // namespace

bool Mods::take(std::string_view w) {
  for (size_t i = 0; i < words.size(); ++i)
    if (!used[i] && words[i] == w) return used[i] = true, true;
  return false;
}

int Mods::take_one(std::initializer_list<const char*> options) {
  int k = 0;
  for (const char* o : options) {
    if (take(o)) return k;
    ++k;
  }
  return -1;
}

ptx::Type parse_type(std::string_view s) {
  for (const TypeName& t : kTypes)
    if (s == t.name) return t.type;
  return ptx::Type::None;
}

unsigned type_bytes(ptx::Type t) {
  switch (t) {
    case ptx::Type::None: return 0;
    case ptx::Type::Pred: case ptx::Type::B8: case ptx::Type::U8: case ptx::Type::S8: return 1;
    case ptx::Type::B16: case ptx::Type::U16: case ptx::Type::S16: case ptx::Type::F16: case ptx::Type::BF16: return 2;
    case ptx::Type::B64: case ptx::Type::U64: case ptx::Type::S64: case ptx::Type::F64: return 8;
    case ptx::Type::B128: return 16;
    default: return 4;
  }
}

bool is_float(ptx::Type t) {
  return t == ptx::Type::F16 || t == ptx::Type::F16x2 || t == ptx::Type::BF16 || t == ptx::Type::BF16x2 ||
         t == ptx::Type::TF32 || t == ptx::Type::F32 || t == ptx::Type::F64;
}

bool is_signed_int(ptx::Type t) {
  return t == ptx::Type::S8 || t == ptx::Type::S16 || t == ptx::Type::S32 || t == ptx::Type::S64;
}

const char* space_text(ptx::StateSpace s) {
  static constexpr const char* kNames[] = {"none", "reg", "sreg", "const", "global", "local",
                                           "param", "shared", "tex", "generic"};
  return kNames[static_cast<int>(s)];
}

// --- Decoder ---

Decoder::Decoder(const LoadedModule& module, const KernelLayout& layout, DecodedFunction& out)
    : module_(module), layout_(layout), out_(out), fn_(out.fn), frame_(layout.frames.at(out.fn)) {
  next_slot_ = static_cast<uint32_t>(fn_->regs.size());
  high_halves_.assign(fn_->regs.size(), 0);
  for (size_t r = 0; r < fn_->regs.size(); ++r)
    if (fn_->regs[r].type == ptx::Type::B128) high_halves_[r] = next_slot_++ * kLanes;
  out_.param_frame_bytes = frame_.param_bytes;
  out_.local_bytes = frame_.local_bytes;
}

void Decoder::decode_all(std::vector<std::string>* errors) {
  std::vector<uint32_t> ipdom = immediate_post_dominators(*fn_);
  out_.code.resize(fn_->body.size() + 1);
  for (size_t i = 0; i < fn_->body.size(); ++i) {
    try {
      decode_one(i);
    } catch (const InputError& e) {
      if (!errors) throw;
      errors->push_back(e.what());
    }
    out_.code[i].reconv = ipdom[i];
  }
  DecodedInst& end = out_.code.back();
  end.fn = implicit_return();
  end.src = &end_of_function();
  out_.nslots = next_slot_;
}

void Decoder::decode_one(size_t index) {
  static const DecodeTable kTable = [] {
    DecodeTable t;
    register_int_ops(t);
    register_video_ops(t);
    register_float_ops(t);
    register_half_ops(t);
    register_convert_ops(t);
    register_memory_ops(t);
    register_mbarrier_ops(t);
    register_control_ops(t);
    register_warp_ops(t);
    register_texture_ops(t);
    register_tensor_ops(t);
    return t;
  }();
  inst_ = &fn_->body[index];
  mods_ = parse_mods(inst_->mods);
  DecodedInst& out = out_.code[index];
  out.src = inst_;
  if (inst_->guard >= 0) out.guard = static_cast<uint32_t>(inst_->guard) * kLanes, out.guard_neg = inst_->guard_negated;
  auto it = kTable.end();
  if (!mods_.types.empty()) {
    ptx::Type t = mods_.types[0];
    if (t == ptx::Type::F32 || t == ptx::Type::F64) it = kTable.find(inst_->opcode + ":f");
    else if (is_float(t) && t != ptx::Type::TF32) it = kTable.find(inst_->opcode + ":h");
  }
  if (it == kTable.end()) it = kTable.find(inst_->opcode);
  if (it == kTable.end()) fail("unsupported opcode '" + inst_->opcode + "'");
  it->second(*this, out);
  for (size_t i = 0; i < mods_.words.size(); ++i)
    if (!mods_.used[i]) fail("unsupported modifier '." + mods_.words[i] + "'");
  if (!out.fn) fail("unsupported instruction form");
  bool reads_clock = std::any_of(inst_->ops.begin(), inst_->ops.end(), [](const ptx::Operand& o) {
    return o.kind == ptx::Operand::Kind::Special &&
           (o.special == ptx::SpecialReg::Clock || o.special == ptx::SpecialReg::Clock64 ||
            o.special == ptx::SpecialReg::GlobalTimer);
  });
  if (reads_clock) {
    if (out.inner) fail("unsupported use of a clock register");
    out.inner = out.fn;
    out.fn = h_refresh_clock;
    if (inst_->opcode == "mov") out.flags |= kClockRead;
  }
}

const ptx::Operand& Decoder::op(size_t i) const {
  if (i >= inst_->ops.size()) fail("missing operand " + std::to_string(i + 1));
  return inst_->ops[i];
}

void Decoder::fail(const std::string& why) const {
  std::string text = inst_ ? inst_->text : fn_->name;
  throw InputError(module_.ast.filename, inst_ ? inst_->line : fn_->line, "", why + " in `" + text + "`");
}

ExecFn Decoder::need(ExecFn f, const char* what) const {
  if (!f) fail(std::string("unsupported ") + what + " for '" + inst_->opcode + "'");
  return f;
}

ptx::Type Decoder::type(size_t i) {
  if (i >= mods_.types.size()) fail("missing type modifier");
  return mods_.types[i];
}

uint32_t Decoder::constant(uint64_t value) {
  auto [it, fresh] = const_slots_.try_emplace(value, 0);
  if (fresh) {
    it->second = next_slot_++ * kLanes;
    out_.consts.push_back({it->second, value});
  }
  return it->second;
}

uint32_t Decoder::private_slot(unsigned id) {
  auto [it, fresh] = private_slots_.try_emplace(id, 0);
  if (fresh) it->second = next_slot_++ * kLanes;
  return it->second;
}

uint32_t Decoder::special(ptx::SpecialReg r, uint8_t index) {
  auto [it, fresh] = special_slots_.try_emplace({r, index}, 0);
  if (fresh) {
    it->second = next_slot_++ * kLanes;
    out_.specials.push_back({it->second, r, index});
  }
  return it->second;
}

// Float immediates are converted to the instruction's float type.
static uint64_t float_immediate(const ptx::Operand& o, ptx::Type t) {
  double v;
  if (o.fwidth == 32) {
    float f;
    uint32_t b = static_cast<uint32_t>(o.fbits);
    std::memcpy(&f, &b, 4);
    v = f;
  } else {
    std::memcpy(&v, &o.fbits, 8);
  }
  if (t == ptx::Type::F64) {
    uint64_t b;
    std::memcpy(&b, &v, 8);
    return b;
  }
  if (t == ptx::Type::F16) return f64_to_f16(v, Rounding::Rn);
  if (t == ptx::Type::BF16) return f64_to_bf16(v, Rounding::Rn);
  if (o.fwidth == 32 || t == ptx::Type::F32) {
    float f = static_cast<float>(v);
    uint32_t b;
    std::memcpy(&b, &f, 4);
    return b;
  }
  return o.fbits;
}

uint32_t Decoder::src_operand(const ptx::Operand& o, ptx::Type t) {
  using K = ptx::Operand::Kind;
  switch (o.kind) {
    case K::Reg:
      if (o.negate) fail("negated register where a value is expected");
      return static_cast<uint32_t>(o.reg) * kLanes;
    case K::Imm: return constant(static_cast<uint64_t>(o.imm));
    case K::FImm: return constant(float_immediate(o, t));
    case K::Special: return special(o.special, static_cast<uint8_t>(o.imm));
    case K::Symbol: {
      ptx::StateSpace sp = ptx::StateSpace::None;
      uint16_t flags = 0;
      uint64_t a = symbol_address(o.symbol, sp, flags, o.local) + static_cast<uint64_t>(o.imm);
      if (flags & kFrameLocal) fail("local variable address used outside mov");
      return constant(a);
    }
    default: fail("unsupported operand kind");
  }
}

uint32_t Decoder::src(size_t i, ptx::Type t) { return src_operand(op(i), t); }

uint32_t Decoder::dst_operand(const ptx::Operand& o) {
  if (o.kind == ptx::Operand::Kind::Sink) {
    return private_slot(kSinkSlot);
  }
  if (o.kind != ptx::Operand::Kind::Reg) fail("destination is not a register");
  return static_cast<uint32_t>(o.reg) * kLanes;
}

uint32_t Decoder::dst(size_t i) { return dst_operand(op(i)); }

uint32_t Decoder::high_half(const ptx::Operand& o) {
  bool wide = o.kind == ptx::Operand::Kind::Reg && o.reg >= 0 && static_cast<size_t>(o.reg) < high_halves_.size() &&
              high_halves_[o.reg] != 0;
  if (!wide) fail("a .b128 operand must be a .b128 register");
  return high_halves_[o.reg];
}

uint64_t Decoder::symbol_address(const std::string& name, ptx::StateSpace& space, uint16_t& flags, int32_t local) {
  if (local >= 0 && static_cast<size_t>(local) < fn_->locals.size()) {
    ptx::StateSpace sp = fn_->locals[local].space;
    if (sp == ptx::StateSpace::Param) return space = sp, frame_.local_offsets[local];
    if (sp == ptx::StateSpace::Local) return space = sp, flags |= kFrameLocal, frame_.local_offsets[local];
  }
  if (auto it = frame_.params.find(name); it != frame_.params.end()) return space = ptx::StateSpace::Param, it->second;
  if (auto it = frame_.locals.find(name); it != frame_.locals.end()) {
    flags |= kFrameLocal;
    space = ptx::StateSpace::Local;
    return it->second;
  }
  if (auto f = layout_.local_shared.find(fn_); f != layout_.local_shared.end())
    if (auto it = f->second.find(name); it != f->second.end()) return space = ptx::StateSpace::Shared, it->second;
  if (auto it = layout_.module_shared.find(name); it != layout_.module_shared.end())
    return space = ptx::StateSpace::Shared, it->second;
  if (auto it = module_.symbols.find(name); it != module_.symbols.end()) {
    space = ptx::StateSpace::Global;
    return it->second;
  }
  for (size_t i = 0; i < module_.ast.functions.size(); ++i)
    if (module_.ast.functions[i].name == name) return space = ptx::StateSpace::None, kFunctionBase + i * 16;
  fail("unknown symbol '" + name + "'");
}

void Decoder::address(size_t i, DecodedInst& out, unsigned slot) {
  const ptx::Operand& o = op(i);
  if (o.kind != ptx::Operand::Kind::Address) fail("expected an address operand");
  out.imm = o.imm;
  if (o.reg >= 0) {
    out.s[slot] = static_cast<uint32_t>(o.reg) * kLanes;
  } else {
    out.s[slot] = constant(0);
    if (!o.symbol.empty()) {
      ptx::StateSpace sp = ptx::StateSpace::None;
      out.imm += static_cast<int64_t>(symbol_address(o.symbol, sp, out.flags, o.local));
    }
  }
}

uint32_t Decoder::label(size_t i) {
  const ptx::Operand& o = op(i);
  if (o.kind != ptx::Operand::Kind::Symbol || o.label < 0) fail("expected a label");
  return static_cast<uint32_t>(o.label);
}

uint32_t Decoder::reg_list(const std::vector<uint32_t>& regs) {
  auto first = static_cast<uint32_t>(out_.reg_lists.size());
  out_.reg_lists.insert(out_.reg_lists.end(), regs.begin(), regs.end());
  return first;
}

CallSite& Decoder::new_call_site(uint32_t& index) {
  index = static_cast<uint32_t>(out_.calls.size());
  out_.calls.emplace_back();
  return out_.calls.back();
}

}  // namespace ws::exec::emu

namespace ws::exec::emu {

void plain_operands(Decoder& dc, DecodedInst& out, ptx::Type t, unsigned nsrc) {
  if (dc.nops() != nsrc + 1) dc.fail("expected " + std::to_string(nsrc + 1) + " operands");
  out.d[0] = dc.dst(0);
  out.nd = 1;
  for (unsigned i = 0; i < nsrc; ++i) out.s[i] = dc.src(i + 1, t);
  out.ns = static_cast<uint8_t>(nsrc);
}

}  // namespace ws::exec::emu
