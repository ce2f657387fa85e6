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
// by default) addressing it, lanes on the same word each counting: the H100
// does not combine them (ubench/atomics, 32 lanes on one word run 9x slower
// than on 32 words; docs/validation-h100.md). A warp whose lanes the
// compiler proved to share one address sends a single lane instead
// (exec/warp_aggregation.h; an NVBit trace records that lane alone).
inline std::array<uint8_t, 4> atomic_ops_per_sector(const Addr* addrs, uint32_t mask, Addr line_addr,
                                                    uint32_t access_lanes = ~0u) {
  std::array<uint8_t, 4> ops{};
  if (!addrs) return ops;
  for (uint32_t m = mask & access_lanes; m; m &= m - 1) {
    Addr a = addrs[std::countr_zero(m)];
    if (a - line_addr >= kLineBytes) continue;  // another line's
    ++ops[(a - line_addr) / kSectorBytes];
  }
  return ops;
}

}  // namespace ws::timing
