// DRAM address map: field placement, row compaction, bank XOR, overlap errors.
#include <gtest/gtest.h>

#include "common/error.h"
#include "timing/dram/dram_address_map.h"

namespace ws::timing {
namespace {

// Default layout (column 0..3, bank 4..7, row above): consecutive lines fill a
// row of one bank, the next 16 lines go to the next bank.
TEST(DramAddressMap, DefaultLayoutFillsARowThenMovesToTheNextBank) {
  DramAddressMap m(0, 4, 4, 16, false);
  for (uint64_t line = 0; line < 16; ++line) EXPECT_EQ(m.locate(line).bank, 0u);
  EXPECT_EQ(m.locate(16).bank, 1u);
  EXPECT_EQ(m.locate(16 * 16).row, 1u);
  EXPECT_EQ(m.locate(16 * 16 + 16 * 3).bank, 3u);
}

// Bank bits below the column: consecutive lines interleave over the banks.
TEST(DramAddressMap, BankBitsBelowTheColumnInterleaveLines) {
  DramAddressMap m(4, 4, 0, 16, false);
  for (uint64_t line = 0; line < 16; ++line) EXPECT_EQ(m.locate(line).bank, line);
  EXPECT_EQ(m.locate(256).row, 1u);
}

// A gap between the fields: the bits in it are the row's lowest bits.
TEST(DramAddressMap, BitsBetweenFieldsBelongToTheRow) {
  DramAddressMap m(0, 4, 6, 16, false);  // bits 4..5 are row bits, 10.. too
  EXPECT_EQ(m.locate(1u << 4).row, 1u);
  EXPECT_EQ(m.locate(1u << 5).row, 2u);
  EXPECT_EQ(m.locate(1u << 10).row, 4u);
  EXPECT_EQ(m.locate(1u << 6).bank, 1u);
}

TEST(DramAddressMap, BankXorSpreadsRowsOfOneBankOverBanks) {
  DramAddressMap plain(0, 4, 4, 16, false), hashed(0, 4, 4, 16, true);
  uint64_t line_row3_bank0 = 3u << 8;
  EXPECT_EQ(plain.locate(line_row3_bank0).bank, 0u);
  EXPECT_EQ(hashed.locate(line_row3_bank0).bank, 3u);
  EXPECT_EQ(hashed.locate(line_row3_bank0).row, 3u);
}

TEST(DramAddressMap, OverlappingFieldsAreRejectedNamingTheParameter) {
  try {
    DramAddressMap m(0, 4, 2, 16, false);
    FAIL() << "expected a ConfigError";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("dram.map.bank_lsb"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("overlap"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace ws::timing
