// What an L2 slice's atomic unit is charged for one line of a warp's atomic
// (timing/mem/atomic_ops.h): a lane operation per active lane, lanes on one
// word each counting, also when every lane names one address; and the
// requests (passes) the L1 makes of them, one lane per address each.
#include "timing/mem/atomic_ops.h"

#include <gtest/gtest.h>

namespace ws::timing {
namespace {

TEST(AtomicOps, DistinctWordsCountOncePerLane) {
  std::array<Addr, 32> a{};
  for (uint32_t l = 0; l < 32; ++l) a[l] = 0x1000 + 4 * l;  // one line, eight words per sector
  auto ops = atomic_lanes(a.data(), ~0u, 0x1000).ops;
  EXPECT_EQ(ops, (std::array<uint8_t, 4>{8, 8, 8, 8}));
  EXPECT_EQ(atomic_lanes(a.data(), ~0u, 0x1000).passes, (std::array<uint8_t, 4>{1, 1, 1, 1}));
  ops = atomic_lanes(a.data(), 0x0000'00FFu, 0x1000).ops;  // lanes 0-7 only
  EXPECT_EQ(ops, (std::array<uint8_t, 4>{8, 0, 0, 0}));
}

TEST(AtomicOps, LanesOnOneWordEachCount) {
  // A histogram's bins: lanes 0-9 on bin 7, the rest on bins 0-21 of the
  // next line.
  std::array<Addr, 32> a{};
  for (uint32_t l = 0; l < 32; ++l) a[l] = l < 10 ? 0x2000 + 7 * 4 : 0x2080 + 4 * (l - 10);
  EXPECT_EQ(atomic_lanes(a.data(), ~0u, 0x2000).ops, (std::array<uint8_t, 4>{10, 0, 0, 0}));
  EXPECT_EQ(atomic_lanes(a.data(), ~0u, 0x2080).ops, (std::array<uint8_t, 4>{8, 8, 6, 0}));
  // Ten passes over bin 7's sector, one over each of the other line's.
  EXPECT_EQ(atomic_lanes(a.data(), ~0u, 0x2000).passes, (std::array<uint8_t, 4>{10, 0, 0, 0}));
  EXPECT_EQ(atomic_lanes(a.data(), ~0u, 0x2080).passes, (std::array<uint8_t, 4>{1, 1, 1, 0}));
}

// ubench/atomics' lanes on W words of a line (lane l on word l % W): 32 / W
// passes, each with a lane on every word; an 8 B operand's two words count once.
TEST(AtomicOps, LanesSharingWordsTakeAPassEach) {
  std::array<Addr, 32> a{};
  for (uint32_t w : {1u, 4u, 16u}) {
    for (uint32_t l = 0; l < 32; ++l) a[l] = 0x4000 + 4 * (l % w);
    AtomicLanes lanes = atomic_lanes(a.data(), ~0u, 0x4000);
    EXPECT_EQ(lanes.passes[0], 32 / w) << w << " words";
    EXPECT_EQ(lanes.passes[1], w == 16 ? 32 / w : 0) << w << " words";
  }
  for (uint32_t l = 0; l < 32; ++l) a[l] = 0x4000 + 8 * (l % 2);  // two 8 B words, 16 lanes each
  EXPECT_EQ(atomic_lanes(a.data(), ~0u, 0x4000).passes, (std::array<uint8_t, 4>{16, 0, 0, 0}));
}

// Lanes on one address are not combined by the L2: the compiler's
// aggregation leaves one lane active instead (exec/warp_aggregation.h).
TEST(AtomicOps, OneAddressForEveryLaneIsAnOperationPerLane) {
  std::array<Addr, 32> a{};
  a.fill(0x3044);
  EXPECT_EQ(atomic_lanes(a.data(), 0xF0F0'F0F0u, 0x3000).ops, (std::array<uint8_t, 4>{0, 0, 16, 0}));
  EXPECT_EQ(atomic_lanes(a.data(), 0x8000'0000u, 0x3000).ops, (std::array<uint8_t, 4>{0, 0, 1, 0}));
  EXPECT_EQ(atomic_lanes(a.data(), 0, 0x3000).ops, (std::array<uint8_t, 4>{}));
}

// A line that two coalesced accesses of one warp touch (sub-warps 0 and 2,
// with another line's access between them) is charged once per lane: each
// access counts only the lanes it carries, not the warp's lanes on the line.
TEST(AtomicOps, EachAccessCountsOnlyItsOwnLanes) {
  std::array<Addr, 32> a{};
  for (uint32_t l = 0; l < 32; ++l) a[l] = (l / 8 % 2 ? 0x5080 : 0x5000) + 4 * (l % 8);
  EXPECT_EQ(atomic_lanes(a.data(), ~0u, 0x5000, 0x0000'00FFu).ops, (std::array<uint8_t, 4>{8, 0, 0, 0}));
  EXPECT_EQ(atomic_lanes(a.data(), ~0u, 0x5000, 0x00FF'0000u).ops, (std::array<uint8_t, 4>{8, 0, 0, 0}));
  EXPECT_EQ(atomic_lanes(a.data(), ~0u, 0x5000).ops, (std::array<uint8_t, 4>{16, 0, 0, 0}));
}

}  // namespace
}  // namespace ws::timing
