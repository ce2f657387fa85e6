// Where a line lives inside its DRAM channel: which bits of the channel-local
// line index select the column (line within the row), the bank and the row.
// The L2 slice hash has already chosen the channel.
#pragma once
#include <cstdint>

#include "config/config.h"

namespace ws::timing {

struct DramLocation {
  uint32_t bank = 0;
  uint64_t row = 0;
};

class DramAddressMap {
 public:
  // Column and bank fields from dram.map.column_lsb / dram.map.bank_lsb (their
  // widths follow from dram.row_bytes and dram.banks); the row is every other
  // bit, in order. Overlapping fields are a ConfigError naming the parameter.
  DramAddressMap(const config::Config& cfg, uint32_t banks);
  DramAddressMap(uint32_t column_lsb, uint32_t column_bits, uint32_t bank_lsb, uint32_t banks, bool bank_xor);

  DramLocation locate(uint64_t local_line) const {
    uint64_t bank = (local_line >> bank_lsb_) & bank_mask_;
    uint64_t low = local_line & low_mask_, high = local_line >> high_shift_;
    // Row: the bits below the upper field, without the column and bank bits, then the rest.
    uint64_t row = compact(low) | (high << low_row_bits_);
    if (bank_xor_) bank ^= row & bank_mask_;
    return DramLocation{static_cast<uint32_t>(bank), row};
  }

 private:
  uint64_t compact(uint64_t low) const;

  uint32_t bank_lsb_;
  uint64_t bank_mask_;
  uint64_t field_mask_ = 0;    // column and bank bits
  uint64_t low_mask_ = 0;      // bits below the highest field bit
  uint32_t high_shift_ = 0, low_row_bits_ = 0;
  bool bank_xor_;
};

}  // namespace ws::timing
