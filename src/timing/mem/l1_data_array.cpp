#include "timing/mem/l1_data_array.h"

#include <algorithm>
#include <bit>

#include "timing/mem/mem_request.h"

namespace ws::timing {

L1DataArray::L1DataArray(uint32_t banks, uint32_t bank_bytes)
    : banks_(std::clamp(banks, 1u, kMaxBanks)),
      bank_bytes_(std::max(bank_bytes, 1u)),
      row_bytes_(std::clamp(banks_ * bank_bytes_, 1u, kLineBytes)),
      rows_per_line_(kLineBytes / row_bytes_) {
  open_.reserve(16);
}

void L1DataArray::needed_banks(const std::array<uint32_t, 4>& masks, uint8_t sectors) {
  std::fill_n(row_banks_.begin(), rows_per_line_, 0u);
  // Banks narrower than a sector: look at each bank-wide chunk of the byte
  // mask; wider ones are needed whenever any byte of the sector is.
  uint32_t chunk = std::min(bank_bytes_, kSectorBytes);
  uint32_t chunk_mask = chunk >= 32 ? ~0u : (1u << chunk) - 1;
  for (uint32_t s = 0; s < 4; ++s) {
    if (!(sectors >> s & 1)) continue;
    uint32_t bytes = masks[s] ? masks[s] : ~0u;
    for (uint32_t off = 0; off < kSectorBytes; off += chunk) {
      if (!(bytes >> off & chunk_mask)) continue;
      uint32_t in_line = s * kSectorBytes + off;
      row_banks_[in_line / row_bytes_] |= 1u << (in_line / bank_bytes_ % banks_);
    }
  }
}

Cycle L1DataArray::place(Addr line_addr, uint8_t sector_mask, const std::array<uint32_t, 4>& byte_masks, Cycle now) {
  if (now != open_cycle_) {  // a new tag-stage cycle: wavefronts of earlier cycles are closed
    open_cycle_ = now;
    open_.clear();
    first_wave_ = std::max(now, free_at_);
  }
  needed_banks(byte_masks, sector_mask);
  Cycle last = first_wave_;
  Addr first_row = line_addr / row_bytes_;
  for (uint32_t r = 0; r < rows_per_line_; ++r)
    if (row_banks_[r]) last = std::max(last, place_row(first_row + r, row_banks_[r]));
  return last;
}

// First open wavefront where every needed bank is free or already reads this
// row (lanes of one warp reading one row share it); else a new wavefront.
Cycle L1DataArray::place_row(Addr row, uint32_t banks) {
  for (size_t i = 0; i < open_.size(); ++i) {
    Wave& w = open_[i];
    bool fits = true;
    for (uint32_t both = w.busy & banks; both && fits; both &= both - 1)
      fits = w.row[static_cast<uint32_t>(std::countr_zero(both))] == row;
    if (!fits) continue;
    for (uint32_t add = banks & ~w.busy; add; add &= add - 1) w.row[static_cast<uint32_t>(std::countr_zero(add))] = row;
    w.busy |= banks;
    return first_wave_ + i;
  }
  if (!open_.empty()) ++conflict_wavefronts_;  // it fitted no open wavefront
  Wave& w = open_.emplace_back();
  w.busy = banks;
  for (uint32_t add = banks; add; add &= add - 1) w.row[static_cast<uint32_t>(std::countr_zero(add))] = row;
  ++wavefronts_;
  free_at_ = first_wave_ + open_.size();
  return free_at_ - 1;
}

}  // namespace ws::timing
