// How many operations an L2 slice's atomic unit performs for one line of a
// warp's atomic instruction (l2.atomic_ops_per_clk), shared by the detailed
// and the abstract model.
#pragma once
#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>

#include "common/types.h"
#include "timing/mem/mem_request.h"

namespace ws::timing {

// What one coalesced access of a warp's atomic asks of the L2, per sector of
// the line at `line_addr`, from the lanes of `access_lanes` (all active lanes
// by default) that address it:
// - ops: one operation per lane, lanes on the same word each counting (the
//   H100 does not combine them: ubench/atomics, 32 lanes on one word run 9x
//   slower than on 32 words; docs/validation-h100.md). A warp whose lanes the
//   compiler proved to share one address sends a single lane instead
//   (exec/warp_aggregation.h; an NVBit trace records that lane alone).
// - passes: the requests the L1 makes of them, each with at most one lane per
//   address (the most lanes that name one address; 0 where none do).
struct AtomicLanes {
  std::array<uint8_t, 4> ops{};
  std::array<uint8_t, 4> passes{};
};

inline AtomicLanes atomic_lanes(const Addr* addrs, uint32_t mask, Addr line_addr, uint32_t access_lanes = ~0u) {
  AtomicLanes out;
  if (!addrs) return out;
  std::array<uint8_t, kLineBytes / 4> per_word{};  // lanes per 4 B word (an 8 B operand names its first)
  for (uint32_t m = mask & access_lanes; m; m &= m - 1) {
    Addr a = addrs[std::countr_zero(m)];
    if (a - line_addr >= kLineBytes) continue;  // another line's
    uint32_t word = static_cast<uint32_t>(a - line_addr) / 4, s = word / (kSectorBytes / 4);
    ++out.ops[s];
    out.passes[s] = std::max(out.passes[s], ++per_word[word]);
  }
  return out;
}

// The requests the L1 sends for the sectors `sector_mask` (a pass each, at
// least one per sector), which each hold it l1d.atomic_request_cycles.
inline uint32_t atomic_requests(const std::array<uint8_t, 4>& passes, uint8_t sector_mask) {
  uint32_t n = 0;
  for (uint32_t s = 0; s < passes.size(); ++s)
    if (sector_mask >> s & 1) n += std::max<uint32_t>(1, passes[s]);
  return n;
}

}  // namespace ws::timing
