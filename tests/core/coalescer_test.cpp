#include <gtest/gtest.h>

#include <array>
#include <random>

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

// The rule spelled out byte by byte: per 8-lane sub-warp, each byte a lane
// touches joins the access for its line (shared with the previous sub-warp's
// last access, else one per line in first-touch order).
std::vector<LineAccess> reference(const std::array<Addr, 32>& a, uint32_t mask, uint32_t bytes) {
  std::vector<LineAccess> out;
  for (uint32_t base = 0; base < 32; base += 8) {
    size_t from = out.empty() ? 0 : out.size() - 1;
    for (uint32_t lane = base; lane < base + 8; ++lane) {
      if (!(mask >> lane & 1)) continue;
      for (Addr b = a[lane]; b < a[lane] + bytes; ++b) {
        Addr line = b & ~Addr{127};
        size_t i = from;
        while (i < out.size() && out[i].line_addr != line) ++i;
        if (i == out.size()) out.push_back(LineAccess{line, 0, {}, 0});
        uint32_t off = static_cast<uint32_t>(b - line);
        out[i].lanes |= 1u << lane;
        out[i].sector_mask |= static_cast<uint8_t>(1u << (off / 32));
        out[i].byte_masks[off / 32] |= 1u << (off % 32);
      }
    }
  }
  return out;
}

TEST(CoreCoalescer, MatchesTheByteByByteRuleOnRandomWarps) {
  std::mt19937_64 rng(11);
  for (int trial = 0; trial < 3000; ++trial) {
    uint32_t bytes = 1u << (rng() % 5);  // 1..16 B per lane
    std::array<Addr, 32> a{};
    Addr base = 0x10000 + (rng() % 64) * 128;
    for (auto& x : a) {
      switch (trial % 3) {
        case 0: x = base + (rng() % 1024) / bytes * bytes; break;  // aligned, a few lines
        case 1: x = base + rng() % 600; break;                     // unaligned: straddles sectors and lines
        default: x = base + (rng() % 4) * 4096 + (rng() % 128); break;
      }
    }
    uint32_t mask = static_cast<uint32_t>(rng());
    if (trial % 4 == 3) {  // the unit-stride fast path: full warp, consecutive aligned elements
      mask = ~0u;
      for (uint32_t i = 0; i < 32; ++i) a[i] = base + (rng() % 8) * bytes + i * bytes;
      for (uint32_t i = 1; i < 32; ++i) a[i] = a[0] + i * bytes;
    }
    auto got = run(a, mask, bytes), want = reference(a, mask, bytes);
    ASSERT_EQ(got.size(), want.size()) << "trial " << trial;
    for (size_t i = 0; i < got.size(); ++i) {
      EXPECT_EQ(got[i].line_addr, want[i].line_addr) << "trial " << trial;
      EXPECT_EQ(got[i].sector_mask, want[i].sector_mask) << "trial " << trial;
      EXPECT_EQ(got[i].byte_masks, want[i].byte_masks) << "trial " << trial;
      EXPECT_EQ(got[i].lanes, want[i].lanes) << "trial " << trial;
    }
  }
}

}  // namespace
}  // namespace ws::timing
