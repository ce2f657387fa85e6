#include "common/bit_set.h"

#include <gtest/gtest.h>

#include <random>
#include <set>
#include <vector>

namespace ws {
namespace {

std::vector<uint32_t> take_all(BitSet& s) {
  std::vector<uint32_t> out;
  s.take_each([&](uint32_t i) { out.push_back(i); });
  return out;
}

TEST(BitSet, TakeEachVisitsMembersInOrderAndEmpties) {
  BitSet s(130);
  EXPECT_TRUE(s.none());
  for (uint32_t i : {129u, 0u, 64u, 63u, 5u}) s.set(i);
  EXPECT_TRUE(s.test(64));
  EXPECT_FALSE(s.test(65));
  EXPECT_EQ(take_all(s), (std::vector<uint32_t>{0, 5, 63, 64, 129}));
  EXPECT_TRUE(s.none());
  EXPECT_TRUE(take_all(s).empty());
}

TEST(BitSet, SetAllStopsAtSize) {
  for (size_t n : {1u, 16u, 64u, 65u, 200u}) {
    BitSet s(n);
    s.set_all();
    std::vector<uint32_t> got = take_all(s);
    ASSERT_EQ(got.size(), n);
    EXPECT_EQ(got.back(), n - 1);
  }
}

// Members added during take_each: into a later word they are visited now,
// into a word already passed they stay for the next call.
TEST(BitSet, AddsDuringTakeEach) {
  BitSet s(128);
  s.set(70);
  std::vector<uint32_t> seen;
  s.take_each([&](uint32_t i) {
    seen.push_back(i);
    if (i == 70) s.set(3), s.set(71);
  });
  EXPECT_EQ(seen, (std::vector<uint32_t>{70}));  // 71 shares the word already read
  EXPECT_EQ(take_all(s), (std::vector<uint32_t>{3, 71}));
}

TEST(BitSet, MatchesStdSet) {
  std::mt19937 rng(7);
  BitSet s(300);
  std::set<uint32_t> ref;
  for (int round = 0; round < 50; ++round) {
    for (int k = 0; k < 20; ++k) {
      uint32_t i = rng() % 300;
      s.set(i);
      ref.insert(i);
    }
    for (uint32_t i = 0; i < 300; ++i) ASSERT_EQ(s.test(i), ref.count(i) == 1);
    if (round % 3 == 0) {
      EXPECT_EQ(take_all(s), std::vector<uint32_t>(ref.begin(), ref.end()));
      ref.clear();
    }
  }
}

}  // namespace
}  // namespace ws
