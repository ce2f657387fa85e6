// Where kernel parameters live as the timing models see them.
//
// Since Fermi a kernel reads its parameters from constant bank 0 of its
// launch (`c[0x0][0x210]` onwards in sm_90 SASS): ptxas turns `ld.param` into
// an LDC or a constant operand, and each SM's first read of the bank misses
// its constant caches. The launch itself writes the bank, so its lines are
// in the L2 whenever a kernel reads them: the L2 models treat this window so.
// One window serves every launch (banks are rewritten per launch; a kernel
// reads only its own).
#pragma once
#include <cstdint>

#include "common/types.h"

namespace ws::ir {

inline constexpr Addr kParamBankBase = 0x0000'3f00'0000'0000ull;
inline constexpr Addr kParamBankBytes = Addr{1} << 16;  // one 64 KiB constant bank
inline bool is_param_bank_addr(Addr a) { return a - kParamBankBase < kParamBankBytes; }

// The offset of a kernel's first parameter in bank 0, by SASS version: the
// EIATTR_PARAM_CBANK attribute of nvcc 13's cubins reads 0x160 for sm_75 and
// 0x210 for sm_90; Kepler to Pascal put them at 0x140, Fermi at 0x20.
inline constexpr Addr param_bank_offset(uint32_t sass_version) {
  return sass_version >= 90 ? 0x210 : sass_version >= 70 ? 0x160 : sass_version >= 30 ? 0x140 : 0x20;
}

}  // namespace ws::ir
