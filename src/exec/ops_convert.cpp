// Comparisons, selects, moves and conversions (cvt between every integer
// and float width, with rounding, saturation and flush-to-zero).
#include <cmath>
#include <limits>

#include "exec/half.h"
#include "exec/ops_common.h"

namespace ws::exec::emu {

namespace {

enum Cmp : uint8_t { Eq, Ne, Lt, Le, Gt, Ge, Lo, Ls, Hi, Hs, Equ, Neu, Ltu, Leu, Gtu, Geu, Num, Nan };
constexpr const char* kCmpNames[] = {"eq",  "ne",  "lt",  "le",  "gt",  "ge",  "lo",  "ls",  "hi",
                                     "hs",  "equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan"};

template <class T>
bool compare(uint8_t op, T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    bool un = std::isnan(a) || std::isnan(b);
    switch (op) {
      case Eq: return !un && a == b;
      case Ne: return !un && a != b;
      case Lt: return !un && a < b;
      case Le: return !un && a <= b;
      case Gt: return !un && a > b;
      case Ge: return !un && a >= b;
      case Equ: return un || a == b;
      case Neu: return un || a != b;
      case Ltu: return un || a < b;
      case Leu: return un || a <= b;
      case Gtu: return un || a > b;
      case Geu: return un || a >= b;
      case Num: return !un;
      case Nan: return un;
      default: return false;
    }
  } else {
    using U = std::make_unsigned_t<T>;
    switch (op) {
      case Eq: return a == b;
      case Ne: return a != b;
      case Lt: return a < b;
      case Le: return a <= b;
      case Gt: return a > b;
      case Ge: return a >= b;
      case Lo: return U(a) < U(b);
      case Ls: return U(a) <= U(b);
      case Hi: return U(a) > U(b);
      case Hs: return U(a) >= U(b);
      default: return false;
    }
  }
}

// Operand readers: plain types, and f16/bf16 widened to float.
template <class T>
struct Load {
  static T at(const uint64_t* r, unsigned l) { return get<T>(r, l); }
};
struct LoadHalf {
  static float at(const uint64_t* r, unsigned l) { return f16_to_f32(get<uint16_t>(r, l)); }
};
struct LoadBHalf {
  static float at(const uint64_t* r, unsigned l) { return bf16_to_f32(get<uint16_t>(r, l)); }
};

inline bool combine(uint32_t op, bool a, bool b) {
  switch (op) {
    case 1: return a && b;
    case 2: return a || b;
    case 3: return a != b;
    default: return a;
  }
}

// setp: p = cmp BOP c, q = !cmp BOP c.  set: d = all ones / 1.0f when true (aux bit 8: float result).
template <class L, bool Set>
void run_compare(Ctx& c, const DecodedInst& in, uint32_t m) {
  uint64_t* R = c.R;
  uint64_t *p = R + in.d[0], *q = R + in.d[1], *a = R + in.s[0], *b = R + in.s[1], *pc = R + in.s[2];
  bool has_c = in.flags & kHasPred, neg = in.flags & kNeg;
  uint32_t bop = in.aux & 0xff;
  each_lane(m, [&](unsigned l) {
    bool r = compare(in.sub, L::at(a, l), L::at(b, l));
    bool cv = has_c && (((pc[l] & 1) != 0) != neg);
    bool v = has_c ? combine(bop, r, cv) : r;
    if constexpr (Set) {
      p[l] = (in.aux & 0x100) ? (v ? 0x3f800000u : 0u) : (v ? 0xffffffffu : 0u);
    } else {
      p[l] = v;
      if (in.nd == 2) q[l] = has_c ? combine(bop, !r, cv) : !r;
    }
  });
}

// setp on f16x2/bf16x2: p compares the low halves, q the high halves (each combined with c).
template <bool Brain>
void run_compare_pair(Ctx& c, const DecodedInst& in, uint32_t m) {
  uint64_t* R = c.R;
  uint64_t *p = R + in.d[0], *q = R + in.d[1], *a = R + in.s[0], *b = R + in.s[1], *pc = R + in.s[2];
  bool has_c = in.flags & kHasPred, neg = in.flags & kNeg;
  uint32_t bop = in.aux & 0xff;
  auto half = [](uint64_t bits, unsigned shift) {
    auto h = static_cast<uint16_t>(bits >> shift);
    return Brain ? bf16_to_f32(h) : f16_to_f32(h);
  };
  each_lane(m, [&](unsigned l) {
    bool lo = compare(in.sub, half(a[l], 0), half(b[l], 0)), hi = compare(in.sub, half(a[l], 16), half(b[l], 16));
    bool cv = has_c && (((pc[l] & 1) != 0) != neg);
    p[l] = has_c ? combine(bop, lo, cv) : lo;
    q[l] = has_c ? combine(bop, hi, cv) : hi;
  });
}

template <bool Set>
ExecFn compare_handler(ptx::Type t) {
  switch (t) {
    case ptx::Type::F16: return run_compare<LoadHalf, Set>;
    case ptx::Type::BF16: return run_compare<LoadBHalf, Set>;
    case ptx::Type::F32: return run_compare<Load<float>, Set>;
    case ptx::Type::F64: return run_compare<Load<double>, Set>;
    case ptx::Type::U16: case ptx::Type::B16: return run_compare<Load<uint16_t>, Set>;
    case ptx::Type::S16: return run_compare<Load<int16_t>, Set>;
    case ptx::Type::U32: case ptx::Type::B32: return run_compare<Load<uint32_t>, Set>;
    case ptx::Type::S32: return run_compare<Load<int32_t>, Set>;
    case ptx::Type::U64: case ptx::Type::B64: return run_compare<Load<uint64_t>, Set>;
    case ptx::Type::S64: return run_compare<Load<int64_t>, Set>;
    default: return nullptr;
  }
}

template <bool Set>
void decode_compare(Decoder& dc, DecodedInst& out) {
  Mods& m = dc.mods();
  int cmp = -1;
  for (size_t i = 0; i < std::size(kCmpNames) && cmp < 0; ++i)
    if (m.take(kCmpNames[i])) cmp = static_cast<int>(i);
  if (cmp < 0 && m.lo) cmp = Lo;  // .lo/.hi were taken for mul's meaning
  if (cmp < 0 && m.hi) cmp = Hi;
  if (cmp < 0) dc.fail("missing comparison operator");
  out.sub = static_cast<uint8_t>(cmp);
  out.aux = static_cast<uint32_t>(m.take_one({"and", "or", "xor"}) + 1);
  bool has_bop = out.aux != 0;
  ptx::Type t = dc.type(Set ? 1 : 0);
  if (Set) {
    ptx::Type dt = dc.type(0);
    if (dt == ptx::Type::F32) out.aux |= 0x100;
    else if (type_bytes(dt) != 4 || is_float(dt)) dc.fail("unsupported destination type for set");
  }
  bool pair = t == ptx::Type::F16x2 || t == ptx::Type::BF16x2;
  out.fn = pair ? (Set ? nullptr : t == ptx::Type::BF16x2 ? run_compare_pair<true> : run_compare_pair<false>)
                : compare_handler<Set>(t);
  dc.need(out.fn);
  size_t want = 3 + (has_bop ? 1 : 0);
  size_t ndst = (!Set && dc.nops() == want + 1) ? 2 : 1;
  if (pair && ndst != 2) dc.fail("setp on a pair needs two destinations p|q");
  if (dc.nops() != want + ndst - 1) dc.fail("wrong number of operands");
  out.d[0] = dc.dst(0);
  out.nd = static_cast<uint8_t>(ndst);
  if (ndst == 2) out.d[1] = dc.dst(1);
  out.s[0] = dc.src(ndst, t);
  out.s[1] = dc.src(ndst + 1, t);
  if (has_bop) {
    const ptx::Operand& c = dc.op(ndst + 2);
    out.flags |= kHasPred | (c.negate ? kNeg : 0);
    ptx::Operand plain = c;
    plain.negate = false;
    out.s[2] = dc.src_operand(plain, ptx::Type::Pred);
  }
}

void run_selp(Ctx& c, const DecodedInst& in, uint32_t m) {
  uint64_t* R = c.R;
  uint64_t *d = R + in.d[0], *a = R + in.s[0], *b = R + in.s[1], *p = R + in.s[2];
  each_lane(m, [&](unsigned l) { d[l] = (p[l] & 1) ? a[l] : b[l]; });
}

void decode_selp(Decoder& dc, DecodedInst& out) {
  ptx::Type t = dc.type();
  out.fn = run_selp;
  plain_operands(dc, out, t, 3);
  out.s[2] = dc.src(3, ptx::Type::Pred);
}

template <class C>
void run_slct(Ctx& c, const DecodedInst& in, uint32_t m) {
  uint64_t* R = c.R;
  uint64_t *d = R + in.d[0], *a = R + in.s[0], *b = R + in.s[1], *k = R + in.s[2];
  each_lane(m, [&](unsigned l) {
    C v = get<C>(k, l);
    if constexpr (std::is_floating_point_v<C>)
      if ((in.flags & kFtz) && std::fpclassify(v) == FP_SUBNORMAL) v = 0;
    d[l] = v >= 0 ? a[l] : b[l];
  });
}

void decode_slct(Decoder& dc, DecodedInst& out) {
  ptx::Type t = dc.type(0), ct = dc.type(1);
  out.fn = ct == ptx::Type::F32 ? run_slct<float> : ct == ptx::Type::S32 ? run_slct<int32_t> : nullptr;
  out.fn = dc.need(out.fn);
  if (dc.mods().ftz) out.flags |= kFtz;
  plain_operands(dc, out, t, 3);
  out.s[2] = dc.src(3, ct);
}

// --- mov ---

void run_mov(Ctx& c, const DecodedInst& in, uint32_t m) {
  uint64_t *d = c.R + in.d[0], *a = c.R + in.s[0];
  each_lane(m, [&](unsigned l) { d[l] = a[l]; });
}

void run_mov_local_symbol(Ctx& c, const DecodedInst& in, uint32_t m) {
  uint64_t* d = c.R + in.d[0];
  uint64_t v = c.w->frames.back().local_base + static_cast<uint64_t>(in.imm);
  each_lane(m, [&](unsigned l) { d[l] = v; });
}

// {a, b, ...} <-> d: element i occupies bits [i*bits, (i+1)*bits). in.bytes: element size.
void run_pack(Ctx& c, const DecodedInst& in, uint32_t m) {
  uint64_t* d = c.R + in.d[0];
  unsigned bits = 8u * in.bytes;
  uint64_t mask = bits == 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
  each_lane(m, [&](unsigned l) {
    uint64_t v = 0;
    for (unsigned i = 0; i < in.ns; ++i) v |= (c.R[in.s[i] + l] & mask) << (i * bits);
    d[l] = v;
  });
}

void run_unpack(Ctx& c, const DecodedInst& in, uint32_t m) {
  uint64_t* a = c.R + in.s[0];
  unsigned bits = 8u * in.bytes;
  uint64_t mask = bits == 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
  each_lane(m, [&](unsigned l) {
    uint64_t v = a[l];
    for (unsigned i = 0; i < in.nd; ++i) c.R[in.d[i] + l] = (v >> (i * bits)) & mask;
  });
}

// Copies s[i] to d[i] for i < nd, every source read before any write
// (a .b128 value moves as its two 64-bit halves).
void run_mov_halves(Ctx& c, const DecodedInst& in, uint32_t m) {
  each_lane(m, [&](unsigned l) {
    uint64_t lo = c.R[in.s[0] + l], hi = c.R[in.s[1] + l];
    c.R[in.d[0] + l] = lo;
    c.R[in.d[1] + l] = hi;
  });
}

// mov.b128: d <- {lo, hi} packs two 64-bit values, {lo, hi} <- s unpacks, d <- s copies.
void decode_mov_b128(Decoder& dc, DecodedInst& out) {
  const ptx::Operand &dst = dc.op(0), &src = dc.op(1);
  auto halves = [&](const ptx::Operand& o, bool is_dst, uint32_t& lo, uint32_t& hi) {
    if (o.kind == ptx::Operand::Kind::Vector) {
      if (o.elems.size() != 2) dc.fail("a .b128 vector operand has two 64-bit elements");
      lo = is_dst ? dc.dst_operand(o.elems[0]) : dc.src_operand(o.elems[0], ptx::Type::B64);
      hi = is_dst ? dc.dst_operand(o.elems[1]) : dc.src_operand(o.elems[1], ptx::Type::B64);
    } else {
      lo = is_dst ? dc.dst_operand(o) : dc.src_operand(o, ptx::Type::B64);
      hi = dc.high_half(o);
    }
  };
  halves(dst, true, out.d[0], out.d[1]);
  halves(src, false, out.s[0], out.s[1]);
  out.nd = out.ns = 2;
  out.fn = run_mov_halves;
}

void decode_mov(Decoder& dc, DecodedInst& out) {
  ptx::Type t = dc.type();
  if (dc.nops() != 2) dc.fail("mov takes two operands");
  if (t == ptx::Type::B128) return decode_mov_b128(dc, out);
  const ptx::Operand &dst = dc.op(0), &src = dc.op(1);
  using K = ptx::Operand::Kind;
  if (dst.kind == K::Vector || src.kind == K::Vector) {
    bool pack = src.kind == K::Vector;
    const auto& elems = pack ? src.elems : dst.elems;
    if (elems.empty() || elems.size() > 4 || type_bytes(t) % elems.size()) dc.fail("bad vector operand");
    out.bytes = static_cast<uint8_t>(type_bytes(t) / elems.size());
    if (pack) {
      out.fn = run_pack, out.d[0] = dc.dst(0), out.nd = 1, out.ns = static_cast<uint8_t>(elems.size());
      for (size_t i = 0; i < elems.size(); ++i) out.s[i] = dc.src_operand(elems[i], ptx::Type::None);
    } else {
      out.fn = run_unpack, out.s[0] = dc.src(1, t), out.ns = 1, out.nd = static_cast<uint8_t>(elems.size());
      for (size_t i = 0; i < elems.size(); ++i) out.d[i] = dc.dst_operand(elems[i]);
    }
    return;
  }
  out.d[0] = dc.dst(0);
  out.nd = 1;
  if (src.kind == K::Symbol) {
    ptx::StateSpace sp;
    uint64_t a = dc.symbol_address(src.symbol, sp, out.flags, src.local);
    if (out.flags & kFrameLocal) {
      out.fn = run_mov_local_symbol;
      out.imm = static_cast<int64_t>(a) + src.imm;
      return;
    }
  }
  out.fn = run_mov;
  out.s[0] = dc.src(1, t);
  out.ns = 1;
}

// --- cvt ---

struct Scalar {
  bool fp = false, is_signed = false;
  double f = 0;
  int64_t s = 0;
  uint64_t u = 0;
};

Scalar read_scalar(uint64_t raw, ptx::Type t) {
  Scalar v;
  auto set_int = [&](int64_t s, bool sign) { v.s = s, v.u = static_cast<uint64_t>(s), v.is_signed = sign; };
  switch (t) {
    case ptx::Type::S8: set_int(static_cast<int8_t>(raw), true); break;
    case ptx::Type::S16: set_int(static_cast<int16_t>(raw), true); break;
    case ptx::Type::S32: set_int(static_cast<int32_t>(raw), true); break;
    case ptx::Type::S64: set_int(static_cast<int64_t>(raw), true); break;
    case ptx::Type::U8: case ptx::Type::B8: set_int(static_cast<uint8_t>(raw), false); break;
    case ptx::Type::U16: case ptx::Type::B16: set_int(static_cast<uint16_t>(raw), false); break;
    case ptx::Type::U32: case ptx::Type::B32: set_int(static_cast<uint32_t>(raw), false); break;
    case ptx::Type::U64: case ptx::Type::B64: v.u = raw, v.s = static_cast<int64_t>(raw); break;
    case ptx::Type::F16: v.fp = true, v.f = f16_to_f32(static_cast<uint16_t>(raw)); break;
    case ptx::Type::BF16: v.fp = true, v.f = bf16_to_f32(static_cast<uint16_t>(raw)); break;
    case ptx::Type::F32: v.fp = true, v.f = get<float>(&raw, 0); break;
    default: v.fp = true, v.f = get<double>(&raw, 0); break;
  }
  return v;
}

struct IntRange {
  long double lo, hi;
  bool is_signed;
  unsigned bits;
};
IntRange int_range(ptx::Type t) {
  unsigned bits = 8 * type_bytes(t);
  if (is_signed_int(t)) return {-std::ldexp(1.0L, bits - 1), std::ldexp(1.0L, bits - 1) - 1, true, bits};
  return {0, std::ldexp(1.0L, bits) - 1, false, bits};
}

// Integer result bits, extended to 64 per the destination's signedness.
uint64_t to_int(const Scalar& v, ptx::Type dt, const DecodedInst& in) {
  IntRange r = int_range(dt);
  long double x;
  if (v.fp) {
    if (std::isnan(v.f)) return 0;
    x = round_to_integer(v.f, in.rnd);  // float -> int always saturates
  } else if (in.flags & kSat) {
    x = v.is_signed ? static_cast<long double>(v.s) : static_cast<long double>(v.u);
  } else {
    uint64_t bits = v.u;
    if (r.bits < 64) bits &= (uint64_t{1} << r.bits) - 1;
    if (r.is_signed && r.bits < 64 && (bits >> (r.bits - 1)) & 1) bits |= ~uint64_t{0} << r.bits;
    return bits;
  }
  x = std::max(r.lo, std::min(r.hi, x));
  return r.is_signed ? static_cast<uint64_t>(static_cast<int64_t>(x)) : static_cast<uint64_t>(x);
}

double clamp01(double x) { return std::isnan(x) ? 0.0 : std::max(0.0, std::min(1.0, x)); }
// .relu: negative results (and -0) become +0; NaN stays NaN.
double relu(double x) { return x > 0 || std::isnan(x) ? x : 0.0; }

uint64_t to_float(const Scalar& v, ptx::Type dt, const DecodedInst& in) {
  bool ftz = in.flags & kFtz;
  double x = v.fp ? v.f : v.is_signed ? static_cast<double>(v.s) : static_cast<double>(v.u);
  if (ftz && v.fp && std::fabs(x) < 1.1754943508222875e-38) x = std::copysign(0.0, x);
  if (in.flags & kIntRound) x = round_to_integer(x, in.rnd);
  if (in.flags & kSat) x = clamp01(x);
  if (in.flags & kRelu) x = relu(x);
  uint64_t bits = 0;
  switch (dt) {
    case ptx::Type::F16: return f64_to_f16(x, in.rnd);
    case ptx::Type::BF16: return f64_to_bf16(x, in.rnd);
    case ptx::Type::F32: {
      // Integers go straight to float (no double rounding); the handler runs under the mode.
      float f = v.fp ? f64_to_f32(x, in.rnd) : v.is_signed ? static_cast<float>(v.s) : static_cast<float>(v.u);
      if (in.flags & kSat) f = static_cast<float>(clamp01(f));
      if (ftz && std::fpclassify(f) == FP_SUBNORMAL) f = std::copysign(0.0f, f);
      put(&bits, 0, f);
      return bits;
    }
    default: put(&bits, 0, x); return bits;
  }
}

// in.sub: destination type, in.aux: source type.
void run_cvt(Ctx& c, const DecodedInst& in, uint32_t m) {
  uint64_t *d = c.R + in.d[0], *a = c.R + in.s[0];
  auto dt = static_cast<ptx::Type>(in.sub), st = static_cast<ptx::Type>(in.aux);
  bool float_dst = is_float(dt);
  each_lane(m, [&](unsigned l) {
    Scalar v = read_scalar(a[l], st);
    d[l] = float_dst ? to_float(v, dt, in) : to_int(v, dt, in);
  });
}

// cvt.rn.f16x2.f32 d, a, b: d = {a -> high half, b -> low half}.
template <bool Brain>
void run_cvt_pair(Ctx& c, const DecodedInst& in, uint32_t m) {
  uint64_t *d = c.R + in.d[0], *a = c.R + in.s[0], *b = c.R + in.s[1];
  auto conv = [&](float f) -> uint32_t {
    double x = (in.flags & kSat) ? clamp01(f) : (in.flags & kRelu) ? relu(f) : f;
    return Brain ? f64_to_bf16(x, in.rnd) : f64_to_f16(x, in.rnd);
  };
  each_lane(m, [&](unsigned l) { d[l] = conv(get<float>(b, l)) | conv(get<float>(a, l)) << 16; });
}

// cvt.rna.tf32.f32: the f32 rounded to 11 significant bits (its low 13 mantissa
// bits zero); NaN gives the canonical 0x7fffffff; .satfinite clamps infinities.
void run_cvt_tf32(Ctx& c, const DecodedInst& in, uint32_t m) {
  uint64_t *d = c.R + in.d[0], *a = c.R + in.s[0];
  const double max_finite = std::ldexp(2.0 - std::ldexp(1.0, -10), 127);
  each_lane(m, [&](unsigned l) {
    float f = get<float>(a, l);
    if (std::isnan(f)) return void(d[l] = 0x7fffffffu);
    double y = round_to_precision(f, 11, -126, max_finite, in.rnd);
    if ((in.flags & kSatFinite) && std::isinf(y)) y = std::copysign(max_finite, y);
    put(d, l, static_cast<float>(y));
  });
}

void decode_cvt(Decoder& dc, DecodedInst& out) {
  Mods& m = dc.mods();
  ptx::Type dt = dc.type(0), st = dc.type(1);
  if (m.ftz) out.flags |= kFtz;
  if (m.sat) out.flags |= kSat;
  if (m.int_rnd) out.flags |= kIntRound;
  out.rnd = m.has_rnd ? m.rnd : (is_float(st) && !is_float(dt)) ? Rounding::Rz : Rounding::Rn;
  if (m.take("relu")) {
    if (dt != ptx::Type::F16 && dt != ptx::Type::BF16 && dt != ptx::Type::F16x2 && dt != ptx::Type::BF16x2)
      dc.fail("cvt .relu needs an f16/bf16 destination");
    out.flags |= kRelu;
  }
  if (m.take("satfinite")) out.flags |= kSatFinite;
  if (dt == ptx::Type::TF32) {
    if (st != ptx::Type::F32 || !m.has_rnd) dc.fail("cvt to tf32 needs an f32 source and a rounding mode");
    out.fn = run_cvt_tf32;
    plain_operands(dc, out, st, 1);
    return;
  }
  if ((out.flags & kSatFinite)) dc.fail("unsupported modifier '.satfinite'");
  if (dt == ptx::Type::F16x2 || dt == ptx::Type::BF16x2) {
    if (st != ptx::Type::F32) dc.fail("unsupported source type for a packed cvt");
    out.fn = dt == ptx::Type::BF16x2 ? run_cvt_pair<true> : run_cvt_pair<false>;
    plain_operands(dc, out, st, 2);
    return;
  }
  auto scalar = [](ptx::Type t) { return type_bytes(t) && type_bytes(t) <= 8 && t != ptx::Type::Pred && t != ptx::Type::TF32 && t != ptx::Type::F16x2 && t != ptx::Type::BF16x2; };
  if (!scalar(dt) || !scalar(st)) dc.fail("unsupported cvt types");
  out.fn = run_cvt;
  out.sub = static_cast<uint8_t>(dt);
  out.aux = static_cast<uint32_t>(st);
  plain_operands(dc, out, st, 1);
  if (!is_float(st) && (dt == ptx::Type::F32 || dt == ptx::Type::F64)) apply_rounding(out);
}

}  // namespace

void register_convert_ops(DecodeTable& t) {
  t["setp"] = decode_compare<false>;
  t["set"] = decode_compare<true>;
  t["selp"] = decode_selp;
  t["slct"] = decode_slct;
  t["mov"] = decode_mov;
  t["cvt"] = decode_cvt;
}

}  // namespace ws::exec::emu
