#include "timing/core/coalescer.h"

#include <algorithm>
#include <cstdint>

namespace ws::timing {

namespace {

// Marks [addr, addr+bytes) in the access, clipped to its 128 B line.
void mark(LineAccess& a, Addr addr, uint32_t bytes) {
  uint32_t off = static_cast<uint32_t>(addr - a.line_addr);
  if (off % kSectorBytes + bytes <= kSectorBytes) {  // the usual case: inside one sector
    uint32_t sector = off / kSectorBytes;
    a.sector_mask |= static_cast<uint8_t>(1u << sector);
    a.byte_masks[sector] |= bytes == 32 ? ~0u : ((1u << bytes) - 1) << (off % kSectorBytes);
    return;
  }
  uint32_t end = std::min(off + bytes, kLineBytes);
  while (off < end) {  // at most two sectors for accesses of up to 16 B
    uint32_t sector = off / kSectorBytes;
    uint32_t stop = std::min(end, (sector + 1) * kSectorBytes);
    uint32_t n = stop - off;
    uint32_t bits = n == 32 ? ~0u : ((1u << n) - 1) << (off % kSectorBytes);
    a.sector_mask |= static_cast<uint8_t>(1u << sector);
    a.byte_masks[sector] |= bits;
    off = stop;
  }
}

// Index of the access for `line`: one of this sub-warp or the last one of the
// preceding sub-warp, else a new one. Lines are unique over that range.
size_t access_for(std::vector<LineAccess>& out, size_t begin, size_t first_of_subwarp, Addr line) {
  size_t from = first_of_subwarp > begin ? first_of_subwarp - 1 : begin;
  for (size_t i = out.size(); i-- > from;)
    if (out[i].line_addr == line) return i;
  out.push_back(LineAccess{line, 0, {}});
  return out.size() - 1;
}

}  // namespace

void SubWarpCoalescer::coalesce(const Addr* lane_addrs, uint32_t active_mask, uint32_t bytes_per_lane,
                                std::vector<LineAccess>& out) const {
  if (bytes_per_lane == 0) bytes_per_lane = 4;
  size_t begin = out.size();
  for (uint32_t base = 0; base < 32; base += subwarp_lanes_) {
    size_t first = out.size();
    size_t cur = SIZE_MAX;  // the access the previous lane of this sub-warp used
    for (uint32_t lane = base; lane < base + subwarp_lanes_ && lane < 32; ++lane) {
      if (!(active_mask >> lane & 1)) continue;
      Addr a = lane_addrs[lane];
      Addr line = a & ~Addr{kLineBytes - 1};
      // Neighbouring lanes mostly share a line; lines are unique in the range
      // access_for searches, so a match here is the one it would find.
      if (cur == SIZE_MAX || out[cur].line_addr != line) cur = access_for(out, begin, first, line);
      mark(out[cur], a, bytes_per_lane);
      Addr end = a + bytes_per_lane - 1;  // an unaligned access may straddle two lines
      if ((end & ~Addr{kLineBytes - 1}) != line) {
        Addr next = line + kLineBytes;
        mark(out[access_for(out, begin, first, next)], next, static_cast<uint32_t>(end - next + 1));
      }
    }
  }
}

}  // namespace ws::timing
