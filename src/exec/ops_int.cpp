// Integer and bitwise instructions. Signed arithmetic wraps (computed on the
// unsigned type). Division by zero is defined, not trapped: x / 0 gives all
// ones (-1 signed) and x % 0 gives x; INT_MIN / -1 gives INT_MIN.
#include <algorithm>
#include <bit>
#include <limits>

#include "exec/ops_common.h"

namespace ws::exec::emu {

namespace {

template <class T>
using Wide = std::conditional_t<sizeof(T) == 2, std::conditional_t<std::is_signed_v<T>, int32_t, uint32_t>,
                                std::conditional_t<std::is_signed_v<T>, int64_t, uint64_t>>;

struct Add { template <class T> static T f(T a, T b) { return T(Unsigned<T>(a) + Unsigned<T>(b)); } };
struct Sub { template <class T> static T f(T a, T b) { return T(Unsigned<T>(a) - Unsigned<T>(b)); } };
struct AddSat {
  template <class T> static T f(T a, T b) {
    int64_t r = int64_t{a} + int64_t{b};
    return T(std::clamp<int64_t>(r, std::numeric_limits<T>::min(), std::numeric_limits<T>::max()));
  }
};
struct SubSat {
  template <class T> static T f(T a, T b) {
    int64_t r = int64_t{a} - int64_t{b};
    return T(std::clamp<int64_t>(r, std::numeric_limits<T>::min(), std::numeric_limits<T>::max()));
  }
};
struct MulLo {
  template <class T> static T f(T a, T b) {
    using U = std::conditional_t<sizeof(T) < 4, uint32_t, Unsigned<T>>;  // avoid int promotion overflow
    return T(U(Unsigned<T>(a)) * U(Unsigned<T>(b)));
  }
};
struct MulHi {
  template <class T> static T f(T a, T b) {
    if constexpr (sizeof(T) == 8) {
      using P = std::conditional_t<std::is_signed_v<T>, __int128, unsigned __int128>;
      return T((P(a) * P(b)) >> 64);
    } else {
      using P = std::conditional_t<std::is_signed_v<T>, int64_t, uint64_t>;
      return T((P(a) * P(b)) >> (8 * sizeof(T)));
    }
  }
};
struct MulWide {
  template <class T> static Wide<T> f(T a, T b) {
    using U = Unsigned<Wide<T>>;
    return Wide<T>(U(Wide<T>(a)) * U(Wide<T>(b)));
  }
};
struct MadLo { template <class T> static T f(T a, T b, T c) { return Add::f(MulLo::f(a, b), c); } };
struct MadHi { template <class T> static T f(T a, T b, T c) { return Add::f(MulHi::f(a, b), c); } };
struct MadWide {
  template <class T, class W> static W f(T a, T b, W c) { return Add::f(MulWide::f(a, b), c); }
};
struct Div {
  template <class T> static T f(T a, T b) {
    if (b == 0) return T(~Unsigned<T>(0));
    if constexpr (std::is_signed_v<T>)
      if (a == std::numeric_limits<T>::min() && b == T(-1)) return a;
    return T(a / b);
  }
};
struct Rem {
  template <class T> static T f(T a, T b) {
    if (b == 0) return a;
    if constexpr (std::is_signed_v<T>)
      if (b == T(-1)) return 0;
    return T(a % b);
  }
};
struct Min { template <class T> static T f(T a, T b) { return b < a ? b : a; } };
struct Max { template <class T> static T f(T a, T b) { return a < b ? b : a; } };
struct Abs {
  template <class T> static T f(T a) {
    if constexpr (std::is_signed_v<T>) return a < 0 ? T(Unsigned<T>(0) - Unsigned<T>(a)) : a;
    return a;
  }
};
struct Neg { template <class T> static T f(T a) { return T(Unsigned<T>(0) - Unsigned<T>(a)); } };
struct Sad {
  template <class T> static T f(T a, T b, T c) {
    Unsigned<T> diff = a < b ? Unsigned<T>(b) - Unsigned<T>(a) : Unsigned<T>(a) - Unsigned<T>(b);
    return T(diff + Unsigned<T>(c));
  }
};
struct And { template <class T> static T f(T a, T b) { return T(a & b); } };
struct Or { template <class T> static T f(T a, T b) { return T(a | b); } };
struct Xor { template <class T> static T f(T a, T b) { return T(a ^ b); } };
struct Not { template <class T> static T f(T a) { return T(~a); } };
struct NotPred { template <class T> static T f(T a) { return T(a ? 0 : 1); } };
struct CNot { template <class T> static T f(T a) { return T(a == 0 ? 1 : 0); } };
struct Popc { template <class T> static uint32_t f(T a) { return std::popcount(Unsigned<T>(a)); } };
struct Clz { template <class T> static uint32_t f(T a) { return std::countl_zero(Unsigned<T>(a)); } };
struct Brev {
  template <class T> static T f(T a) {
    Unsigned<T> v = Unsigned<T>(a), r = 0;
    for (unsigned i = 0; i < 8 * sizeof(T); ++i, v >>= 1) r = Unsigned<T>((r << 1) | (v & 1));
    return T(r);
  }
};
// Position of the most significant non-sign bit; 0xffffffff when none.
template <bool ShiftAmount>
struct Bfind {
  template <class T> static uint32_t f(T a) {
    Unsigned<T> v = Unsigned<T>(a);
    if constexpr (std::is_signed_v<T>)
      if (a < 0) v = Unsigned<T>(~v);
    if (v == 0) return 0xffffffffu;
    uint32_t msb = 8 * sizeof(T) - 1 - std::countl_zero(v);
    return ShiftAmount ? 8 * sizeof(T) - 1 - msb : msb;
  }
};
struct Bfe {
  template <class T> static T f(T a, T bpos, uint32_t clen) {
    constexpr unsigned kBits = 8 * sizeof(T);
    unsigned pos = unsigned(bpos) & 0xff, len = clen & 0xff;
    Unsigned<T> v = Unsigned<T>(a), r = 0;
    bool sbit = false;
    if constexpr (std::is_signed_v<T>) {
      unsigned top = pos + len - 1 > kBits - 1 ? kBits - 1 : pos + len - 1;
      sbit = len != 0 && ((v >> top) & 1);
    }
    for (unsigned i = 0; i < kBits; ++i) {
      bool bit = (i < len && pos + i < kBits) ? ((v >> (pos + i)) & 1) : sbit;
      r |= Unsigned<T>(bit) << i;
    }
    return T(r);
  }
};
// prmt default mode: each result byte selects one of the 8 bytes of {b, a}
// by a nibble of c; selector bit 3 replicates that byte's sign bit instead.
struct Prmt {
  template <class T> static uint32_t f(T a, T b, T c) {
    uint64_t bytes = uint64_t(uint32_t(a)) | uint64_t(uint32_t(b)) << 32;
    uint32_t r = 0;
    for (unsigned i = 0; i < 4; ++i) {
      unsigned sel = (uint32_t(c) >> (4 * i)) & 0xf;
      uint32_t byte = (bytes >> (8 * (sel & 7))) & 0xff;
      if (sel & 8) byte = (byte & 0x80) ? 0xff : 0;
      r |= byte << (8 * i);
    }
    return r;
  }
};

// Shifts: the amount is u32; amounts beyond the width clamp (0, or sign fill).
template <class T, bool Left>
struct Shift {
  static void run(Ctx& c, const DecodedInst& in, uint32_t m) {
    uint64_t* R = c.R;
    uint64_t *d = R + in.d[0], *a = R + in.s[0], *b = R + in.s[1];
    constexpr uint32_t kBits = 8 * sizeof(T);
    each_lane(m, [&](unsigned l) {
      uint32_t n = std::min(get<uint32_t>(b, l), kBits);
      T v = get<T>(a, l);
      T r;
      if constexpr (Left) r = n >= kBits ? T(0) : T(Unsigned<T>(v) << n);
      else if constexpr (std::is_signed_v<T>) r = n >= kBits ? T(v < 0 ? -1 : 0) : T(v >> n);
      else r = n >= kBits ? T(0) : T(v >> n);
      put(d, l, r);
    });
  }
};
template <class T>
using Shl = Shift<Unsigned<T>, true>;
template <class T>
using Shr = Shift<T, false>;

// bfi f, a, b, pos, len: b with bits [pos, pos+len) taken from a.
template <class T>
struct Bfi {
  static void run(Ctx& c, const DecodedInst& in, uint32_t m) {
    uint64_t* R = c.R;
    uint64_t *d = R + in.d[0], *a = R + in.s[0], *b = R + in.s[1], *p = R + in.s[2], *n = R + in.s[3];
    constexpr unsigned kBits = 8 * sizeof(T);
    each_lane(m, [&](unsigned l) {
      unsigned pos = get<uint32_t>(p, l) & 0xff, len = get<uint32_t>(n, l) & 0xff;
      T r = get<T>(b, l);
      for (unsigned i = 0; i < len && pos + i < kBits; ++i) {
        T bit = T((get<T>(a, l) >> i) & 1);
        r = T((r & ~(T(1) << (pos + i))) | (bit << (pos + i)));
      }
      put(d, l, r);
    });
  }
};

// add.cc / addc / sub.cc / subc: the carry lives in a private register slot (s[2], d[1]).
template <class T, bool Subtract, bool CarryIn, bool CarryOut>
struct Carry {
  static void run(Ctx& c, const DecodedInst& in, uint32_t m) {
    uint64_t* R = c.R;
    uint64_t *d = R + in.d[0], *a = R + in.s[0], *b = R + in.s[1], *cf = R + in.s[2], *co = R + in.d[1];
    each_lane(m, [&](unsigned l) {
      T x = get<T>(a, l), y = get<T>(b, l);
      T cin = CarryIn ? T(cf[l] & 1) : T(0);
      T r;
      bool carry;
      if constexpr (Subtract) {
        r = T(x - y - cin);
        carry = x < y || (x - y) < cin;
      } else {
        T s = T(x + y);
        r = T(s + cin);
        carry = s < x || r < s;
      }
      put(d, l, r);
      if (CarryOut) co[l] = carry;
    });
  }
};

template <bool Subtract, bool CarryIn>
void decode_carry(Decoder& dc, DecodedInst& out) {
  reject_float_modifiers(dc);
  ptx::Type t = dc.type();
  bool is64 = type_bytes(t) == 8;
  if (type_bytes(t) != 4 && !is64) dc.fail("unsupported type for carry arithmetic");
  ExecFn f32[2] = {&Carry<uint32_t, Subtract, CarryIn, false>::run, &Carry<uint32_t, Subtract, CarryIn, true>::run};
  ExecFn f64[2] = {&Carry<uint64_t, Subtract, CarryIn, false>::run, &Carry<uint64_t, Subtract, CarryIn, true>::run};
  out.fn = (is64 ? f64 : f32)[dc.mods().cc ? 1 : 0];
  plain_operands(dc, out, t, 2);
  out.s[2] = out.d[1] = dc.private_slot(kCarrySlot);
}

// mad.lo.cc / mad.hi.cc / madc.lo / madc.hi (.cc): the low or high half of
// the product plus c, plus the carry flag for madc; the carry out of that
// unsigned addition goes to the flag with .cc (multiword arithmetic, as in
// libdevice's trigonometric argument reduction).
template <class T, bool Hi, bool CarryIn, bool CarryOut>
struct MadCarry {
  static void run(Ctx& c, const DecodedInst& in, uint32_t m) {
    using U = Unsigned<T>;
    uint64_t* R = c.R;
    uint64_t *d = R + in.d[0], *a = R + in.s[0], *b = R + in.s[1], *e = R + in.s[2], *cf = R + in.s[3],
             *co = R + in.d[1];
    each_lane(m, [&](unsigned l) {
      U p = U(Hi ? MulHi::f(get<T>(a, l), get<T>(b, l)) : MulLo::f(get<T>(a, l), get<T>(b, l)));
      U y = U(get<T>(e, l));
      U cin = CarryIn ? U(cf[l] & 1) : U(0);
      U s = U(p + y);
      U r = U(s + cin);
      put(d, l, T(r));
      if (CarryOut) co[l] = s < p || r < s;
    });
  }
};

template <class T, bool CarryIn>
ExecFn mad_carry_handler(bool hi, bool carry_out) {
  static constexpr ExecFn kFns[2][2] = {{&MadCarry<T, false, CarryIn, false>::run, &MadCarry<T, false, CarryIn, true>::run},
                                        {&MadCarry<T, true, CarryIn, false>::run, &MadCarry<T, true, CarryIn, true>::run}};
  return kFns[hi][carry_out];
}

template <bool CarryIn>
void decode_mad_carry(Decoder& dc, DecodedInst& out) {
  ptx::Type t = dc.type();
  const Mods& m = dc.mods();
  if (!m.hi && !m.lo) dc.fail("mad.cc/madc need .lo or .hi");
  if (m.sat || m.wide) dc.fail("unsupported modifier with carry arithmetic");
  bool cc = !CarryIn || m.cc;
  switch (t) {
    case ptx::Type::U32: out.fn = mad_carry_handler<uint32_t, CarryIn>(m.hi, cc); break;
    case ptx::Type::S32: out.fn = mad_carry_handler<int32_t, CarryIn>(m.hi, cc); break;
    case ptx::Type::U64: out.fn = mad_carry_handler<uint64_t, CarryIn>(m.hi, cc); break;
    case ptx::Type::S64: out.fn = mad_carry_handler<int64_t, CarryIn>(m.hi, cc); break;
    default: dc.fail("unsupported type for carry arithmetic");
  }
  plain_operands(dc, out, t, 3);
  out.s[3] = out.d[1] = dc.private_slot(kCarrySlot);
}

// dp4a: c plus the four products of a's and b's bytes; dp2a: c plus the two
// products of a's 16-bit halves and the low (.lo) or high (.hi) pair of b's
// bytes. Each operand signed or not by its type; the sum wraps at 32 bits.
template <bool SignedA, bool SignedB, int Mode>  // Mode: 4 (dp4a), 0 (dp2a.lo), 2 (dp2a.hi)
struct DotProduct {
  static int64_t byte(uint32_t v, int i, bool is_signed) {
    uint32_t b = v >> (8 * i) & 0xff;
    return is_signed ? int64_t(int8_t(b)) : int64_t(b);
  }
  static int64_t half(uint32_t v, int i, bool is_signed) {
    uint32_t h = v >> (16 * i) & 0xffff;
    return is_signed ? int64_t(int16_t(h)) : int64_t(h);
  }
  template <class T>
  static T f(T a, T b, T c) {
    int64_t sum = int64_t(c);
    auto ua = uint32_t(a), ub = uint32_t(b);
    if constexpr (Mode == 4) {
      for (int i = 0; i < 4; ++i) sum += byte(ua, i, SignedA) * byte(ub, i, SignedB);
    } else {
      for (int i = 0; i < 2; ++i) sum += half(ua, i, SignedA) * byte(ub, Mode + i, SignedB);
    }
    return T(uint32_t(uint64_t(sum)));
  }
};

template <int Mode>
ExecFn dot_product_handler(bool sa, bool sb) {
  static constexpr ExecFn kFns[2][2] = {
      {&Ternary<uint32_t, DotProduct<false, false, Mode>>::run, &Ternary<uint32_t, DotProduct<false, true, Mode>>::run},
      {&Ternary<uint32_t, DotProduct<true, false, Mode>>::run, &Ternary<uint32_t, DotProduct<true, true, Mode>>::run}};
  return kFns[sa][sb];
}

template <bool Four>
void decode_dot_product(Decoder& dc, DecodedInst& out) {
  reject_float_modifiers(dc);
  const Mods& m = dc.mods();
  if (m.types.size() != 2) dc.fail("dp4a/dp2a need two types (.atype.btype)");
  for (ptx::Type t : m.types)
    if (t != ptx::Type::S32 && t != ptx::Type::U32) dc.fail("dp4a/dp2a take .s32 or .u32");
  bool sa = m.types[0] == ptx::Type::S32, sb = m.types[1] == ptx::Type::S32;
  if constexpr (Four) {
    out.fn = dot_product_handler<4>(sa, sb);
  } else {
    if (m.hi == m.lo) dc.fail("dp2a needs .lo or .hi");
    out.fn = m.hi ? dot_product_handler<2>(sa, sb) : dot_product_handler<0>(sa, sb);
  }
  plain_operands(dc, out, ptx::Type::B32, 3);
}

template <class Plain, class Saturating, bool Subtract>
void decode_add_sub(Decoder& dc, DecodedInst& out) {
  reject_float_modifiers(dc);
  if (dc.mods().cc) return decode_carry<Subtract, false>(dc, out);
  ptx::Type t = dc.type();
  if (dc.mods().sat) {
    if (t != ptx::Type::S32) dc.fail("saturation needs .s32");
    out.fn = &Binary<int32_t, Saturating>::run;
  } else {
    out.fn = dc.need(int_handler<Binary, Plain>(t));
  }
  plain_operands(dc, out, t, 2);
}

template <template <class, class...> class H, class Op>
ExecFn narrow_int_handler(ptx::Type t) {
  return type_bytes(t) == 8 ? nullptr : int_handler<H, Op>(t);
}

void decode_mul(Decoder& dc, DecodedInst& out) {
  reject_float_modifiers(dc);
  ptx::Type t = dc.type();
  const Mods& m = dc.mods();
  out.fn = dc.need(m.wide ? narrow_int_handler<Binary, MulWide>(t)
                          : m.hi ? int_handler<Binary, MulHi>(t) : int_handler<Binary, MulLo>(t));
  plain_operands(dc, out, t, 2);
}

template <class T>
using MadWideOf = Ternary<T, MadWide, Wide<T>>;

void decode_mad(Decoder& dc, DecodedInst& out) {
  reject_float_modifiers(dc);
  if (dc.mods().cc) return decode_mad_carry<false>(dc, out);
  ptx::Type t = dc.type();
  const Mods& m = dc.mods();
  if (m.sat) dc.fail("unsupported modifier '.sat'");
  if (m.wide) {
    if (type_bytes(t) == 8) dc.fail("unsupported type for mad.wide");
    switch (t) {
      case ptx::Type::U16: out.fn = &MadWideOf<uint16_t>::run; break;
      case ptx::Type::S16: out.fn = &MadWideOf<int16_t>::run; break;
      case ptx::Type::U32: out.fn = &MadWideOf<uint32_t>::run; break;
      case ptx::Type::S32: out.fn = &MadWideOf<int32_t>::run; break;
      default: dc.fail("unsupported type for mad.wide");
    }
  } else {
    out.fn = dc.need(m.hi ? int_handler<Ternary, MadHi>(t) : int_handler<Ternary, MadLo>(t));
  }
  plain_operands(dc, out, t, 3);
}

template <class PredOp, class IntOp, unsigned N>
void decode_logic(Decoder& dc, DecodedInst& out) {
  reject_float_modifiers(dc);
  ptx::Type t = dc.type();
  if (t == ptx::Type::Pred) {
    if constexpr (N == 1) out.fn = &Unary<uint8_t, PredOp>::run;
    else out.fn = &Binary<uint8_t, PredOp>::run;
  } else if constexpr (N == 1) {
    out.fn = dc.need(int_handler<Unary, IntOp>(t));
  } else {
    out.fn = dc.need(int_handler<Binary, IntOp>(t));
  }
  plain_operands(dc, out, t, N);
}

template <bool Left>
void decode_shift(Decoder& dc, DecodedInst& out) {
  reject_float_modifiers(dc);
  ptx::Type t = dc.type();
  out.fn = dc.need(Left ? int_handler<Shl>(t) : int_handler<Shr>(t));
  plain_operands(dc, out, t, 2);
  out.s[1] = dc.src(2, ptx::Type::U32);
}

void decode_bfind(Decoder& dc, DecodedInst& out) {
  ptx::Type t = dc.type();
  if (type_bytes(t) < 4) dc.fail("unsupported type for bfind");
  out.fn = dc.mods().take("shiftamt") ? int_handler<Unary, Bfind<true>>(t) : int_handler<Unary, Bfind<false>>(t);
  plain_operands(dc, out, t, 1);
}

void decode_bfe(Decoder& dc, DecodedInst& out) {
  ptx::Type t = dc.type();
  if (type_bytes(t) < 4) dc.fail("unsupported type for bfe");
  out.fn = int_handler<Ternary, Bfe, uint32_t>(t);
  plain_operands(dc, out, t, 3);
  out.s[1] = dc.src(2, ptx::Type::U32);
  out.s[2] = dc.src(3, ptx::Type::U32);
}

// shf.{l,r}.{wrap,clamp}.b32 d, a, b, c (PTX ISA funnel shift): {b, a} as
// one 64-bit value shifted by n = c & 31 (.wrap) or min(c, 32) (.clamp); .l
// keeps the high 32 bits, .r the low. in.sub: bit 0 left, bit 1 clamp.
void run_shf(Ctx& c, const DecodedInst& in, uint32_t m) {
  uint64_t *d = c.R + in.d[0], *a = c.R + in.s[0], *b = c.R + in.s[1], *k = c.R + in.s[2];
  bool left = in.sub & 1, clamp = in.sub & 2;
  each_lane(m, [&](unsigned l) {
    uint32_t amount = static_cast<uint32_t>(k[l]);
    unsigned n = clamp ? std::min(amount, 32u) : amount & 31;
    uint64_t v = uint64_t{static_cast<uint32_t>(b[l])} << 32 | static_cast<uint32_t>(a[l]);
    d[l] = left ? static_cast<uint32_t>((v << n) >> 32) : static_cast<uint32_t>(v >> n);
  });
}

void decode_shf(Decoder& dc, DecodedInst& out) {
  Mods& m = dc.mods();
  int dir = m.take_one({"r", "l"});
  int mode = m.take_one({"wrap", "clamp"});
  if (dir < 0 || mode < 0) dc.fail("shf needs .l or .r and .wrap or .clamp");
  if (type_bytes(dc.type()) != 4) dc.fail("unsupported type for shf");
  out.sub = static_cast<uint8_t>(dir | mode << 1);
  out.fn = run_shf;
  plain_operands(dc, out, ptx::Type::U32, 3);
}

// bmsk.{clamp,wrap}.b32 d, a, b (PTX ISA): b bits set from bit a up. Both
// counts are taken mod 32; a field running past bit 31 keeps the bits up to
// 31; .clamp makes a >= 32 give 0 and b >= 32 give every bit from a up. in.sub: clamp.
uint32_t bit_mask(uint32_t a, uint32_t b, bool clamp) {
  uint32_t pos = a & 31, width = b & 31;
  uint32_t from = ~0u << pos;
  if (clamp && a >= 32) return 0;
  if ((clamp && b >= 32) || pos + width >= 32) return from;
  return width == 0 ? 0 : from & ~(~0u << (pos + width));
}

void run_bmsk(Ctx& c, const DecodedInst& in, uint32_t m) {
  uint64_t *d = c.R + in.d[0], *a = c.R + in.s[0], *b = c.R + in.s[1];
  each_lane(m, [&](unsigned l) { d[l] = bit_mask(uint32_t(a[l]), uint32_t(b[l]), in.sub); });
}

void decode_bmsk(Decoder& dc, DecodedInst& out) {
  int mode = dc.mods().take_one({"wrap", "clamp"});
  if (mode < 0) dc.fail("bmsk needs .clamp or .wrap");
  if (type_bytes(dc.type()) != 4) dc.fail("unsupported type for bmsk");
  out.sub = static_cast<uint8_t>(mode);
  out.fn = run_bmsk;
  plain_operands(dc, out, ptx::Type::U32, 2);
}

// fns.b32 d, mask, base, offset (PTX ISA): the position of the |offset|-th set
// bit of mask counting from bit `base` (itself included) upward for a positive
// offset, downward for a negative one; offset 0 asks whether bit `base` is
// set. 0xffffffff when there is no such bit (or base > 31).
uint32_t find_nth_set(uint32_t mask, uint32_t base, int32_t offset) {
  if (base > 31) return 0xffffffffu;
  if (offset == 0) return (mask >> base) & 1 ? base : 0xffffffffu;
  int step = offset > 0 ? 1 : -1;
  uint32_t left = offset > 0 ? static_cast<uint32_t>(offset) : 0u - static_cast<uint32_t>(offset);
  for (int pos = static_cast<int>(base); pos >= 0 && pos < 32; pos += step)
    if ((mask >> pos) & 1 && --left == 0) return static_cast<uint32_t>(pos);
  return 0xffffffffu;
}

void run_fns(Ctx& c, const DecodedInst& in, uint32_t m) {
  uint64_t *d = c.R + in.d[0], *a = c.R + in.s[0], *b = c.R + in.s[1], *e = c.R + in.s[2];
  each_lane(m, [&](unsigned l) { d[l] = find_nth_set(uint32_t(a[l]), uint32_t(b[l]), int32_t(e[l])); });
}

void decode_fns(Decoder& dc, DecodedInst& out) {
  if (dc.type() != ptx::Type::B32) dc.fail("fns takes .b32");
  plain_operands(dc, out, ptx::Type::B32, 3);
  out.s[1] = dc.src(2, ptx::Type::U32);
  out.s[2] = dc.src(3, ptx::Type::S32);
  out.fn = run_fns;
}

void decode_bfi(Decoder& dc, DecodedInst& out) {
  ptx::Type t = dc.type();
  if (type_bytes(t) == 4) out.fn = &Bfi<uint32_t>::run;
  else if (type_bytes(t) == 8) out.fn = &Bfi<uint64_t>::run;
  else dc.fail("unsupported type for bfi");
  plain_operands(dc, out, t, 4);
  out.s[2] = dc.src(3, ptx::Type::U32);
  out.s[3] = dc.src(4, ptx::Type::U32);
}

template <class Op>
void decode_bit_count(Decoder& dc, DecodedInst& out) {
  ptx::Type t = dc.type();
  if (type_bytes(t) < 4) dc.fail("unsupported type");
  out.fn = int_handler<Unary, Op>(t);
  plain_operands(dc, out, t, 1);
}


// mul24/mad24: the low 24 bits of each operand (sign-extended for .s32) give a
// 48-bit product; .lo keeps its bits 31..0, .hi its bits 47..16.
template <class T>
int64_t low24(T a) {
  if constexpr (std::is_signed_v<T>) return static_cast<int32_t>(static_cast<uint32_t>(a) << 8) >> 8;
  return static_cast<uint32_t>(a) & 0xffffffu;
}
template <bool Hi>
struct Mul24 {
  template <class T> static T f(T a, T b) {
    auto p = static_cast<uint64_t>(low24(a) * low24(b));
    return T(static_cast<uint32_t>(Hi ? p >> 16 : p));
  }
};
template <bool Hi>
struct Mad24 {
  template <class T> static T f(T a, T b, T c) { return Add::f(Mul24<Hi>::f(a, b), c); }
};
// mad24.hi.sat.s32: the sum saturates to the s32 range.
struct Mad24HiSat {
  static int32_t f(int32_t a, int32_t b, int32_t c) {
    int64_t v = (low24(a) * low24(b) >> 16) + int64_t{c};
    return static_cast<int32_t>(std::clamp<int64_t>(v, INT32_MIN, INT32_MAX));
  }
};

template <template <class, class...> class H, class Op>
ExecFn int32_handler(ptx::Type t) {
  return t == ptx::Type::S32 ? &H<int32_t, Op>::run
       : t == ptx::Type::U32 || t == ptx::Type::B32 ? &H<uint32_t, Op>::run : nullptr;
}

template <bool Mad>
void decode_int24(Decoder& dc, DecodedInst& out) {
  reject_float_modifiers(dc);
  ptx::Type t = dc.type();
  const Mods& m = dc.mods();
  if (!m.hi && !m.lo) dc.fail("mul24/mad24 need .lo or .hi");
  if (m.sat && !(Mad && m.hi && t == ptx::Type::S32)) dc.fail("unsupported modifier '.sat'");
  if constexpr (Mad) {
    out.fn = m.sat ? &Ternary<int32_t, Mad24HiSat>::run
           : dc.need(m.hi ? int32_handler<Ternary, Mad24<true>>(t) : int32_handler<Ternary, Mad24<false>>(t));
  } else {
    out.fn = dc.need(m.hi ? int32_handler<Binary, Mul24<true>>(t) : int32_handler<Binary, Mul24<false>>(t));
  }
  plain_operands(dc, out, t, Mad ? 3 : 2);
}

// The special prmt modes use c[1:0] to pick one of four fixed byte selections,
// written here as default-mode selectors (result byte i from nibble i).
constexpr uint32_t kPrmtModes[6][4] = {
    {0x3210, 0x4321, 0x5432, 0x6543},  // f4e: forward 4 extract
    {0x5670, 0x6701, 0x7012, 0x0123},  // b4e: backward 4 extract
    {0x0000, 0x1111, 0x2222, 0x3333},  // rc8: replicate byte
    {0x3210, 0x3211, 0x3222, 0x3333},  // ecl: edge clamp left
    {0x0000, 0x1110, 0x2210, 0x3210},  // ecr: edge clamp right
    {0x1010, 0x3232, 0x1010, 0x3232},  // rc16: replicate half
};
template <int Mode>
struct PrmtMode {
  template <class T> static uint32_t f(T a, T b, T c) { return Prmt::f(a, b, T(kPrmtModes[Mode][uint32_t(c) & 3])); }
};

void decode_prmt(Decoder& dc, DecodedInst& out) {
  static constexpr ExecFn kModes[] = {
      &Ternary<uint32_t, PrmtMode<0>>::run, &Ternary<uint32_t, PrmtMode<1>>::run, &Ternary<uint32_t, PrmtMode<2>>::run,
      &Ternary<uint32_t, PrmtMode<3>>::run, &Ternary<uint32_t, PrmtMode<4>>::run, &Ternary<uint32_t, PrmtMode<5>>::run};
  int mode = dc.mods().take_one({"f4e", "b4e", "rc8", "ecl", "ecr", "rc16"});
  out.fn = mode < 0 ? &Ternary<uint32_t, Prmt>::run : kModes[mode];
  plain_operands(dc, out, ptx::Type::B32, 3);
}

}  // namespace

void register_int_ops(DecodeTable& t) {
  t["add"] = decode_add_sub<Add, AddSat, false>;
  t["sub"] = decode_add_sub<Sub, SubSat, true>;
  t["addc"] = decode_carry<false, true>;
  t["subc"] = decode_carry<true, true>;
  t["mul"] = decode_mul;
  t["mad"] = decode_mad;
  t["madc"] = [](Decoder& dc, DecodedInst& out) {
    reject_float_modifiers(dc);
    decode_mad_carry<true>(dc, out);
  };
  t["dp4a"] = decode_dot_product<true>;
  t["dp2a"] = decode_dot_product<false>;
  t["mul24"] = decode_int24<false>;
  t["mad24"] = decode_int24<true>;
  t["div"] = decode_int_simple<Binary, Div, 2>;
  t["rem"] = decode_int_simple<Binary, Rem, 2>;
  t["min"] = decode_int_simple<Binary, Min, 2>;
  t["max"] = decode_int_simple<Binary, Max, 2>;
  t["abs"] = decode_int_simple<Unary, Abs, 1>;
  t["neg"] = decode_int_simple<Unary, Neg, 1>;
  t["sad"] = decode_int_simple<Ternary, Sad, 3>;
  t["and"] = decode_logic<And, And, 2>;
  t["or"] = decode_logic<Or, Or, 2>;
  t["xor"] = decode_logic<Xor, Xor, 2>;
  t["not"] = decode_logic<NotPred, Not, 1>;
  t["cnot"] = decode_int_simple<Unary, CNot, 1>;
  t["shl"] = decode_shift<true>;
  t["shr"] = decode_shift<false>;
  t["shf"] = decode_shf;
  t["bmsk"] = decode_bmsk;
  t["popc"] = decode_bit_count<Popc>;
  t["clz"] = decode_bit_count<Clz>;
  t["brev"] = decode_bit_count<Brev>;
  t["bfind"] = decode_bfind;
  t["bfe"] = decode_bfe;
  t["bfi"] = decode_bfi;
  t["fns"] = decode_fns;
  t["prmt"] = decode_prmt;
}

}  // namespace ws::exec::emu
