// How many operations an L2 slice's atomic unit performs for one line of a
// warp's atomic instruction (l2.atomic_ops_per_clk), shared by the detailed
// and the abstract model.
#pragma once
#include <array>
#include <bit>
#include <cstdint>

#include "common/types.h"
#include "timing/mem/mem_request.h"

namespace ws::timing {

// Per sector of the line at `line_addr`: one operation per lane of
// `access_lanes` (the lanes one coalesced access carries; all active lanes
// by default) addressing it, lanes on the same word each counting. When every
// active lane of the warp (`mask`) names one address the warp's operands are
// combined first and the L2 does one (ptxas aggregates such atomics: VOTEU,
// FLO, POPC and a single ATOMG in the H100 SASS of ubench/atomics; an address
// that is the same at run time stands for one the compiler proved uniform).
inline std::array<uint8_t, 4> atomic_ops_per_sector(const Addr* addrs, uint32_t mask, Addr line_addr,
                                                    uint32_t access_lanes = ~0u) {
  std::array<uint8_t, 4> ops{};
  if (!addrs || !mask) return ops;
  Addr first = addrs[std::countr_zero(mask)];
  bool uniform = true;
  for (uint32_t m = mask; m && uniform; m &= m - 1) uniform = addrs[std::countr_zero(m)] == first;
  for (uint32_t m = mask & access_lanes; m; m &= m - 1) {
    Addr a = addrs[std::countr_zero(m)];
    if (a - line_addr >= kLineBytes) continue;  // another line's
    ++ops[(a - line_addr) / kSectorBytes];
    if (uniform) break;
  }
  return ops;
}

}  // namespace ws::timing
