#include "exec/tensor_fragments.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstring>
#include <limits>

#include "exec/half.h"

namespace ws::exec::emu::tensor {

uint32_t FragSpec::pack() const {
  return uint32_t{m} | uint32_t{n} << 8 | uint32_t{k} << 16 | uint32_t(op) << 24 | uint32_t(elem) << 26 |
         uint32_t(family) << 30 | uint32_t{col_major} << 31;
}

FragSpec FragSpec::unpack(uint32_t b) {
  FragSpec f;
  f.m = uint8_t(b), f.n = uint8_t(b >> 8), f.k = uint8_t(b >> 16);
  f.op = Operand((b >> 24) & 3);
  f.elem = Elem((b >> 26) & 15);
  f.family = Family((b >> 30) & 1);
  f.col_major = (b >> 31) & 1;
  return f;
}

unsigned elem_bits(Elem e) {
  switch (e) {
    case Elem::F16: case Elem::BF16: return 16;
    case Elem::S8: case Elem::U8: return 8;
    case Elem::F64: return 64;
    default: return 32;
  }
}

bool is_integer(Elem e) { return e == Elem::S8 || e == Elem::U8 || e == Elem::S32; }

namespace {

// mma.sync fragments of the m16n8kK shapes. `per` is the elements one
// 32-bit register packs: consecutive slots of a register run along K (A, B)
// or N (C), and registers step by 8 rows (A, C) or by 4*per along K.
Coord mma_m16n8(const FragSpec& f, unsigned lane, unsigned slot) {
  unsigned g = lane / 4, t = lane % 4;
  if (f.op == Operand::C) return {g + 8 * (slot / 2), 2 * t + slot % 2};
  unsigned per = elems_per_reg(f.elem), reg = slot / per, j = slot % per;
  if (f.op == Operand::A) return {g + 8 * (reg % 2), t * per + j + 4 * per * (reg / 2)};
  return {t * per + j + 4 * per * reg, g};
}

// mma.sync .m8n8k4 .f64: A is 8x4 (one element per lane), B 4x8, C 8x8.
Coord mma_m8n8k4(const FragSpec& f, unsigned lane, unsigned slot) {
  unsigned g = lane / 4, t = lane % 4;
  if (f.op == Operand::A) return {g, t};
  if (f.op == Operand::B) return {t, g};
  return {g, 2 * t + slot};
}

// Volta's f16 mma.m8n8k4, per quad pair: the low lanes (l < 16) hold rows
// (A, C) or columns (B) 0-3, the high lanes 4-7; t = lane % 4. f32
// accumulators interleave rows and columns among the quad pair's lanes.
Coord mma_quad_pair(const FragSpec& f, unsigned lane, unsigned slot) {
  unsigned hi = lane >= 16 ? 4 : 0, t = lane % 4;
  switch (f.op) {
    case Operand::A: return f.col_major ? Coord{slot + hi, t} : Coord{t + hi, slot};
    case Operand::B: return f.col_major ? Coord{slot, t + hi} : Coord{t, slot + hi};
    case Operand::C: break;
  }
  if (f.elem == Elem::F16) return {t + hi, slot};
  return {(lane & 1) + (slot & 2) + hi, (slot & 4) + (lane & 2) + (slot & 1)};
}

uint64_t reg_field(Elem e, const uint64_t* const* regs, unsigned lane, unsigned slot) {
  unsigned per = elems_per_reg(e), bits = elem_bits(e);
  uint64_t r = regs[slot / per][lane];
  if (bits == 64) return r;
  return (r >> (slot % per * bits)) & ((uint64_t{1} << bits) - 1);
}

float as_float(uint64_t bits) {
  auto b = static_cast<uint32_t>(bits);
  float f;
  std::memcpy(&f, &b, 4);
  return f;
}

uint64_t float_bits(float f) {
  uint32_t b;
  std::memcpy(&b, &f, 4);
  return b;
}

double largest(Elem e) {
  switch (e) {
    case Elem::F16: return 65504.0;
    case Elem::BF16: return std::ldexp(255.0 / 128.0, 127);
    case Elem::F64: return std::numeric_limits<double>::max();
    default: return std::numeric_limits<float>::max();
  }
}

}  // namespace

Coord coord(const FragSpec& f, unsigned lane, unsigned slot) {
  if (f.quad_pair()) return mma_quad_pair(f, lane, slot);
  if (f.family == Family::MmaSync) return f.m == 8 ? mma_m8n8k4(f, lane, slot) : mma_m16n8(f, lane, slot);
  unsigned p = slot % f.unique_per_lane() * 32 + lane;
  return {p / f.cols(), p % f.cols()};
}

double bits_value(Elem e, uint64_t bits) {
  switch (e) {
    case Elem::F16: return f16_to_f32(static_cast<uint16_t>(bits));
    case Elem::BF16: return bf16_to_f32(static_cast<uint16_t>(bits));
    case Elem::TF32: return as_float(bits & ~uint64_t{0x1fff});  // the tensor core reads 10 mantissa bits
    case Elem::F32: return as_float(bits);
    case Elem::F64: {
      double d;
      std::memcpy(&d, &bits, 8);
      return d;
    }
    case Elem::S8: return static_cast<int8_t>(bits);
    case Elem::U8: return static_cast<uint8_t>(bits);
    case Elem::S32: return static_cast<int32_t>(bits);
  }
  return 0;
}

uint64_t slot_bits(Elem e, const uint64_t* const* regs, unsigned lane, unsigned slot) {
  return reg_field(e, regs, lane, slot);
}

void set_slot_bits(Elem e, uint64_t* const* regs, unsigned lane, unsigned slot, uint64_t bits) {
  unsigned per = elems_per_reg(e), w = elem_bits(e);
  uint64_t& r = regs[slot / per][lane];
  if (w == 64) {
    r = bits;
    return;
  }
  unsigned shift = slot % per * w;
  uint64_t mask = ((uint64_t{1} << w) - 1) << shift;
  r = (r & ~mask & 0xffffffffull) | (bits << shift & mask);
}

double read_slot(Elem e, const uint64_t* const* regs, unsigned lane, unsigned slot) {
  return bits_value(e, reg_field(e, regs, lane, slot));
}

void write_slot(Elem e, uint64_t* const* regs, unsigned lane, unsigned slot, double v) {
  uint64_t bits = 0;
  switch (e) {
    case Elem::F16: bits = f64_to_f16(v, Rounding::Rn); break;
    case Elem::BF16: bits = f64_to_bf16(v, Rounding::Rn); break;
    case Elem::F32: case Elem::TF32: bits = float_bits(static_cast<float>(v)); break;
    case Elem::F64: std::memcpy(&bits, &v, 8); break;
    default: bits = static_cast<uint32_t>(static_cast<int32_t>(v)); break;
  }
  set_slot_bits(e, regs, lane, slot, bits);
}

namespace {

constexpr unsigned kMaxDim = 32;
using Matrix = double[kMaxDim][kMaxDim];

// Gathers the fragment slots of product `p`'s lanes into its logical matrix.
void gather(const FragSpec& f, const uint64_t* const* regs, unsigned slots, unsigned p, Matrix& out) {
  for (unsigned lane = 0; lane < 32; ++lane)
    for (unsigned s = 0; s < slots && product_of(f, lane) == p; ++s) {
      Coord at = coord(f, lane, s);
      out[at.row][at.col] = read_slot(f.elem, regs, lane, s);
    }
}

// The accumulated value as D's type holds it.
double finish(const MmaOperands& o, double sum, int64_t isum) {
  if (is_integer(o.d.elem)) {
    if (o.satfinite) isum = std::clamp<int64_t>(isum, INT32_MIN, INT32_MAX);
    return static_cast<double>(static_cast<int32_t>(static_cast<uint32_t>(isum)));
  }
  if (o.satfinite && std::isinf(sum)) return std::copysign(largest(o.d.elem), sum);
  if (o.d.elem == Elem::F32) {
    auto f = static_cast<float>(sum);  // round to nearest even
    if (o.satfinite && std::isinf(f)) return std::copysign(largest(Elem::F32), sum);
    return f;
  }
  if (o.satfinite && o.d.elem == Elem::F16 && std::fabs(sum) > largest(Elem::F16))
    return std::copysign(largest(Elem::F16), sum);
  return sum;  // f16 rounds in write_slot; f64 is already exact in type
}

// D = A x B + C for the lanes of product `p` (the whole warp but for quad pairs).
void product_mma(const MmaOperands& o, uint32_t write_mask, unsigned p) {
  static thread_local Matrix a, b, c;
  gather(o.a, o.ra, o.na, p, a);
  gather(o.b, o.rb, o.nb, p, b);
  gather(o.c, o.rc, o.nc, p, c);
  unsigned kk = o.a.k;
  bool integer = is_integer(o.d.elem);
  for (unsigned lane = 0; lane < 32; ++lane) {
    if (!(write_mask >> lane & 1) || product_of(o.d, lane) != p) continue;
    for (unsigned s = 0; s < o.nd; ++s) {
      Coord at = coord(o.d, lane, s);
      double sum = c[at.row][at.col];
      int64_t isum = static_cast<int64_t>(sum);
      for (unsigned k = 0; k < kk; ++k) {
        if (integer) isum += static_cast<int64_t>(a[at.row][k]) * static_cast<int64_t>(b[k][at.col]);
        else sum += a[at.row][k] * b[k][at.col];
      }
      write_slot(o.d.elem, o.rd, lane, s, finish(o, sum, isum));
    }
  }
}

}  // namespace

void warp_mma(const MmaOperands& o, uint32_t write_mask) {
  for (unsigned p = 0, n = o.a.quad_pair() ? 4 : 1; p < n; ++p) product_mma(o, write_mask, p);
}

}  // namespace ws::exec::emu::tensor
