// Handler templates shared by the arithmetic files: an operation struct
// `Op` with a static template `f` is applied lane by lane.
#pragma once
#include <type_traits>

#include "exec/decode.h"

namespace ws::exec::emu {

// d = Op(a)
template <class T, class Op>
struct Unary {
  static void run(Ctx& c, const DecodedInst& in, uint32_t m) {
    uint64_t* R = c.R;
    uint64_t *d = R + in.d[0], *a = R + in.s[0];
    each_lane(m, [&](unsigned l) { put(d, l, Op::f(get<T>(a, l))); });
  }
};
// d = Op(a, b)
template <class T, class Op>
struct Binary {
  static void run(Ctx& c, const DecodedInst& in, uint32_t m) {
    uint64_t* R = c.R;
    uint64_t *d = R + in.d[0], *a = R + in.s[0], *b = R + in.s[1];
    each_lane(m, [&](unsigned l) { put(d, l, Op::f(get<T>(a, l), get<T>(b, l))); });
  }
};
// d = Op(a, b, c); the third operand is read as type C.
template <class T, class Op, class C = T>
struct Ternary {
  static void run(Ctx& c, const DecodedInst& in, uint32_t m) {
    uint64_t* R = c.R;
    uint64_t *d = R + in.d[0], *a = R + in.s[0], *b = R + in.s[1], *e = R + in.s[2];
    each_lane(m, [&](unsigned l) { put(d, l, Op::f(get<T>(a, l), get<T>(b, l), get<C>(e, l))); });
  }
};

// Picks H<T, Op...>::run for an integer type (b-types as unsigned), or nullptr.
template <template <class, class...> class H, class... Op>
ExecFn int_handler(ptx::Type t) {
  switch (t) {
    case ptx::Type::U16: case ptx::Type::B16: return &H<uint16_t, Op...>::run;
    case ptx::Type::S16: return &H<int16_t, Op...>::run;
    case ptx::Type::U32: case ptx::Type::B32: return &H<uint32_t, Op...>::run;
    case ptx::Type::S32: return &H<int32_t, Op...>::run;
    case ptx::Type::U64: case ptx::Type::B64: return &H<uint64_t, Op...>::run;
    case ptx::Type::S64: return &H<int64_t, Op...>::run;
    default: return nullptr;
  }
}

template <class T>
using Unsigned = std::make_unsigned_t<T>;

}  // namespace ws::exec::emu

namespace ws::exec::emu {

// d = op(s1 ... sN) with every source read as `t`.
void plain_operands(Decoder& dc, DecodedInst& out, ptx::Type t, unsigned nsrc);

// Integer instructions take no float modifiers (rounding, .ftz, .approx, .full).
// `.L2::cache_hint`: the access takes one more operand, last, a 64-bit
// cache policy (from createpolicy). The hint never changes results, and the
// timing model does not read it (docs/exec.md, "Cache policies").
inline bool has_cache_hint(const Decoder& dc) {
  for (const std::string& w : dc.inst().mods)
    if (w == "L2::cache_hint") return true;
  return false;
}

inline void reject_float_modifiers(Decoder& dc) {
  const Mods& m = dc.mods();
  if (m.has_rnd || m.ftz || m.approx || m.full) dc.fail("unsupported modifier for an integer instruction");
}

// A decoder for opcodes whose handler depends only on the (integer) type.
template <template <class, class...> class H, class Op, unsigned N>
void decode_int_simple(Decoder& dc, DecodedInst& out) {
  reject_float_modifiers(dc);
  ptx::Type t = dc.type();
  out.fn = dc.need(int_handler<H, Op>(t));
  plain_operands(dc, out, t, N);
}

}  // namespace ws::exec::emu

namespace ws::exec::emu {
// Wraps out.fn to run under out.rnd when that is a directed mode.
void apply_rounding(DecodedInst& out);
}  // namespace ws::exec::emu
