#include <gtest/gtest.h>

#include <set>

#include "common/error.h"
#include "timing/mem/index_hash.h"
#include "timing/mem/sector_cache.h"

namespace ws::timing {
namespace {

std::set<uint32_t> buckets_hit(const IndexHash& h, uint64_t stride, uint32_t count) {
  std::set<uint32_t> s;
  for (uint64_t i = 0; i < count; ++i) s.insert(h.map(0x1234 + i * stride));
  return s;
}

TEST(HashIndex, IpolySpreadsPowerOfTwoStridesWhereLinearCollapses) {
  auto lin = make_index_hash("t", "linear", 64);
  auto ipoly = make_index_hash("t", "ipoly", 64);
  for (uint64_t stride : {64ull, 128ull, 1024ull, 1ull << 20}) {
    EXPECT_EQ(buckets_hit(*lin, stride, 64).size(), 1u) << stride;
    EXPECT_EQ(buckets_hit(*ipoly, stride, 64).size(), 64u) << stride;  // conflict-free
  }
  EXPECT_EQ(buckets_hit(*ipoly, 1, 64).size(), 64u);
}

TEST(HashIndex, AllHashesStayInRangeAndXorMixesHighBits) {
  for (const char* name : {"linear", "xor", "ipoly"}) {
    auto h = make_index_hash("t", name, 32);
    for (uint64_t b = 0; b < 5000; b += 7) EXPECT_LT(h->map(b * 977), 32u) << name;
  }
  auto x = make_index_hash("t", "xor", 32);
  EXPECT_GT(buckets_hit(*x, 32, 32).size(), 1u);
}

// A100's 80 and H100's 160 slices: every aligned stripe of N consecutive
// lines still covers each slice once (the L2 set index and the DRAM address
// map rely on it), and a stride of N lines, which linear puts on one slice,
// spreads over many.
TEST(HashIndex, IpolyOfAnyCountPermutesEachStripeAndSpreadsStridesOfTheCount) {
  for (uint32_t n : {80u, 160u, 10u, 24u}) {
    auto ipoly = make_index_hash("t", "ipoly", n);
    auto lin = make_index_hash("t", "linear", n);
    for (uint64_t stripe : {0ull, 1ull, 7ull, 12345ull}) {
      std::set<uint32_t> s;
      for (uint64_t r = 0; r < n; ++r) s.insert(ipoly->map(stripe * n + r));
      EXPECT_EQ(s.size(), n) << n << " stripe " << stripe;
      EXPECT_LT(*s.rbegin(), n);
    }
    EXPECT_EQ(buckets_hit(*lin, n, n).size(), 1u);
    EXPECT_GT(buckets_hit(*ipoly, n, n).size(), n / 2) << n;
    // Consecutive lines stay on consecutive slices (modulo N) within a stripe.
    EXPECT_EQ((ipoly->map(5 * n + 1) + n - ipoly->map(5 * n)) % n, 1u);
  }
}

TEST(HashIndex, BadChoicesNameTheParameter) {
  EXPECT_THROW(make_index_hash("l2.slice_hash", "xor", 48), ConfigError);
  EXPECT_THROW(make_index_hash("l2.slice_hash", "crc", 64), ConfigError);
  EXPECT_EQ(make_index_hash("t", "linear", 48)->map(50), 2u);
}

SectorCacheShape shape(const char* repl) {
  SectorCacheShape s;
  s.sets = 1;
  s.ways = 2;
  s.replacement = repl;
  return s;
}

TEST(HashSectorCache, LruKeepsTheRecentlyUsedLineFifoDoesNot) {
  for (const char* repl : {"lru", "fifo"}) {
    SectorCache c(shape(repl));
    c.insert(0x000, nullptr).valid = 1;
    c.insert(0x080, nullptr).dirty = 2;
    c.touch(*c.find(0x000));
    std::optional<EvictedLine> victim;
    c.insert(0x100, &victim);
    ASSERT_TRUE(victim.has_value());
    EXPECT_EQ(victim->line_addr, std::string(repl) == "lru" ? 0x080u : 0x000u) << repl;
    EXPECT_NE(c.find(0x100), nullptr);
  }
}

TEST(HashSectorCache, DisabledCacheAlwaysMisses) {
  SectorCacheShape s = shape("lru");
  s.ways = 0;
  SectorCache c(s);
  EXPECT_FALSE(c.enabled());
  EXPECT_EQ(c.find(0), nullptr);
}

}  // namespace
}  // namespace ws::timing
