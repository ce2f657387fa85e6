// What travels between the L1s, the interconnect, the L2 slices and DRAM.
#pragma once
#include <bit>
#include <cstdint>
#include <string>

#include "common/error.h"
#include "common/types.h"
#include "ir/warp_inst.h"

namespace ws::timing {

inline constexpr uint32_t kSectorBytes = 32;
inline constexpr uint32_t kLineBytes = 128;
// Kernel code lives at kCodeRegionBase + (region << kCodeRegionShift), one
// region per kernel name (1 GiB each: PCs of exec kernels reach 2^20 per
// function), below kCodeRegionEnd. Data is elsewhere: exec allocates from
// 0x7f00'0000'0000 (its shared/local/function windows at 0x7c..-0x7e..),
// maps unified and page-locked host memory from 0x6000'0000'0000
// (exec/memory_windows.h), and NVBit traces of Linux programs carry 0x7f..
// addresses too, so a test for code must check both ends. (Until 2026-11-29
// the regions reached 0x7000'0000'0000, and a kernel's reads of managed or
// mapped host memory all hit in the L2 as code the launch had loaded there.)
inline constexpr Addr kCodeRegionBase = 0x0000'4000'0000'0000ull;
inline constexpr Addr kCodeRegionEnd = 0x0000'5000'0000'0000ull;
inline constexpr unsigned kCodeRegionShift = 30;
inline bool is_code_addr(Addr a) { return a >= kCodeRegionBase && a < kCodeRegionEnd; }
// The code address of region `index` (one per kernel name); throws past the last.
inline Addr code_region_base(uint64_t index) {
  if (index >= (kCodeRegionEnd - kCodeRegionBase) >> kCodeRegionShift)
    throw InputError("more than " + std::to_string((kCodeRegionEnd - kCodeRegionBase) >> kCodeRegionShift) +
                     " distinct kernel names: no code region left for another");
  return kCodeRegionBase + (Addr{index} << kCodeRegionShift);
}

enum class AccessType : uint8_t { Read, Write, Atomic };

// Which of the SM's caches sent a request (replies are routed back to it).
enum class MemClient : uint8_t { Data, Inst, Const };
inline constexpr uint32_t kMemClients = 3;  // reply outputs per SM (one per client)

// One message between the L1s, the interconnect, the L2 slices and DRAM, at
// the granularity the hardware moves it: a read is one request per line
// access naming the sectors it wants (`sectors`), answered by one reply per
// group of them that is ready together; a store is one message per group of
// a line's sectors written alike; the L2 asks DRAM for a line's missing
// sectors in one read and writes back a group of sectors written alike in
// one write. Atomics are one sector each (`sectors` = 0).
struct MemRequest {
  Addr addr = 0;            // 32 B-sector-aligned address: the lowest sector the message carries
  uint32_t byte_mask = 0;   // a write's or atomic's bytes of that sector (bit i = byte i)
  AccessType type = AccessType::Read;
  bool is_reply : 1 = false;  // set on the way back
  uint8_t sectors : 4 = 0;    // bit s: sector s of addr's line (0: the sector at addr alone)
  uint16_t src_sm = 0;      // requesting SM (reply routing)
  union {
    uint16_t src_slice = 0;  // towards DRAM: the L2 slice that sent it (DRAM reply routing)
    uint16_t thread_ops;     // an atomic towards L2: its lanes' operations on this sector (0 = one)
  };
  MemClient client = MemClient::Data;
  ir::CacheOp cache_op = ir::CacheOp::Default;  // what the access asks of L2 (streaming, write-through)
  uint32_t tag = 0;         // requester's token, returned unchanged in the reply
  Tick issued = 0;          // when the L1 sent it (latency stats)

  bool needs_reply() const { return type != AccessType::Write; }
  // The sectors of addr's line the message carries (bit s = sector s).
  uint8_t sector_bits() const {
    return sectors != 0 ? sectors : static_cast<uint8_t>(1u << ((addr / kSectorBytes) % (kLineBytes / kSectorBytes)));
  }
  uint32_t sector_count() const { return sectors != 0 ? static_cast<uint32_t>(std::popcount(sectors)) : 1; }
  Addr line_addr() const { return addr & ~Addr{kLineBytes - 1}; }
  // Calls f(sector address) for each sector the message carries, lowest first.
  template <class F>
  void for_each_sector(F&& f) const {
    for (uint8_t bits = sector_bits(); bits != 0; bits &= static_cast<uint8_t>(bits - 1))
      f(line_addr() + Addr{static_cast<uint32_t>(std::countr_zero(bits))} * kSectorBytes);
  }
  // Narrows the message to the sectors in `bits` (a non-empty subset of sector_bits()).
  void keep_sectors(uint8_t bits) {
    sectors = bits;
    addr = line_addr() + Addr{static_cast<uint32_t>(std::countr_zero(bits))} * kSectorBytes;
  }
  // Bytes this message carries on a link: data for write requests and read
  // replies (32 B a sector), a header otherwise.
  uint32_t payload_bytes() const {
    bool data = is_reply ? type != AccessType::Write : type != AccessType::Read;
    return data ? kSectorBytes * sector_count() : 0;
  }
};
static_assert(sizeof(MemRequest) == 32, "MemRequest travels through every queue: keep it at 32 bytes");

}  // namespace ws::timing
