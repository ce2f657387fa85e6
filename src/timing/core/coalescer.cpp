#include "timing/core/coalescer.h"

#include <algorithm>
#include <cstdint>

namespace ws::timing {

namespace {

// Marks [addr, addr+bytes) in the access, clipped to its 128 B line.
void mark(LineAccess& a, Addr addr, uint32_t bytes) {
  uint32_t off = static_cast<uint32_t>(addr - a.line_addr);
  uint32_t end = std::min(off + bytes, kLineBytes);
  while (off < end) {  // sector by sector
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
size_t access_for(std::vector<LineAccess>& out, size_t from, Addr line) {
  for (size_t i = out.size(); i-- > from;)
    if (out[i].line_addr == line) return i;
  out.push_back(LineAccess{line, 0, {}, 0});
  return out.size() - 1;
}

// The sectors and bytes that consecutive lanes add to one line, kept in
// registers and merged into `out` when the lanes move to another line.
struct Run {
  size_t index = SIZE_MAX;  // access in `out`, SIZE_MAX: none yet
  Addr line = ~Addr{0};
  uint32_t sectors = 0, lanes = 0;
  uint32_t bytes[4] = {};  // per sector of the line

  void flush(std::vector<LineAccess>& out) {
    if (index == SIZE_MAX) return;
    LineAccess& a = out[index];
    a.sector_mask |= static_cast<uint8_t>(sectors);
    a.lanes |= lanes;
    for (uint32_t s = 0; s < 4; ++s) a.byte_masks[s] |= bytes[s];
    sectors = 0;
    lanes = 0;
    std::fill(std::begin(bytes), std::end(bytes), 0u);
  }
  void start(std::vector<LineAccess>& out, size_t from, Addr new_line) {
    flush(out);
    index = access_for(out, from, new_line);
    line = new_line;
  }
};

// Whether all 32 lanes are active and read consecutive, naturally aligned
// elements: the coalesced case, whose accesses follow from the first address.
bool unit_stride(const Addr* lane_addrs, uint32_t active_mask, uint32_t bytes) {
  if (active_mask != ~0u || lane_addrs[0] % bytes != 0 || bytes > kSectorBytes) return false;
  for (uint32_t lane = 1; lane < 32; ++lane)
    if (lane_addrs[lane] != lane_addrs[0] + Addr{lane} * bytes) return false;
  return true;
}

// Marks the contiguous bytes [addr, addr+len) as lanes first_lane.. of
// `bytes_per_lane` each would, one line at a time.
void mark_range(std::vector<LineAccess>& out, size_t from, Addr addr, uint32_t len, uint32_t first_lane,
                uint32_t bytes_per_lane) {
  const Addr start = addr;
  while (len > 0) {
    Addr line = addr & ~Addr{kLineBytes - 1};
    uint32_t n = std::min(len, static_cast<uint32_t>(line + kLineBytes - addr));
    LineAccess& a = out[access_for(out, from, line)];
    mark(a, addr, n);
    uint32_t lo = first_lane + static_cast<uint32_t>(addr - start) / bytes_per_lane;
    uint32_t hi = first_lane + static_cast<uint32_t>(addr + n - 1 - start) / bytes_per_lane;
    a.lanes |= static_cast<uint32_t>(((uint64_t{2} << hi) - 1) & ~((uint64_t{1} << lo) - 1));
    addr += n;
    len -= n;
  }
}

}  // namespace

void SubWarpCoalescer::coalesce_unit_stride(const Addr* lane_addrs, uint32_t bytes_per_lane,
                                            std::vector<LineAccess>& out) const {
  size_t begin = out.size();
  for (uint32_t base = 0; base < 32; base += subwarp_lanes_) {
    uint32_t lanes = std::min(subwarp_lanes_, 32 - base);
    size_t first = out.size();
    mark_range(out, first > begin ? first - 1 : begin, lane_addrs[base], lanes * bytes_per_lane, base, bytes_per_lane);
  }
}

void SubWarpCoalescer::coalesce(const Addr* lane_addrs, uint32_t active_mask, uint32_t bytes_per_lane,
                                std::vector<LineAccess>& out) const {
  if (bytes_per_lane == 0) bytes_per_lane = 4;
  if (unit_stride(lane_addrs, active_mask, bytes_per_lane)) return coalesce_unit_stride(lane_addrs, bytes_per_lane, out);
  // Lanes of up to one sector that stay inside it (the usual, aligned case)
  // take the fast path; anything else goes through mark().
  const uint32_t lane_bits = bytes_per_lane >= 32 ? ~0u : (1u << bytes_per_lane) - 1;
  const uint32_t subwarp_mask = subwarp_lanes_ >= 32 ? ~0u : (1u << subwarp_lanes_) - 1;
  size_t begin = out.size();
  for (uint32_t base = 0; base < 32; base += subwarp_lanes_) {
    uint32_t lanes = active_mask >> base & subwarp_mask;
    if (!lanes) continue;
    size_t first = out.size();
    size_t from = first > begin ? first - 1 : begin;
    Run run;
    for (; lanes; lanes &= lanes - 1) {
      uint32_t lane = base + static_cast<uint32_t>(__builtin_ctz(lanes));
      Addr a = lane_addrs[lane];
      Addr line = a & ~Addr{kLineBytes - 1};
      uint32_t in_sector = static_cast<uint32_t>(a % kSectorBytes);
      if (in_sector + bytes_per_lane <= kSectorBytes) {
        if (line != run.line) run.start(out, from, line);
        uint32_t sector = static_cast<uint32_t>(a - line) / kSectorBytes;
        run.sectors |= 1u << sector;
        run.lanes |= 1u << lane;
        run.bytes[sector] |= lane_bits << in_sector;
        continue;
      }
      // Spans sectors, and maybe into the next line.
      if (line != run.line) run.start(out, from, line);
      run.flush(out);
      mark(out[run.index], a, bytes_per_lane);
      out[run.index].lanes |= 1u << lane;
      Addr end = a + bytes_per_lane - 1;
      if ((end & ~Addr{kLineBytes - 1}) != line) {
        Addr next = line + kLineBytes;
        run.start(out, from, next);
        mark(out[run.index], next, static_cast<uint32_t>(end - next + 1));
        out[run.index].lanes |= 1u << lane;
      }
    }
    run.flush(out);
  }
}

}  // namespace ws::timing
