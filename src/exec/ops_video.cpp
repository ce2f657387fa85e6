// SIMD video instructions: vadd4, vsub4, vavrg4, vabsdiff4, vmin4, vmax4 on
// the four bytes of a 32-bit register, and their 2-lane forms on its two
// halves (CUDA's __vsadu4 and __vabsdiffu4 compile to vabsdiff4). Each lane
// of a and b is sign- or zero-extended by its operand's type, the operation
// applied, and with .sat the result clamped to the lane's range under the
// destination type. Then either the lanes are summed into c (.add) or packed
// into d. Only the default lane selectors and mask (all lanes, a's lanes
// against b's) are accepted: a selector or mask stops decoding with a message.
#include "exec/ops_common.h"

namespace ws::exec::emu {
namespace {

enum class VideoOp : uint8_t { Add, Sub, Avrg, Absdiff, Min, Max };

// DecodedInst::aux bits for the operand types and the secondary operation.
enum : uint32_t { kVideoSignedA = 1, kVideoSignedB = 2, kVideoAdd = 4, kVideoHalves = 8 };

int64_t lane_of(uint32_t v, unsigned i, unsigned bits, bool is_signed) {
  uint32_t raw = v >> (bits * i) & ((1u << bits) - 1);
  if (is_signed && raw >> (bits - 1) & 1) return int64_t(raw) - (int64_t{1} << bits);
  return raw;
}

int64_t apply(VideoOp op, int64_t a, int64_t b) {
  switch (op) {
    case VideoOp::Add: return a + b;
    case VideoOp::Sub: return a - b;
    case VideoOp::Avrg: return a + b >= 0 ? (a + b + 1) >> 1 : (a + b) >> 1;
    case VideoOp::Absdiff: return a > b ? a - b : b - a;
    case VideoOp::Min: return std::min(a, b);
    case VideoOp::Max: return std::max(a, b);
  }
  return 0;
}

uint32_t simd(const DecodedInst& in, uint32_t a, uint32_t b, uint32_t c) {
  unsigned bits = in.aux & kVideoHalves ? 16 : 8, lanes = 32 / bits;
  bool sat = in.flags & kSat, signed_d = in.flags & kSigned;
  int64_t lo = signed_d ? -(int64_t{1} << (bits - 1)) : 0;
  int64_t hi = signed_d ? (int64_t{1} << (bits - 1)) - 1 : (int64_t{1} << bits) - 1;
  int64_t sum = int64_t(int32_t(c));
  uint32_t packed = 0;
  for (unsigned i = 0; i < lanes; ++i) {
    int64_t t = apply(static_cast<VideoOp>(in.sub), lane_of(a, i, bits, in.aux & kVideoSignedA),
                      lane_of(b, i, bits, in.aux & kVideoSignedB));
    if (sat) t = std::clamp(t, lo, hi);
    sum += t;
    packed |= (uint32_t(uint64_t(t)) & ((1u << bits) - 1)) << (bits * i);
  }
  return in.aux & kVideoAdd ? uint32_t(uint64_t(sum)) : packed;
}

void run_simd(Ctx& ctx, const DecodedInst& in, uint32_t m) {
  uint64_t* R = ctx.R;
  uint64_t *d = R + in.d[0], *a = R + in.s[0], *b = R + in.s[1], *c = R + in.s[2];
  each_lane(m, [&](unsigned l) { put(d, l, simd(in, get<uint32_t>(a, l), get<uint32_t>(b, l), get<uint32_t>(c, l))); });
}

template <VideoOp Op, bool Halves>
void decode_simd(Decoder& dc, DecodedInst& out) {
  reject_float_modifiers(dc);
  Mods& m = dc.mods();
  const char* name = Halves ? "a 2-lane video instruction" : "a 4-lane video instruction";
  if (m.types.size() != 3) dc.fail(std::string(name) + " needs three types (.dtype.atype.btype)");
  for (ptx::Type t : m.types)
    if (t != ptx::Type::S32 && t != ptx::Type::U32) dc.fail(std::string(name) + " takes .s32 or .u32 types");
  bool add = m.take("add");
  if (add && m.sat) dc.fail(".sat and .add together are not allowed");
  if (dc.nops() != 4) dc.fail(std::string(name) + " takes d, a, b, c (lane selectors and masks are not supported)");
  out.fn = &run_simd;
  out.sub = static_cast<uint8_t>(Op);
  if (m.sat) out.flags |= kSat;
  if (m.types[0] == ptx::Type::S32) out.flags |= kSigned;
  uint32_t none = 0;
  out.aux = (m.types[1] == ptx::Type::S32 ? kVideoSignedA : none) | (m.types[2] == ptx::Type::S32 ? kVideoSignedB : none) |
            (add ? kVideoAdd : none) | (Halves ? kVideoHalves : none);
  plain_operands(dc, out, ptx::Type::B32, 3);
}

}  // namespace

void register_video_ops(DecodeTable& t) {
  t["vadd4"] = decode_simd<VideoOp::Add, false>;
  t["vsub4"] = decode_simd<VideoOp::Sub, false>;
  t["vavrg4"] = decode_simd<VideoOp::Avrg, false>;
  t["vabsdiff4"] = decode_simd<VideoOp::Absdiff, false>;
  t["vmin4"] = decode_simd<VideoOp::Min, false>;
  t["vmax4"] = decode_simd<VideoOp::Max, false>;
  t["vadd2"] = decode_simd<VideoOp::Add, true>;
  t["vsub2"] = decode_simd<VideoOp::Sub, true>;
  t["vavrg2"] = decode_simd<VideoOp::Avrg, true>;
  t["vabsdiff2"] = decode_simd<VideoOp::Absdiff, true>;
  t["vmin2"] = decode_simd<VideoOp::Min, true>;
  t["vmax2"] = decode_simd<VideoOp::Max, true>;
}

}  // namespace ws::exec::emu
