#include <gtest/gtest.h>

#include <map>
#include <random>

#include "common/flat_map.h"

namespace ws {
namespace {

TEST(CommonFlatMap, BehavesLikeAMapUnderRandomInsertsAndErases) {
  FlatMap<uint32_t> fm(4);
  std::map<uint64_t, uint32_t> ref;
  std::mt19937_64 rng(7);
  for (int i = 0; i < 200000; ++i) {
    uint64_t key = (rng() % 512) * 128;  // clustered keys force long probe runs
    if (rng() % 3 == 0) {
      EXPECT_EQ(fm.erase(key), ref.erase(key) == 1);
    } else {
      uint32_t v = static_cast<uint32_t>(rng());
      fm[key] = v;
      ref[key] = v;
    }
    ASSERT_EQ(fm.size(), ref.size());
  }
  for (uint64_t k = 0; k < 512 * 128; k += 128) {
    const uint32_t* v = fm.find(k);
    auto it = ref.find(k);
    ASSERT_EQ(v != nullptr, it != ref.end());
    if (v) {
      EXPECT_EQ(*v, it->second);
    }
  }
}

}  // namespace
}  // namespace ws
