// f32/f64 arithmetic. Directed rounding (.rz/.rm/.rp) runs the handler under
// fesetround; this file is compiled with -frounding-math so that the
// compiler keeps the operations where the mode is in force.
#include <cfenv>
#include <cmath>
#include <cstring>
#include <limits>

#include "exec/ops_common.h"

namespace ws::exec::emu {

namespace {

template <class T>
T flush(T v) {
  return std::fpclassify(v) == FP_SUBNORMAL ? std::copysign(T(0), v) : v;
}
template <class T>
T finish(const DecodedInst& in, T v) {
  if (in.flags & kFtz) v = flush(v);
  if (in.flags & kSat) v = std::isnan(v) ? T(0) : v < 0 ? T(0) : v > 1 ? T(1) : v + T(0);
  return v;
}
template <class T>
T prepare(const DecodedInst& in, T v) {
  return (in.flags & kFtz) ? flush(v) : v;
}

template <class T, class Op, unsigned N>
struct FloatOp {
  static void run(Ctx& c, const DecodedInst& in, uint32_t m) {
    uint64_t* R = c.R;
    uint64_t *d = R + in.d[0], *a = R + in.s[0], *b = R + in.s[1], *e = R + in.s[2];
    auto apply = [&](auto&& load, unsigned l) {
      if constexpr (N == 1) return Op::f(load(a, l));
      else if constexpr (N == 2) return Op::f(load(a, l), load(b, l));
      else return Op::f(load(a, l), load(b, l), load(e, l));
    };
    if (in.flags & (kFtz | kSat)) {
      auto load = [&](uint64_t* r, unsigned l) { return prepare(in, get<T>(r, l)); };
      each_lane(m, [&](unsigned l) { put(d, l, finish(in, apply(load, l))); });
    } else {
      auto load = [](uint64_t* r, unsigned l) { return get<T>(r, l); };
      each_lane(m, [&](unsigned l) { put(d, l, apply(load, l)); });
    }
  }
};
template <class T, class Op>
using F1 = FloatOp<T, Op, 1>;
template <class T, class Op>
using F2 = FloatOp<T, Op, 2>;
template <class T, class Op>
using F3 = FloatOp<T, Op, 3>;

struct FAdd { template <class T> static T f(T a, T b) { return a + b; } };
struct FSub { template <class T> static T f(T a, T b) { return a - b; } };
struct FMul { template <class T> static T f(T a, T b) { return a * b; } };
struct FDiv { template <class T> static T f(T a, T b) { return a / b; } };
// div.approx.f32 is a * (1/b) with an approximate reciprocal (PTX ISA): at
// most 2 ulp off for |b| in [2^-126, 2^126], where warpsim divides exactly.
// For 2^126 < |b| the reciprocal underflows, and the PTX ISA (and libdevice's
// __nv_fast_fdividef) give 0, or NaN for an infinite a: a * (+-0).
struct FDivApprox {
  template <class T> static T f(T a, T b) {
    static_assert(std::is_same_v<T, float>, "div.approx is f32 only");
    return std::fabs(b) > 0x1p126f ? a * std::copysign(T(0), b) : a / b;
  }
};
struct FFma { template <class T> static T f(T a, T b, T c) { return std::fma(a, b, c); } };
// min/max: a NaN operand yields the other; -0 is below +0.
struct FMin {
  template <class T> static T f(T a, T b) {
    if (std::isnan(a)) return b;
    if (std::isnan(b)) return a;
    if (a == b) return std::signbit(a) ? a : b;
    return a < b ? a : b;
  }
};
struct FMax {
  template <class T> static T f(T a, T b) {
    if (std::isnan(a)) return b;
    if (std::isnan(b)) return a;
    if (a == b) return std::signbit(a) ? b : a;
    return a > b ? a : b;
  }
};
// min/max.NaN: a NaN operand gives the canonical NaN (0x7fffffff).
template <class Op>
struct NaNPropagating {
  template <class T> static T f(T a, T b) {
    if (std::isnan(a) || std::isnan(b)) {
      uint32_t bits = 0x7fffffffu;
      float nan;
      std::memcpy(&nan, &bits, 4);
      return T(nan);
    }
    return Op::f(a, b);
  }
};
struct FCopysign { template <class T> static T f(T a, T b) { return std::copysign(b, a); } };
struct FNeg { template <class T> static T f(T a) { return -a; } };
struct FAbs { template <class T> static T f(T a) { return std::fabs(a); } };
struct FRcp { template <class T> static T f(T a) { return T(1) / a; } };
struct FSqrt { template <class T> static T f(T a) { return std::sqrt(a); } };
// rsqrt.approx: one rounding of 1/sqrt(a) (f32 formed in double), well inside
// the PTX ISA's 2^-22.9 relative-error bound (two f32 roundings could reach 2^-23).
struct FRsqrt {
  static float f(float a) { return static_cast<float>(1.0 / std::sqrt(static_cast<double>(a))); }
  static double f(double a) { return 1.0 / std::sqrt(a); }
};
struct FSin { template <class T> static T f(T a) { return std::sin(a); } };
struct FCos { template <class T> static T f(T a) { return std::cos(a); } };
struct FEx2 { template <class T> static T f(T a) { return std::exp2(a); } };
struct FLg2 { template <class T> static T f(T a) { return std::log2(a); } };
struct FTanh { template <class T> static T f(T a) { return std::tanh(a); } };

template <int Mode>
void run_rounded(Ctx& c, const DecodedInst& in, uint32_t m) {
  int old = std::fegetround();
  std::fesetround(Mode);
  in.inner(c, in, m);
  std::fesetround(old);
}

template <template <class, class> class H, class Op, bool F64>
ExecFn float_handler(ptx::Type t) {
  if (t == ptx::Type::F32) return &H<float, Op>::run;
  if constexpr (F64) {
    if (t == ptx::Type::F64) return &H<double, Op>::run;
  }
  return nullptr;
}

template <template <class, class> class H, class Op, unsigned N, bool F64 = true>
void decode_float(Decoder& dc, DecodedInst& out) {
  ptx::Type t = dc.type();
  const Mods& m = dc.mods();
  out.fn = dc.need(float_handler<H, Op, F64>(t));
  if (m.lo || m.hi || m.wide || m.cc) dc.fail("unsupported modifier for a float instruction");
  if (m.ftz) out.flags |= kFtz;
  if (m.sat) out.flags |= kSat;
  plain_operands(dc, out, t, N);
  out.rnd = m.rnd;
  apply_rounding(out);
}

struct TestKind {
  const char* name;
  bool (*test)(double);
};
constexpr TestKind kTests[] = {
    {"finite", [](double v) { return std::isfinite(v); }},
    {"infinite", [](double v) { return std::isinf(v); }},
    {"number", [](double v) { return !std::isnan(v); }},
    {"notanumber", [](double v) { return std::isnan(v); }},
    {"normal", [](double v) { return std::isnormal(v); }},
    {"subnormal", [](double v) { return std::fpclassify(v) == FP_SUBNORMAL; }},
};

template <class T>
void run_testp(Ctx& c, const DecodedInst& in, uint32_t m) {
  uint64_t *d = c.R + in.d[0], *a = c.R + in.s[0];
  bool (*test)(double) = kTests[in.sub].test;
  each_lane(m, [&](unsigned l) {
    T v = get<T>(a, l);
    // Subnormal floats are normal doubles: classify in the operand's own type.
    d[l] = std::is_same_v<T, float> && in.sub >= 4 ? (std::fpclassify(v) == (in.sub == 4 ? FP_NORMAL : FP_SUBNORMAL))
                                                   : test(static_cast<double>(v));
  });
}

template <class Op>
void decode_min_max(Decoder& dc, DecodedInst& out) {
  if (dc.mods().take("NaN")) decode_float<F2, NaNPropagating<Op>, 2, false>(dc, out);
  else decode_float<F2, Op, 2>(dc, out);
}

void decode_testp(Decoder& dc, DecodedInst& out) {
  int k = -1;
  for (size_t i = 0; i < std::size(kTests) && k < 0; ++i)
    if (dc.mods().take(kTests[i].name)) k = static_cast<int>(i);
  if (k < 0) dc.fail("testp needs a test");
  out.sub = static_cast<uint8_t>(k);
  ptx::Type t = dc.type();
  out.fn = t == ptx::Type::F32 ? run_testp<float> : t == ptx::Type::F64 ? run_testp<double> : nullptr;
  plain_operands(dc, out, t, 1);
}

}  // namespace

void apply_rounding(DecodedInst& out) {
  static constexpr ExecFn kWrappers[] = {nullptr, run_rounded<FE_TOWARDZERO>, run_rounded<FE_DOWNWARD>,
                                         run_rounded<FE_UPWARD>, nullptr};
  ExecFn w = kWrappers[static_cast<int>(out.rnd)];
  if (!w) return;
  out.inner = out.fn;
  out.fn = w;
}

void register_float_ops(DecodeTable& t) {
  t["add:f"] = decode_float<F2, FAdd, 2>;
  t["sub:f"] = decode_float<F2, FSub, 2>;
  t["mul:f"] = decode_float<F2, FMul, 2>;
  t["div:f"] = [](Decoder& dc, DecodedInst& out) {
    if (dc.mods().approx && !dc.mods().types.empty() && dc.mods().types[0] == ptx::Type::F32)
      decode_float<F2, FDivApprox, 2, false>(dc, out);
    else
      decode_float<F2, FDiv, 2>(dc, out);
  };
  t["fma:f"] = decode_float<F3, FFma, 3>;
  t["mad:f"] = decode_float<F3, FFma, 3>;
  t["min:f"] = decode_min_max<FMin>;
  t["max:f"] = decode_min_max<FMax>;
  t["copysign:f"] = decode_float<F2, FCopysign, 2>;
  t["neg:f"] = decode_float<F1, FNeg, 1>;
  t["abs:f"] = decode_float<F1, FAbs, 1>;
  t["rcp:f"] = decode_float<F1, FRcp, 1>;
  t["sqrt:f"] = decode_float<F1, FSqrt, 1>;
  t["rsqrt:f"] = decode_float<F1, FRsqrt, 1>;
  t["sin:f"] = decode_float<F1, FSin, 1, false>;
  t["cos:f"] = decode_float<F1, FCos, 1, false>;
  t["ex2:f"] = decode_float<F1, FEx2, 1, false>;
  t["lg2:f"] = decode_float<F1, FLg2, 1, false>;
  t["tanh:f"] = decode_float<F1, FTanh, 1, false>;
  t["testp:f"] = decode_testp;
}

}  // namespace ws::exec::emu
