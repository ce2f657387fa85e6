#include "exec/half.h"

#include <cmath>
#include <cstring>
#include <limits>

namespace ws::exec::emu {

double round_to_integer(double x, Rounding r) {
  switch (r) {
    case Rounding::Rz: return std::trunc(x);
    case Rounding::Rm: return std::floor(x);
    case Rounding::Rp: return std::ceil(x);
    case Rounding::Rna: return std::round(x);
    case Rounding::Rn: break;
  }
  double f = std::floor(x), diff = x - f;  // exact for any double
  if (diff > 0.5) return f + 1;
  if (diff < 0.5) return f;
  return std::fmod(f, 2.0) == 0 ? f : f + 1;
}

double round_to_precision(double x, int mant_bits, int emin, double max_finite, Rounding r) {
  if (std::isnan(x) || std::isinf(x) || x == 0) return x;
  int e = std::max(std::ilogb(x), emin);
  double q = std::ldexp(1.0, e - (mant_bits - 1));
  double y = round_to_integer(x / q, r) * q;  // scaling by a power of two is exact
  if (std::fabs(y) > max_finite) {
    const double inf = std::numeric_limits<double>::infinity();
    bool pos = x > 0;
    switch (r) {
      case Rounding::Rz: y = pos ? max_finite : -max_finite; break;
      case Rounding::Rm: y = pos ? max_finite : -inf; break;
      case Rounding::Rp: y = pos ? inf : -max_finite; break;
      default: y = pos ? inf : -inf; break;
    }
  }
  return y == 0 ? std::copysign(0.0, x) : y;
}

uint16_t f64_to_f16(double x, Rounding r) {
  if (std::isnan(x)) return 0x7fff;
  double y = round_to_precision(x, 11, -14, 65504.0, r);
  uint16_t sign = std::signbit(y) ? 0x8000 : 0;
  double a = std::fabs(y);
  if (std::isinf(a)) return sign | 0x7c00;
  if (a == 0) return sign;
  int e = std::ilogb(a);
  if (e < -14) return sign | static_cast<uint16_t>(a / std::ldexp(1.0, -24));
  auto mant = static_cast<uint16_t>((a / std::ldexp(1.0, e) - 1.0) * 1024.0);
  return sign | static_cast<uint16_t>((e + 15) << 10) | mant;
}

float f64_to_f32(double x, Rounding r) {
  return static_cast<float>(round_to_precision(x, 24, -126, std::numeric_limits<float>::max(), r));
}

uint16_t f64_to_bf16(double x, Rounding r) {
  if (std::isnan(x)) return 0x7fff;
  double max = std::ldexp(255.0 / 128.0, 127);  // 0x7f7f
  auto f = static_cast<float>(round_to_precision(x, 8, -126, max, r));
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  return static_cast<uint16_t>(bits >> 16);
}

float f16_to_f32(uint16_t h) {
  float sign = (h & 0x8000) ? -1.0f : 1.0f;
  unsigned e = (h >> 10) & 0x1f, m = h & 0x3ff;
  if (e == 0x1f) return m ? std::numeric_limits<float>::quiet_NaN() : sign * std::numeric_limits<float>::infinity();
  if (e == 0) return sign * std::ldexp(static_cast<float>(m), -24);
  return sign * std::ldexp(static_cast<float>(m | 0x400), static_cast<int>(e) - 25);
}

float bf16_to_f32(uint16_t h) {
  uint32_t bits = uint32_t{h} << 16;
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

}  // namespace ws::exec::emu
