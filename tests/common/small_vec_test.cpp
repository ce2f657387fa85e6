#include "common/small_vec.h"

#include <gtest/gtest.h>

#include <vector>

namespace ws {
namespace {

TEST(SmallVec, KeepsOrderAcrossTheInlineAndSpilledParts) {
  SmallVec<int, 2> v;
  std::vector<int> model;
  for (int i = 0; i < 7; ++i) {
    v.push_back(i * 10);
    model.push_back(i * 10);
  }
  ASSERT_EQ(v.size(), model.size());
  for (uint32_t i = 0; i < v.size(); ++i) EXPECT_EQ(v[i], model[i]) << i;
  v[1] = 99;  // inline slot
  v[5] = 77;  // spilled slot
  EXPECT_EQ(v[1], 99);
  EXPECT_EQ(v[5], 77);
  EXPECT_EQ(v.back(), 60);
}

TEST(SmallVec, PopAndClearShrinkBothParts) {
  SmallVec<int, 2> v;
  for (int i = 0; i < 4; ++i) v.push_back(i);
  v.pop_back();
  v.pop_back();
  EXPECT_EQ(v.size(), 2u);
  EXPECT_EQ(v.back(), 1);
  v.push_back(5);  // back into the spill part after it emptied
  EXPECT_EQ(v[2], 5);
  v.clear();
  EXPECT_TRUE(v.empty());
  v.push_back(8);
  EXPECT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0], 8);
}

}  // namespace
}  // namespace ws
