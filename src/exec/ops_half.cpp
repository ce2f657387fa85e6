// f16 / bf16 arithmetic, scalar and packed pairs (.f16x2: low half first).
// Each half is computed in double and rounded once to its format.
#include <algorithm>
#include <cmath>
#include <limits>

#include "exec/half.h"
#include "exec/ops_common.h"

namespace ws::exec::emu {

namespace {

struct Half {
  static double load(uint32_t b) { return f16_to_f32(static_cast<uint16_t>(b)); }
  static uint32_t store(double v, Rounding r) { return f64_to_f16(v, r); }
  static constexpr double kMinNormal = 6.103515625e-05;  // 2^-14
};
struct BHalf {
  static double load(uint32_t b) { return bf16_to_f32(static_cast<uint16_t>(b)); }
  static uint32_t store(double v, Rounding r) { return f64_to_bf16(v, r); }
  static constexpr double kMinNormal = 1.1754943508222875e-38;  // 2^-126
};

struct HAdd { static double f(double a, double b, double) { return a + b; } };
struct HSub { static double f(double a, double b, double) { return a - b; } };
struct HMul { static double f(double a, double b, double) { return a * b; } };
struct HFma { static double f(double a, double b, double c) { return std::fma(a, b, c); } };
struct HMin {
  static double f(double a, double b, double) {
    if (std::isnan(a)) return b;
    if (std::isnan(b)) return a;
    if (a == b) return std::signbit(a) ? a : b;
    return a < b ? a : b;
  }
};
struct HMax {
  static double f(double a, double b, double) {
    if (std::isnan(a)) return b;
    if (std::isnan(b)) return a;
    if (a == b) return std::signbit(a) ? b : a;
    return a > b ? a : b;
  }
};

// min/max.NaN: a NaN operand gives NaN (stored as the canonical 0x7fff).
template <class Op>
struct HNaN {
  static double f(double a, double b, double c) {
    return std::isnan(a) || std::isnan(b) ? std::numeric_limits<double>::quiet_NaN() : Op::f(a, b, c);
  }
};

template <class Fmt>
double flush(double v) {
  return std::fabs(v) < Fmt::kMinNormal ? std::copysign(0.0, v) : v;
}

template <class Fmt, class Op>
uint32_t one_half(const DecodedInst& in, uint32_t a, uint32_t b, uint32_t c) {
  double x = Fmt::load(a & 0xffff), y = Fmt::load(b & 0xffff), z = Fmt::load(c & 0xffff);
  if (in.flags & kFtz) x = flush<Fmt>(x), y = flush<Fmt>(y), z = flush<Fmt>(z);
  double v = Op::f(x, y, z);
  if (in.flags & kSat) v = std::isnan(v) ? 0.0 : std::clamp(v, 0.0, 1.0);
  uint32_t r = Fmt::store(v, in.rnd);
  if (in.flags & kFtz) r = Fmt::store(flush<Fmt>(Fmt::load(r)), Rounding::Rn);
  return r;
}

template <class Fmt, class Op, bool Pair>
void run_half(Ctx& c, const DecodedInst& in, uint32_t m) {
  uint64_t* R = c.R;
  uint64_t *d = R + in.d[0], *a = R + in.s[0], *b = R + in.s[1], *e = R + in.s[2];
  each_lane(m, [&](unsigned l) {
    auto x = static_cast<uint32_t>(a[l]), y = static_cast<uint32_t>(b[l]), z = static_cast<uint32_t>(e[l]);
    uint32_t r = one_half<Fmt, Op>(in, x, y, z);
    if (Pair) r |= one_half<Fmt, Op>(in, x >> 16, y >> 16, z >> 16) << 16;
    d[l] = r;
  });
}

// neg / abs only touch sign bits.
template <bool Neg, bool Pair>
void run_sign(Ctx& c, const DecodedInst& in, uint32_t m) {
  uint64_t *d = c.R + in.d[0], *a = c.R + in.s[0];
  const uint32_t bits = Pair ? 0x80008000u : 0x8000u;
  each_lane(m, [&](unsigned l) {
    auto x = static_cast<uint32_t>(a[l]) & (Pair ? 0xffffffffu : 0xffffu);
    d[l] = Neg ? (x ^ bits) : (x & ~bits);
  });
}

template <class Op, unsigned N>
void decode_half(Decoder& dc, DecodedInst& out) {
  ptx::Type t = dc.type();
  static constexpr ExecFn kFns[4] = {run_half<Half, Op, false>, run_half<Half, Op, true>,
                                     run_half<BHalf, Op, false>, run_half<BHalf, Op, true>};
  bool pair = t == ptx::Type::F16x2 || t == ptx::Type::BF16x2;
  bool brain = t == ptx::Type::BF16 || t == ptx::Type::BF16x2;
  out.fn = kFns[(brain ? 2 : 0) + (pair ? 1 : 0)];
  const Mods& m = dc.mods();
  if (m.ftz) out.flags |= kFtz;
  if (m.sat) out.flags |= kSat;
  out.rnd = m.rnd;
  plain_operands(dc, out, t, N);
}

template <class Op>
void decode_half_min_max(Decoder& dc, DecodedInst& out) {
  if (dc.mods().take("NaN")) decode_half<HNaN<Op>, 2>(dc, out);
  else decode_half<Op, 2>(dc, out);
}

template <bool Neg>
void decode_sign(Decoder& dc, DecodedInst& out) {
  ptx::Type t = dc.type();
  bool pair = t == ptx::Type::F16x2 || t == ptx::Type::BF16x2;
  out.fn = pair ? run_sign<Neg, true> : run_sign<Neg, false>;
  dc.mods().ftz = false;
  plain_operands(dc, out, t, 1);
}

}  // namespace

void register_half_ops(DecodeTable& t) {
  t["add:h"] = decode_half<HAdd, 2>;
  t["sub:h"] = decode_half<HSub, 2>;
  t["mul:h"] = decode_half<HMul, 2>;
  t["fma:h"] = decode_half<HFma, 3>;
  t["min:h"] = decode_half_min_max<HMin>;
  t["max:h"] = decode_half_min_max<HMax>;
  t["neg:h"] = decode_sign<true>;
  t["abs:h"] = decode_sign<false>;
}

}  // namespace ws::exec::emu
