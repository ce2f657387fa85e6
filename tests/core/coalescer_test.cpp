#include <gtest/gtest.h>

#include <array>

#include "timing/core/coalescer.h"

namespace ws::timing {
namespace {

std::array<Addr, 32> strided(Addr base, Addr stride) {
  std::array<Addr, 32> a{};
  for (uint32_t i = 0; i < 32; ++i) a[i] = base + i * stride;
  return a;
}

std::vector<LineAccess> run(const std::array<Addr, 32>& a, uint32_t mask, uint32_t bytes) {
  std::vector<LineAccess> out;
  SubWarpCoalescer().coalesce(a.data(), mask, bytes, out);
  return out;
}

TEST(CoreCoalescer, UnitStrideFloatIsOneLineFourSectors) {
  auto out = run(strided(0x1000, 4), 0xffffffff, 4);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].line_addr, 0x1000u);
  EXPECT_EQ(out[0].sector_mask, 0xf);
  for (int s = 0; s < 4; ++s) EXPECT_EQ(out[0].byte_masks[s], 0xffffffffu);
}

TEST(CoreCoalescer, SixteenByteLanesSpanFourLines) {
  auto out = run(strided(0x2000, 16), 0xffffffff, 16);
  ASSERT_EQ(out.size(), 4u);  // 512 B = 4 lines, one per sub-warp
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(out[i].line_addr, 0x2000u + 128u * i);
    EXPECT_EQ(out[i].sector_mask, 0xf);
  }
}

TEST(CoreCoalescer, ScatteredLanesTouchOneSectorEach) {
  auto out = run(strided(0, 4096), 0xffffffff, 4);
  ASSERT_EQ(out.size(), 32u);
  for (const auto& a : out) EXPECT_EQ(a.sector_mask, 0x1);
  EXPECT_EQ(out[0].byte_masks[0], 0xfu);
}

TEST(CoreCoalescer, InactiveLanesAreIgnoredAndMisalignmentStraddles) {
  auto a = strided(0x3000, 4);
  EXPECT_TRUE(run(a, 0, 4).empty());
  auto half = run(a, 0x0000ffff, 4);  // lanes 0..15: 64 B, sectors 0 and 1
  ASSERT_EQ(half.size(), 1u);
  EXPECT_EQ(half[0].sector_mask, 0x3);
  std::array<Addr, 32> b{};
  b[0] = 0x307e;  // 4 bytes at 126..129 cross into the next line
  auto cross = run(b, 0x1, 4);
  ASSERT_EQ(cross.size(), 2u);
  EXPECT_EQ(cross[0].line_addr, 0x3000u);
  EXPECT_EQ(cross[0].sector_mask, 0x8);
  EXPECT_EQ(cross[1].line_addr, 0x3080u);
  EXPECT_EQ(cross[1].byte_masks[0], 0x3u);
}

}  // namespace
}  // namespace ws::timing
