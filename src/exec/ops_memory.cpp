// Loads, stores, atomics, cvta and cp.async. Every lane's address is checked:
// global accesses must fall in a live allocation (or module variable),
// shared/local/param ones inside their window; anything else faults.
#include <cmath>
#include <cstring>

#include "exec/device_memory.h"
#include "exec/half.h"
#include "exec/memory_windows.h"
#include "exec/ops_common.h"

namespace ws::exec::emu {

namespace {

using Space = ptx::StateSpace;

std::string hex(uint64_t v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

uint8_t* bad_address(Ctx& c, const DecodedInst& in, unsigned lane, uint64_t addr, Space sp, unsigned bytes,
                     const char* what = "illegal address") {
  fault(c, in, lane, std::string(what) + " " + hex(addr) + " (" + space_text(sp) + ", " +
                         std::to_string(bytes) + " bytes)");
  return nullptr;
}

uint8_t* global_ptr(Ctx& c, const DecodedInst& in, unsigned lane, uint64_t addr, unsigned bytes) {
  GlobalCache& g = c.gcache;
  if (addr < g.lo || addr + bytes > g.hi) {
    auto a = c.mem->find(addr, bytes);
    if (!a) return bad_address(c, in, lane, addr, Space::Global, bytes);
    g.lo = a->first, g.hi = a->first + a->second;
  }
  if (addr & (bytes - 1)) return bad_address(c, in, lane, addr, Space::Global, bytes, "misaligned address");
  uint64_t page = addr / DeviceMemory::kPageBytes;
  if (page != g.page) g.page = page, g.page_ptr = c.mem->host_ptr(page * DeviceMemory::kPageBytes);
  return g.page_ptr + addr % DeviceMemory::kPageBytes;
}

// Host pointer for `bytes` at `addr` of space `sp` for `lane`; nullptr after reporting a fault.
// `sp` is updated to the space a generic address resolves to; `addr` to the address within it.
uint8_t* lane_ptr(Ctx& c, const DecodedInst& in, Space& sp, uint64_t& addr, unsigned bytes, unsigned lane) {
  if (sp == Space::Generic || sp == Space::None) {
    if (addr - kSharedWindow < kWindowBytes) sp = Space::Shared, addr -= kSharedWindow;
    else if (addr - kLocalWindow < kWindowBytes) sp = Space::Local, addr -= kLocalWindow;
    else sp = Space::Global;
  }
  switch (sp) {
    case Space::Shared:
      if (addr + bytes > c.cta->shared.size() || addr + bytes < addr) return bad_address(c, in, lane, addr, sp, bytes);
      return c.cta->shared.data() + addr;
    case Space::Local:
      if (addr + bytes > c.local_stride || addr + bytes < addr) return bad_address(c, in, lane, addr, sp, bytes);
      return c.w->local.data() + size_t{lane} * c.local_stride + addr;
    case Space::Param: {
      const Frame& f = c.w->frames.back();
      uint32_t fb = f.fn->param_frame_bytes;
      if (addr + bytes > fb || addr + bytes < addr) return bad_address(c, in, lane, addr, sp, bytes);
      return c.w->params.data() + f.param_base + size_t{lane} * fb + addr;
    }
    default: return global_ptr(c, in, lane, addr, bytes);
  }
}

uint64_t lane_address(Ctx& c, const DecodedInst& in, unsigned lane) {
  uint64_t a = c.R[in.s[0] + lane] + static_cast<uint64_t>(in.imm);
  if (in.flags & kFrameLocal) a += c.w->frames.back().local_base;
  return a;
}

// Forced inline: since run_access became a template (.v8 forms), LTO stopped
// inlining it and every lane paid a call and a runtime-sized memcpy (+10% host
// instructions on BM_EmuStream, callgrind; docs/exec.md "Speed").
[[gnu::always_inline]] inline uint64_t extend(const uint8_t* p, unsigned bytes, bool sign) {
  uint64_t v = 0;
  std::memcpy(&v, p, bytes);
  if (sign && bytes < 8 && ((v >> (8 * bytes - 1)) & 1)) v |= ~uint64_t{0} << (8 * bytes);
  return v;
}

// ld: s[0] address; d[0..vec) destinations. st: s[0] address; s[1..vec] values.
// `List`: the registers are in the function's reg_lists instead (.v8, 256-bit).
template <bool Store, bool List>
void run_access(Ctx& c, const DecodedInst& in, uint32_t m) {
  const uint32_t* list = List ? c.w->frames.back().fn->reg_lists.data() + in.aux : nullptr;
  auto reg = [&](unsigned v) { return List ? list[v] : Store ? in.s[1 + v] : in.d[v]; };
  unsigned bytes = in.bytes, total = bytes * in.vec;
  bool sign = in.flags & kSigned;
  c.step_bytes = total;
  c.step_space = in.space;
  each_lane(m, [&](unsigned l) {
    if (c.faulted) return;
    Space sp = in.space;
    uint64_t addr = lane_address(c, in, l);
    uint8_t* p = lane_ptr(c, in, sp, addr, total, l);
    if (!p) return;
    c.addrs[l] = addr, c.step_space = sp;
    for (unsigned v = 0; v < in.vec; ++v, p += bytes) {
      if constexpr (Store) std::memcpy(p, &c.R[reg(v) + l], bytes);
      else c.R[reg(v) + l] = extend(p, bytes, sign);
    }
  });
}

// ld.const keeps its space (the timing model sends it to the constant cache);
// its addresses are global ones, as module constants live with the globals.
Space access_space(Decoder& dc) {
  Space sp = dc.mods().space;
  return sp == Space::None ? Space::Generic : sp;
}

// The data registers of an access: one per element; a .b128 element is its
// register's two 64-bit halves (so .b128 moves as .v2.b64 would).
std::vector<uint32_t> access_registers(Decoder& dc, const std::vector<ptx::Operand>& elems, ptx::Type t, bool store) {
  std::vector<uint32_t> regs;
  for (const ptx::Operand& e : elems) {
    regs.push_back(store ? dc.src_operand(e, t == ptx::Type::B128 ? ptx::Type::B64 : t) : dc.dst_operand(e));
    if (t == ptx::Type::B128) regs.push_back(dc.high_half(e));
  }
  return regs;
}

template <bool Store>
void decode_access(Decoder& dc, DecodedInst& out) {
  Mods& m = dc.mods();
  ptx::Type t = dc.type();
  bool wide = t == ptx::Type::B128;
  unsigned elem_bytes = type_bytes(t);
  // PTX: .v8 only with 32-bit elements, .b128 only as a scalar.
  if (elem_bytes == 0 || (m.vec == 8 && elem_bytes != 4) || (wide && m.vec != 1)) dc.fail("unsupported access type");
  out.bytes = static_cast<uint8_t>(wide ? 8 : elem_bytes);
  out.vec = static_cast<uint8_t>(wide ? 2 : m.vec);
  if (is_signed_int(t)) out.flags |= kSigned;
  out.space = access_space(dc);
  out.cache = m.cache;
  if (dc.nops() != 2u + has_cache_hint(dc)) dc.fail("expected two operands (three with .L2::cache_hint)");
  dc.address(Store ? 0 : 1, out, 0);
  const ptx::Operand& data = dc.op(Store ? 1 : 0);
  std::vector<ptx::Operand> elems = data.kind == ptx::Operand::Kind::Vector ? data.elems : std::vector{data};
  if (elems.size() != m.vec) dc.fail("vector size does not match the operand");
  std::vector<uint32_t> regs = access_registers(dc, elems, t, Store);
  out.ns = static_cast<uint8_t>(Store ? 1 + std::min<size_t>(regs.size(), 4) : 1);
  out.nd = static_cast<uint8_t>(Store ? 0 : std::min<size_t>(regs.size(), 4));
  if (regs.size() > 4) {
    out.aux = dc.reg_list(regs);
    out.fn = run_access<Store, true>;
    return;
  }
  for (size_t v = 0; v < regs.size(); ++v) (Store ? out.s[1 + v] : out.d[v]) = regs[v];
  out.fn = run_access<Store, false>;
}

// --- atomics ---

enum AtomOp : uint8_t { AAdd, AExch, ACas, AMin, AMax, AInc, ADec, AAnd, AOr, AXor };

template <class T>
T atomic_result(uint8_t op, T old, T b, T c) {
  switch (op) {
    case AAdd: if constexpr (std::is_integral_v<T>) return T(std::make_unsigned_t<T>(old) + std::make_unsigned_t<T>(b)); else return old + b;
    case AExch: return b;
    case ACas: return old == b ? c : old;
    case AMin: if constexpr (std::is_floating_point_v<T>) return std::fmin(old, b); else return b < old ? b : old;
    case AMax: if constexpr (std::is_floating_point_v<T>) return std::fmax(old, b); else return old < b ? b : old;
    default: break;
  }
  if constexpr (std::is_integral_v<T>) {
    switch (op) {
      case AInc: return old >= b ? T(0) : T(old + 1);
      case ADec: return (old == 0 || old > b) ? b : T(old - 1);
      case AAnd: return old & b;
      case AOr: return old | b;
      case AXor: return old ^ b;
      default: break;
    }
  }
  return old;
}

// Lanes apply one after another in lane order, so conflicting lanes see each other's updates.
template <class T>
void run_atomic(Ctx& c, const DecodedInst& in, uint32_t m) {
  c.step_bytes = sizeof(T);
  c.step_space = in.space;
  each_lane(m, [&](unsigned l) {
    if (c.faulted) return;
    Space sp = in.space;
    uint64_t addr = lane_address(c, in, l);
    uint8_t* p = lane_ptr(c, in, sp, addr, sizeof(T), l);
    if (!p) return;
    c.addrs[l] = addr, c.step_space = sp;
    T old, b = get<T>(c.R + in.s[1], l), k = get<T>(c.R + in.s[2], l);
    std::memcpy(&old, p, sizeof(T));
    T v = atomic_result<T>(in.sub, old, b, k);
    std::memcpy(p, &v, sizeof(T));
    put(c.R + in.d[0], l, old);
  });
}

// atom.add.noftz on f16/bf16 (and packed pairs): each half rounds to nearest, subnormals kept.
template <bool Brain, bool Pair>
uint32_t add_halves(uint32_t old, uint32_t b) {
  auto one = [](uint32_t x, uint32_t y) -> uint32_t {
    double s = Brain ? double(bf16_to_f32(uint16_t(x))) + bf16_to_f32(uint16_t(y))
                     : double(f16_to_f32(uint16_t(x))) + f16_to_f32(uint16_t(y));
    return Brain ? f64_to_bf16(s, Rounding::Rn) : f64_to_f16(s, Rounding::Rn);
  };
  uint32_t r = one(old & 0xffff, b & 0xffff);
  if (Pair) r |= one(old >> 16, b >> 16) << 16;
  return r;
}

template <bool Brain, bool Pair>
void run_atomic_add_half(Ctx& c, const DecodedInst& in, uint32_t m) {
  constexpr unsigned kBytes = Pair ? 4 : 2;
  c.step_bytes = kBytes;
  c.step_space = in.space;
  each_lane(m, [&](unsigned l) {
    if (c.faulted) return;
    Space sp = in.space;
    uint64_t addr = lane_address(c, in, l);
    uint8_t* p = lane_ptr(c, in, sp, addr, kBytes, l);
    if (!p) return;
    c.addrs[l] = addr, c.step_space = sp;
    uint32_t old = 0, v;
    std::memcpy(&old, p, kBytes);
    v = add_halves<Brain, Pair>(old, static_cast<uint32_t>(c.R[in.s[1] + l]));
    std::memcpy(p, &v, kBytes);
    c.R[in.d[0] + l] = old;
  });
}

// atom.exch/cas.b128 (sm_90): 16 bytes as one, each value a register's two
// 64-bit halves. d[0..1] old value, s[1..2] b, s[3..4] c (cas: the new value).
void run_atomic_b128(Ctx& c, const DecodedInst& in, uint32_t m) {
  c.step_bytes = 16;
  c.step_space = in.space;
  each_lane(m, [&](unsigned l) {
    if (c.faulted) return;
    Space sp = in.space;
    uint64_t addr = lane_address(c, in, l);
    uint8_t* p = lane_ptr(c, in, sp, addr, 16, l);
    if (!p) return;
    c.addrs[l] = addr, c.step_space = sp;
    uint64_t old[2], b[2] = {c.R[in.s[1] + l], c.R[in.s[2] + l]}, k[2] = {c.R[in.s[3] + l], c.R[in.s[4] + l]};
    std::memcpy(old, p, 16);
    bool cas = in.sub == ACas;
    if (!cas) std::memcpy(p, b, 16);
    else if (old[0] == b[0] && old[1] == b[1]) std::memcpy(p, k, 16);
    c.R[in.d[0] + l] = old[0];
    c.R[in.d[1] + l] = old[1];
  });
}

Space atomic_space(Decoder& dc) {
  Space sp = access_space(dc);
  if (sp != Space::Global && sp != Space::Shared && sp != Space::Generic) dc.fail("unsupported state space for atomics");
  return sp;
}

void decode_atomic_b128(Decoder& dc, DecodedInst& out, bool reduce) {
  if (reduce || (out.sub != AExch && out.sub != ACas)) dc.fail("only atom.exch and atom.cas take .b128");
  size_t nsrc = out.sub == ACas ? 2 : 1;
  if (dc.nops() != 2 + nsrc + has_cache_hint(dc)) dc.fail("wrong number of operands");
  out.d[0] = dc.dst(0);
  out.d[1] = dc.high_half(dc.op(0));
  out.nd = 2;
  dc.address(1, out, 0);
  for (size_t i = 0; i < 2; ++i) {
    const ptx::Operand& v = dc.op(2 + (i < nsrc ? i : 0));
    out.s[1 + 2 * i] = dc.src_operand(v, ptx::Type::B64);
    out.s[2 + 2 * i] = dc.high_half(v);
  }
  out.ns = 5;
  out.bytes = 16;
  out.fn = run_atomic_b128;
}

ExecFn atomic_handler(ptx::Type t) {
  switch (t) {
    case ptx::Type::B32: case ptx::Type::U32: return run_atomic<uint32_t>;
    case ptx::Type::S32: return run_atomic<int32_t>;
    case ptx::Type::B64: case ptx::Type::U64: return run_atomic<uint64_t>;
    case ptx::Type::S64: return run_atomic<int64_t>;
    case ptx::Type::F32: return run_atomic<float>;
    case ptx::Type::F64: return run_atomic<double>;
    default: return nullptr;
  }
}

template <bool Reduce>
void decode_atomic(Decoder& dc, DecodedInst& out) {
  Mods& m = dc.mods();
  int op = m.take_one({"add", "exch", "cas", "min", "max", "inc", "dec", "and", "or", "xor"});
  if (op < 0) dc.fail("missing atomic operation");
  ptx::Type t = dc.type();
  out.sub = static_cast<uint8_t>(op);
  if (t == ptx::Type::B128) {
    out.space = atomic_space(dc);
    return decode_atomic_b128(dc, out, Reduce);
  }
  bool half = t == ptx::Type::F16 || t == ptx::Type::BF16 || t == ptx::Type::F16x2 || t == ptx::Type::BF16x2;
  if (half) {
    if (op != AAdd) dc.fail("only atom.add takes f16/bf16");
    m.take("noftz");
    bool brain = t == ptx::Type::BF16 || t == ptx::Type::BF16x2, pair = t == ptx::Type::F16x2 || t == ptx::Type::BF16x2;
    static constexpr ExecFn kHalf[4] = {run_atomic_add_half<false, false>, run_atomic_add_half<false, true>,
                                        run_atomic_add_half<true, false>, run_atomic_add_half<true, true>};
    out.fn = kHalf[(brain ? 2 : 0) + (pair ? 1 : 0)];
  } else {
    out.fn = dc.need(atomic_handler(t));
  }
  bool float_ok = op == AAdd || op == AExch || op == ACas || op == AMin || op == AMax;
  if (is_float(t) && !float_ok) dc.fail("unsupported atomic type");
  if ((op == AInc || op == ADec) && type_bytes(t) != 4) dc.fail("inc/dec need 32-bit types");
  out.space = atomic_space(dc);
  size_t base = Reduce ? 0 : 1;
  size_t nsrc = op == ACas ? 2 : 1;
  if (dc.nops() != base + 1 + nsrc + has_cache_hint(dc)) dc.fail("wrong number of operands");
  out.d[0] = Reduce ? dc.private_slot(kSinkSlot) : dc.dst(0);
  out.nd = 1;
  dc.address(base, out, 0);
  out.s[1] = dc.src(base + 1, t);
  out.s[2] = op == ACas ? dc.src(base + 2, t) : dc.constant(0);
  out.ns = 3;
  out.bytes = static_cast<uint8_t>(type_bytes(t));
}

// --- cvta, isspacep ---

template <bool ToGeneric>
void run_cvta(Ctx& c, const DecodedInst& in, uint32_t m) {
  uint64_t *d = c.R + in.d[0], *a = c.R + in.s[0];
  uint64_t base = static_cast<uint64_t>(in.imm), mask = in.bytes == 4 ? 0xffffffffull : ~0ull;
  each_lane(m, [&](unsigned l) { d[l] = (ToGeneric ? a[l] + base : a[l] - base) & mask; });
}

uint64_t window_of(Decoder& dc) {
  switch (dc.mods().space) {
    case Space::Shared: return kSharedWindow;
    case Space::Local: return kLocalWindow;
    case Space::Global: case Space::Const: return 0;
    default: dc.fail("unsupported state space for cvta");
  }
}

void decode_cvta(Decoder& dc, DecodedInst& out) {
  bool to = dc.mods().take("to");
  ptx::Type t = dc.type();
  out.imm = static_cast<int64_t>(window_of(dc));
  out.bytes = static_cast<uint8_t>(type_bytes(t));
  out.fn = to ? run_cvta<false> : run_cvta<true>;
  plain_operands(dc, out, t, 1);
}

void run_isspacep(Ctx& c, const DecodedInst& in, uint32_t m) {
  uint64_t *d = c.R + in.d[0], *a = c.R + in.s[0];
  auto sp = static_cast<Space>(in.sub);
  each_lane(m, [&](unsigned l) {
    bool shared = a[l] - kSharedWindow < kWindowBytes, local = a[l] - kLocalWindow < kWindowBytes;
    d[l] = sp == Space::Shared ? shared : sp == Space::Local ? local : !shared && !local;
  });
}

void decode_isspacep(Decoder& dc, DecodedInst& out) {
  out.sub = static_cast<uint8_t>(dc.mods().space);
  out.fn = run_isspacep;
  plain_operands(dc, out, ptx::Type::U64, 1);
}

// --- cp.async (a plain copy) and prefetches ---

// s[0]: destination shared address, s[1]: source global address (imm2 in aux), in.bytes copied,
// s[2]: bytes read from the source (the rest zero-filled).
void run_cp_async(Ctx& c, const DecodedInst& in, uint32_t m) {
  each_lane(m, [&](unsigned l) {
    if (c.faulted) return;
    uint64_t src_bytes = std::min<uint64_t>(c.R[in.s[2] + l], in.bytes);
    Space gs = Space::Global, ss = Space::Shared;
    uint64_t saddr = c.R[in.s[1] + l] + static_cast<int32_t>(in.aux), daddr = lane_address(c, in, l);
    uint8_t* dst = lane_ptr(c, in, ss, daddr, in.bytes, l);
    const uint8_t* src = dst && src_bytes ? lane_ptr(c, in, gs, saddr, in.bytes, l) : nullptr;
    if (!dst || (src_bytes && !src)) return;
    uint8_t buf[16] = {};
    if (src) std::memcpy(buf, src, src_bytes);
    std::memcpy(dst, buf, in.bytes);
    c.addrs[l] = saddr;
  });
  c.step_space = Space::Global;
  c.step_bytes = in.bytes;
}

void run_nothing(Ctx&, const DecodedInst&, uint32_t) {}

void decode_cp(Decoder& dc, DecodedInst& out) {
  Mods& m = dc.mods();
  if (!m.take("async")) dc.fail("unsupported cp form");
  if (m.take("bulk")) return decode_cp_async_bulk(dc, out);
  if (m.take_one({"commit_group", "wait_group", "wait_all"}) >= 0) {
    out.fn = run_nothing;
    return;
  }
  if (m.take("mbarrier")) {
    if (!m.take("arrive")) dc.fail("unsupported cp.async.mbarrier form");
    decode_cp_async_mbarrier_arrive(dc, out);
    return;
  }
  m.take("global");
  // [dst], [src], cp-size {, src-size} {, cache-policy with .L2::cache_hint}
  size_t nops = dc.nops() - has_cache_hint(dc);
  if (nops < 3 || nops > 4) dc.fail("cp.async needs destination, source and size (and a source size)");
  dc.address(0, out, 0);
  DecodedInst src;
  dc.address(1, src, 1);
  out.s[1] = src.s[1];
  out.aux = static_cast<uint32_t>(src.imm);
  const ptx::Operand& size = dc.op(2);
  if (size.kind != ptx::Operand::Kind::Imm || (size.imm != 4 && size.imm != 8 && size.imm != 16))
    dc.fail("cp.async size must be 4, 8 or 16");
  out.bytes = static_cast<uint8_t>(size.imm);
  out.s[2] = nops > 3 ? dc.src(3, ptx::Type::U32) : dc.constant(static_cast<uint64_t>(size.imm));
  out.space = Space::Shared;
  out.cache = m.cache;  // cp.async.cg: the global read bypasses the L1
  out.fn = run_cp_async;
}

// --- createpolicy ---

// A cache policy is an opaque 64-bit value that only .L2::cache_hint
// accesses read, and their hint changes no result; so warpsim's encoding
// only keeps requests apart: kind and priorities in the low byte and a half
// (fixed per instruction), the fraction's f32 bits or the primary size above
// (per lane). createpolicy.cvt passes its operand through.
enum PolicyKind : uint8_t { kFractional = 1, kRange = 2, kCvt = 3 };

void run_createpolicy(Ctx& c, const DecodedInst& in, uint32_t m) {
  each_lane(m, [&](unsigned l) {
    uint64_t v = c.R[in.s[0] + l];
    c.R[in.d[0] + l] = in.sub == kCvt ? v : static_cast<uint64_t>(in.imm) | (v & 0xffffffffull) << 32;
  });
}

void decode_createpolicy(Decoder& dc, DecodedInst& out) {
  Mods& m = dc.mods();
  int kind = m.take_one({"fractional", "range", "cvt"});
  if (kind < 0) dc.fail("createpolicy needs .fractional, .range or .cvt");
  if (dc.type() != ptx::Type::B64) dc.fail("createpolicy makes a .b64 policy");
  out.sub = static_cast<uint8_t>(kind + 1);
  out.d[0] = dc.dst(0);
  out.nd = 1;
  out.ns = 1;
  out.fn = run_createpolicy;
  if (out.sub == kCvt) {
    m.take("L2");
    if (dc.nops() != 2) dc.fail("createpolicy.cvt takes a policy and an access property");
    out.s[0] = dc.src(1, ptx::Type::B64);
    return;
  }
  static constexpr const char* kPriorities[] = {"L2::evict_last", "L2::evict_normal", "L2::evict_first",
                                                "L2::evict_unchanged"};
  uint64_t code = out.sub, shift = 4;
  for (const std::string& w : dc.inst().mods)
    for (uint64_t p = 0; p < 4; ++p)
      if (w == kPriorities[p]) code |= (p + 1) << shift, shift += 4;
  if (shift == 4) dc.fail("createpolicy needs an .L2::evict_* priority");
  out.imm = static_cast<int64_t>(code);
  if (out.sub == kFractional) {  // policy {, fraction}: the fraction defaults to 1.0
    if (dc.nops() != 1 && dc.nops() != 2) dc.fail("createpolicy.fractional takes a policy and a fraction");
    out.s[0] = dc.nops() == 2 ? dc.src(1, ptx::Type::F32) : dc.constant(0x3f800000);
    return;
  }
  if (dc.nops() != 4) dc.fail("createpolicy.range takes a policy, [address], primary size and total size");
  out.s[0] = dc.src(2, ptx::Type::U32);
}

// prefetch{.space}.{L1,L2} [a], prefetch.global.L2::evict_* [a],
// prefetch{.const,.param}.tensormap [a], prefetchu.L1 [a]: cache hints that
// move no data (the eviction-priority forms are ignorable modifiers).
void decode_nothing(Decoder& dc, DecodedInst& out) {
  Mods& m = dc.mods();
  m.take("tensormap");
  m.take_one({"L1", "L2"});
  out.fn = run_nothing;
}

}  // namespace

uint8_t* space_ptr(Ctx& c, const DecodedInst& in, Space& sp, uint64_t& addr, unsigned bytes, unsigned lane) {
  return lane_ptr(c, in, sp, addr, bytes, lane);
}

const uint8_t* generic_ptr(Ctx& c, const DecodedInst& in, uint64_t addr, unsigned bytes, unsigned lane) {
  Space sp = Space::Generic;
  return lane_ptr(c, in, sp, addr, bytes, lane);
}

void register_memory_ops(DecodeTable& t) {
  t["ld"] = decode_access<false>;
  t["ldu"] = decode_access<false>;
  t["st"] = decode_access<true>;
  t["createpolicy"] = decode_createpolicy;
  t["atom"] = decode_atomic<false>;
  t["red"] = decode_atomic<true>;
  t["cvta"] = decode_cvta;
  t["isspacep"] = decode_isspacep;
  t["cp"] = decode_cp;
  t["prefetch"] = decode_nothing;
  t["prefetchu"] = decode_nothing;
}

}  // namespace ws::exec::emu
