// The sub-warp sectored coalescer of the LD/ST unit (Volta and later): the
// lanes of a warp are taken 8 at a time; each sub-warp yields one access per
// 128 B line it touches, with the mask of 32 B sectors (and bytes) it needs.
// Consecutive sub-warps touching the same line share one access, since the
// L1 looks up a line with up to four sectors in one tag lookup.
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "common/types.h"
#include "timing/mem/mem_request.h"

namespace ws::timing {


struct LineAccess {
  Addr line_addr = 0;                   // 128 B aligned
  uint8_t sector_mask = 0;              // bit s = sector s of the line
  std::array<uint32_t, 4> byte_masks{};  // per sector, bytes touched
  uint32_t lanes = 0;                    // the lanes whose bytes this access carries
};

class SubWarpCoalescer {
 public:
  explicit SubWarpCoalescer(uint32_t subwarp_lanes = 8) : subwarp_lanes_(subwarp_lanes) {}
  // Appends the accesses of one warp memory instruction to `out`.
  void coalesce(const Addr* lane_addrs, uint32_t active_mask, uint32_t bytes_per_lane,
                std::vector<LineAccess>& out) const;

 private:
  void coalesce_unit_stride(const Addr* lane_addrs, uint32_t bytes_per_lane, std::vector<LineAccess>& out) const;
  uint32_t subwarp_lanes_;
};

}  // namespace ws::timing
