// Narrow floating-point formats done by hand: rounding a double to any
// binary format's precision under any rounding mode, and f16/bf16 bits.
#pragma once
#include <cstdint>

#include "exec/emu_internal.h"

namespace ws::exec::emu {

// `x` rounded to `mant_bits` significant bits (implicit bit included), with
// subnormals below 2^emin and overflow past `max_finite` per the mode.
double round_to_precision(double x, int mant_bits, int emin, double max_finite, Rounding r);
// An integer-valued double: x rounded to an integer in the mode.
double round_to_integer(double x, Rounding r);

uint16_t f64_to_f16(double x, Rounding r);
uint16_t f64_to_bf16(double x, Rounding r);
float f64_to_f32(double x, Rounding r);
float f16_to_f32(uint16_t h);
float bf16_to_f32(uint16_t h);

}  // namespace ws::exec::emu
