// The tag array's O(1) victim and free-way search against a naive model: a
// line per way with a use stamp, the lowest free way filled first, and the
// smallest stamp evicted (LRU refreshes it on a hit, FIFO does not). An
// evict-first insert gets a stamp below every other (the latest such line
// goes first).
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <optional>
#include <random>
#include <vector>

#include "timing/mem/sector_cache.h"

namespace ws::timing {
namespace {

class NaiveCache {
 public:
  NaiveCache(const SectorCache& real, bool lru)
      : real_(real), lru_(lru), addr_(size_t{real.sets()} * real.ways()), stamp_(addr_.size(), 0) {}

  bool hit(Addr line) {
    for (size_t i = 0; i < addr_.size(); ++i)
      if (addr_[i] == line) {
        if (lru_) stamp_[i] = ++clock_;
        return true;
      }
    return false;
  }
  // The address evicted, if any.
  std::optional<Addr> insert(Addr line, Retention r) {
    size_t first = size_t{real_.set_of(line)} * real_.ways(), ways = real_.ways();
    std::optional<Addr> evicted;
    size_t way = ways;
    for (size_t w = 0; w < ways && way == ways; ++w)
      if (!addr_[first + w]) way = w;
    if (way == ways) {
      way = size_t(std::min_element(stamp_.begin() + ptrdiff_t(first), stamp_.begin() + ptrdiff_t(first + ways)) -
                   stamp_.begin()) - first;
      evicted = addr_[first + way];
    }
    addr_[first + way] = line;
    stamp_[first + way] = r == Retention::EvictFirst ? --low_ : ++clock_;
    return evicted;
  }
  void invalidate(Addr line) {
    for (auto& a : addr_)
      if (a == line) a.reset();
  }

 private:
  const SectorCache& real_;
  bool lru_;
  std::vector<std::optional<Addr>> addr_;
  std::vector<int64_t> stamp_;
  int64_t clock_ = 0, low_ = 0;
};

void run_random(const char* repl, uint32_t sets, uint32_t ways, uint32_t seed) {
  SectorCacheShape shape;
  shape.sets = sets;
  shape.ways = ways;
  shape.replacement = repl;
  SectorCache cache(shape);
  NaiveCache model(cache, std::string(repl) == "lru");
  std::mt19937 rng(seed);
  // Enough distinct lines to overflow every set a few times over.
  std::uniform_int_distribution<uint64_t> pick_line(0, uint64_t{sets} * ways * 3);
  for (int step = 0; step < 20000; ++step) {
    Addr line = pick_line(rng) * kLineBytes;
    uint32_t op = rng() % 10;
    if (op == 0) {
      cache.invalidate(line);
      model.invalidate(line);
      continue;
    }
    CacheLine* found = cache.find(line);
    ASSERT_EQ(found != nullptr, model.hit(line)) << repl << " step " << step;
    if (found) {
      cache.touch(*found);
      continue;
    }
    std::optional<EvictedLine> evicted;
    Retention r = rng() % 4 == 0 ? Retention::EvictFirst : Retention::Normal;
    cache.insert(line, &evicted, r);
    std::optional<Addr> expect = model.insert(line, r);
    ASSERT_EQ(evicted.has_value(), expect.has_value()) << repl << " step " << step;
    if (expect) {
      ASSERT_EQ(evicted->line_addr, *expect) << repl << " step " << step;
    }
  }
}

TEST(SectorCacheReplacement, MatchesANaiveStampModel) {
  for (const char* repl : {"lru", "fifo"}) {
    run_random(repl, 4, 4, 1);
    run_random(repl, 2, 70, 2);    // more than one present-bit word per set, not a multiple of 64
    run_random(repl, 1, 256, 3);   // the L1's 256 ways
    run_random(repl, 8, 1, 4);     // direct mapped
  }
}

}  // namespace
}  // namespace ws::timing

namespace ws::timing {
namespace {

SectorCache small_cache(uint32_t sets, uint32_t ways) {
  SectorCacheShape shape;
  shape.sets = sets;
  shape.ways = ways;
  return SectorCache(shape);
}

// Line numbers n and n ^ (1 << 32) ^ 1 share a 32-bit fingerprint in the
// index: both must be found, each as itself, and erasing one keeps the other.
TEST(SectorCacheIndex, FingerprintCollisionsStayApart) {
  Addr a = Addr{5} << 7, b = ((Addr{1} << 32) | 4) << 7;
  ASSERT_EQ(LineIndex::fingerprint(a), LineIndex::fingerprint(b));
  SectorCache c = small_cache(1, 8);
  c.insert(a, nullptr).valid = 1;
  EXPECT_EQ(c.find(b), nullptr);
  c.insert(b, nullptr).valid = 2;
  ASSERT_TRUE(c.find(a));
  ASSERT_TRUE(c.find(b));
  EXPECT_EQ(c.find(a)->valid, 1);
  EXPECT_EQ(c.find(b)->valid, 2);
  c.invalidate(a);
  EXPECT_EQ(c.find(a), nullptr);
  ASSERT_TRUE(c.find(b));
  EXPECT_EQ(c.find(b)->line_addr, b);
}

// Written-byte masks: partial writes accumulate; a sector written whole, or
// completed by later writes, reads as fully written; a clean sector as
// nothing written; an evicted line carries its masks out.
TEST(SectorCacheWritten, PartialMasksAccumulateAndLeaveWithTheVictim) {
  SectorCache c = small_cache(1, 1);
  CacheLine& l = c.insert(0x1000, nullptr);
  EXPECT_EQ(c.written(l, 0), 0u);
  EXPECT_EQ(c.add_written(l, 1, 0x0000ffffu), 0x0000ffffu);
  l.dirty |= 2;
  EXPECT_EQ(c.add_written(l, 1, 0x00ff0000u), 0x00ffffffu);
  EXPECT_EQ(c.written(l, 1), 0x00ffffffu);
  EXPECT_EQ(c.add_written(l, 2, kFullSectorMask), kFullSectorMask);
  l.dirty |= 4;
  EXPECT_EQ(c.written(l, 2), kFullSectorMask);
  EXPECT_EQ(c.add_written(l, 3, 0xff000000u), 0xff000000u);
  l.dirty |= 8;
  EXPECT_EQ(c.add_written(l, 3, 0x00ffffffu), kFullSectorMask);
  EXPECT_EQ(c.written(l, 3), kFullSectorMask);
  std::optional<EvictedLine> v;
  CacheLine& fresh = c.insert(0x2000, &v);
  ASSERT_TRUE(v);
  EXPECT_EQ(v->line_addr, 0x1000u);
  EXPECT_EQ(v->written, (std::array<uint32_t, 4>{0, 0x00ffffffu, kFullSectorMask, kFullSectorMask}));
  for (uint32_t s = 0; s < kSectorsPerLine; ++s) EXPECT_EQ(c.written(fresh, s), 0u) << s;  // nothing carried over
}

}  // namespace
}  // namespace ws::timing
