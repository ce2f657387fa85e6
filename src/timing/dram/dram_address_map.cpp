#include "timing/dram/dram_address_map.h"

#include <bit>
#include <string>

#include "common/error.h"
#include "timing/mem/index_hash.h"

namespace ws::timing {

namespace {

const config::Param<int64_t> kColumnLsb{"dram.map.column_lsb", 0, "bit",
                                        "lowest bit of the column field in the channel-local line index "
                                        "(width: log2(dram.row_bytes / 128))",
                                        {0, 48}};
const config::Param<int64_t> kBankLsb{"dram.map.bank_lsb", 4, "bit",
                                      "lowest bit of the bank field in the channel-local line index "
                                      "(width: log2(dram.banks)); the row takes every other bit",
                                      {0, 48}};

const config::Param<bool> kBankXor{"dram.bank_xor", true, "", "XOR low row bits into the bank index"};

uint32_t u32(int64_t v) { return static_cast<uint32_t>(v); }

}  // namespace

DramAddressMap::DramAddressMap(const config::Config& cfg, uint32_t banks)
    : DramAddressMap(u32(kColumnLsb.get(cfg)),
                     log2_exact(static_cast<uint64_t>(cfg.get<int64_t>("dram.row_bytes")) / 128),
                     u32(kBankLsb.get(cfg)), banks, kBankXor.get(cfg)) {}

DramAddressMap::DramAddressMap(uint32_t column_lsb, uint32_t column_bits, uint32_t bank_lsb, uint32_t banks,
                               bool bank_xor)
    : bank_lsb_(bank_lsb), bank_mask_(banks - 1), bank_xor_(bank_xor) {
  if (!is_pow2(banks)) throw ConfigError("dram.banks", "must be a power of two for the address map");
  uint32_t bank_bits = log2_exact(banks);
  uint64_t column = ((uint64_t{1} << column_bits) - 1) << column_lsb;
  uint64_t bank = bank_mask_ << bank_lsb;
  if (column & bank)
    throw ConfigError(kBankLsb.name(), "bank bits " + std::to_string(bank_lsb) + ".." +
                                           std::to_string(bank_lsb + bank_bits - 1) + " overlap the column bits " +
                                           std::to_string(column_lsb) + ".." +
                                           std::to_string(column_lsb + column_bits - 1) + " (dram.map.column_lsb)");
  field_mask_ = column | bank;
  high_shift_ = field_mask_ ? 64 - static_cast<uint32_t>(std::countl_zero(field_mask_)) : 0;
  low_mask_ = high_shift_ ? (uint64_t{1} << high_shift_) - 1 : 0;
  low_row_bits_ = high_shift_ - static_cast<uint32_t>(std::popcount(field_mask_));
}

// The bits of `low` outside the fields, packed downwards in order.
uint64_t DramAddressMap::compact(uint64_t low) const {
  if (low_row_bits_ == 0) return 0;
  uint64_t out = 0;
  uint32_t k = 0;
  for (uint32_t b = 0; b < high_shift_; ++b)
    if (!(field_mask_ >> b & 1)) out |= (low >> b & 1) << k++;
  return out;
}

}  // namespace ws::timing
