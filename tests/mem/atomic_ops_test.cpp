// What an L2 slice's atomic unit is charged for one line of a warp's atomic
// (timing/mem/atomic_ops.h): a lane operation per active lane, lanes on one
// word each counting, also when every lane names one address.
#include "timing/mem/atomic_ops.h"

#include <gtest/gtest.h>

namespace ws::timing {
namespace {

TEST(AtomicOps, DistinctWordsCountOncePerLane) {
  std::array<Addr, 32> a{};
  for (uint32_t l = 0; l < 32; ++l) a[l] = 0x1000 + 4 * l;  // one line, eight words per sector
  auto ops = atomic_ops_per_sector(a.data(), ~0u, 0x1000);
  EXPECT_EQ(ops, (std::array<uint8_t, 4>{8, 8, 8, 8}));
  ops = atomic_ops_per_sector(a.data(), 0x0000'00FFu, 0x1000);  // lanes 0-7 only
  EXPECT_EQ(ops, (std::array<uint8_t, 4>{8, 0, 0, 0}));
}

TEST(AtomicOps, LanesOnOneWordEachCount) {
  // A histogram's bins: lanes 0-9 on bin 7, the rest on bins 0-21 of the
  // next line.
  std::array<Addr, 32> a{};
  for (uint32_t l = 0; l < 32; ++l) a[l] = l < 10 ? 0x2000 + 7 * 4 : 0x2080 + 4 * (l - 10);
  EXPECT_EQ(atomic_ops_per_sector(a.data(), ~0u, 0x2000), (std::array<uint8_t, 4>{10, 0, 0, 0}));
  EXPECT_EQ(atomic_ops_per_sector(a.data(), ~0u, 0x2080), (std::array<uint8_t, 4>{8, 8, 6, 0}));
}

// Lanes on one address are not combined by the L2: the compiler's
// aggregation leaves one lane active instead (exec/warp_aggregation.h).
TEST(AtomicOps, OneAddressForEveryLaneIsAnOperationPerLane) {
  std::array<Addr, 32> a{};
  a.fill(0x3044);
  EXPECT_EQ(atomic_ops_per_sector(a.data(), 0xF0F0'F0F0u, 0x3000), (std::array<uint8_t, 4>{0, 0, 16, 0}));
  EXPECT_EQ(atomic_ops_per_sector(a.data(), 0x8000'0000u, 0x3000), (std::array<uint8_t, 4>{0, 0, 1, 0}));
  EXPECT_EQ(atomic_ops_per_sector(a.data(), 0, 0x3000), (std::array<uint8_t, 4>{}));
}

// A line that two coalesced accesses of one warp touch (sub-warps 0 and 2,
// with another line's access between them) is charged once per lane: each
// access counts only the lanes it carries, not the warp's lanes on the line.
TEST(AtomicOps, EachAccessCountsOnlyItsOwnLanes) {
  std::array<Addr, 32> a{};
  for (uint32_t l = 0; l < 32; ++l) a[l] = (l / 8 % 2 ? 0x5080 : 0x5000) + 4 * (l % 8);
  EXPECT_EQ(atomic_ops_per_sector(a.data(), ~0u, 0x5000, 0x0000'00FFu), (std::array<uint8_t, 4>{8, 0, 0, 0}));
  EXPECT_EQ(atomic_ops_per_sector(a.data(), ~0u, 0x5000, 0x00FF'0000u), (std::array<uint8_t, 4>{8, 0, 0, 0}));
  EXPECT_EQ(atomic_ops_per_sector(a.data(), ~0u, 0x5000), (std::array<uint8_t, 4>{16, 0, 0, 0}));
}

}  // namespace
}  // namespace ws::timing
