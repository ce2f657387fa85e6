// The L1's data array as `banks` SRAM banks, each `bank_bytes` wide: in one
// cycle (a data wavefront) every bank delivers one row of the array, where a
// row is banks x bank_bytes consecutive bytes. The unified L1/shared array of
// Volta and later is 32 banks x 4 B, so a 128 B line is exactly one row and a
// whole line is read in one cycle.
//
// Rule: the line accesses the tag stage resolves in one cycle (up to
// l1d.tag_lookups lines of one warp instruction) share wavefronts; each byte
// they read needs its bank for its row; two accesses that need the same bank
// in different rows (different lines, for 32 x 4 B) cannot share a wavefront,
// so the cycle's accesses take as many wavefronts as the busiest bank has
// distinct rows (placed first fit, in arrival order). Wavefronts are issued
// in order, one per cycle, and the next tag-stage cycle starts a new one.
#pragma once
#include <array>
#include <cstdint>
#include <vector>

#include "common/types.h"

namespace ws::timing {

class L1DataArray {
 public:
  static constexpr uint32_t kMaxBanks = 32;
  // banks <= 32 and banks * bank_bytes a power of two dividing 128 (checked
  // by the L1D, which names its parameters).
  L1DataArray(uint32_t banks, uint32_t bank_bytes);

  // Reserves wavefronts for the bytes read from one line (byte_masks[s] == 0
  // means the whole of sector s) by an access the tag stage handled in cycle
  // `now`; returns the cycle of the access's last wavefront.
  Cycle place(Addr line_addr, uint8_t sector_mask, const std::array<uint32_t, 4>& byte_masks, Cycle now);
  // The first cycle without a reserved wavefront: the tag stage waits for it
  // before starting another cycle's lookups.
  Cycle free_at() const { return free_at_; }
  // Wavefronts reserved so far.
  uint64_t wavefronts() const { return wavefronts_; }
  // Of those, the ones opened because a bank was already taken by another row
  // in this tag-stage cycle: the cycles bank conflicts cost.
  uint64_t conflict_wavefronts() const { return conflict_wavefronts_; }

 private:
  struct Wave {
    uint32_t busy = 0;                    // bit b: bank b already reads row[b]
    std::array<Addr, kMaxBanks> row{};
  };
  // Bank mask of each row of the line that the access needs.
  void needed_banks(const std::array<uint32_t, 4>& masks, uint8_t sectors);
  Cycle place_row(Addr row, uint32_t banks);

  uint32_t banks_, bank_bytes_, row_bytes_, rows_per_line_;
  std::array<uint32_t, 128 / 4> row_banks_{};  // scratch: per row of the line, banks needed
  std::vector<Wave> open_;  // wavefronts of the current tag-stage cycle
  Cycle open_cycle_ = ~Cycle{0};  // tag-stage cycle whose wavefronts are open
  Cycle first_wave_ = 0;          // cycle of open_[0]
  Cycle free_at_ = 0;
  uint64_t wavefronts_ = 0;
  uint64_t conflict_wavefronts_ = 0;
};

}  // namespace ws::timing
