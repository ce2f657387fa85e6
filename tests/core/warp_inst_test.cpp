// The two forms of a memory instruction's lane addresses: a list, or base +
// lane * stride (what a trace CTA keeps for coalesced accesses).
#include <gtest/gtest.h>

#include "ir/warp_inst.h"

namespace ws::ir {
namespace {

LaneAddrs strided_lanes(Addr base, int64_t stride) {
  LaneAddrs a{};
  for (uint32_t l = 0; l < 32; ++l) a[l] = base + static_cast<uint64_t>(stride) * l;
  return a;
}

void expect_same_lanes(const WarpInst& in, const LaneAddrs& a) {
  LaneAddrs scratch{};
  const Addr* got = lane_addrs(in, scratch);
  ASSERT_NE(got, nullptr);
  for (uint32_t l = 0; l < 32; ++l)
    if (in.active_mask >> l & 1) {
      EXPECT_EQ(got[l], a[l]) << "lane " << l;
      EXPECT_EQ(in.lane_addr(l), a[l]) << "lane " << l;
    }
}

TEST(WarpInstAddrs, UnitStrideBecomesBaseAndStride) {
  WarpInst in;
  in.active_mask = ~0u;
  LaneAddrs a = strided_lanes(0x7f1000000040, 4);
  ASSERT_TRUE(make_strided(a, in));
  EXPECT_TRUE(in.strided);
  EXPECT_EQ(in.addrs, nullptr);
  EXPECT_TRUE(in.has_addrs());
  EXPECT_EQ(in.stride, 4);
  expect_same_lanes(in, a);
}

TEST(WarpInstAddrs, PartialMasksNegativeStridesAndOneLane) {
  WarpInst in;
  in.active_mask = 0x00f0f0f0;  // inactive lanes hold anything
  LaneAddrs a = strided_lanes(0x9000, -8);
  a[0] = 0x1234;
  ASSERT_TRUE(make_strided(a, in));
  expect_same_lanes(in, a);

  WarpInst one;
  one.active_mask = 1u << 17;
  LaneAddrs b{};
  b[17] = 0x5000;
  ASSERT_TRUE(make_strided(b, one));
  EXPECT_EQ(one.lane_addr(17), 0x5000u);
}

TEST(WarpInstAddrs, IrregularOrHugeStridesStayListed) {
  WarpInst in;
  in.active_mask = ~0u;
  LaneAddrs a = strided_lanes(0x1000, 4);
  a[9] += 4;  // one lane off the line
  EXPECT_FALSE(make_strided(a, in));
  EXPECT_FALSE(in.strided);

  LaneAddrs odd{};  // first two active lanes 2 apart with an odd difference
  WarpInst gap;
  gap.active_mask = 0b101;
  odd[0] = 0x1000;
  odd[2] = 0x1003;
  EXPECT_FALSE(make_strided(odd, gap));

  WarpInst far;
  far.active_mask = 0b11;
  LaneAddrs f{};
  f[0] = 0;
  f[1] = Addr{1} << 40;  // does not fit 32 bits
  EXPECT_FALSE(make_strided(f, far));
}

TEST(WarpInstAddrs, ListedAddressesAreReadInPlace) {
  LaneAddrs a = strided_lanes(0x2000, 12);
  a[3] = 0x1;
  WarpInst in;
  in.active_mask = ~0u;
  in.addrs = a.data();
  LaneAddrs scratch{};
  EXPECT_EQ(lane_addrs(in, scratch), a.data());
  EXPECT_EQ(in.lane_addr(3), 0x1u);
  WarpInst none;
  EXPECT_EQ(lane_addrs(none, scratch), nullptr);
  EXPECT_FALSE(none.has_addrs());
}

}  // namespace
}  // namespace ws::ir
