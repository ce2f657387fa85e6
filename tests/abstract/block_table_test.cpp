// Block pre-characterisation (timing/abstract/block_table.h): offsets that
// follow from the unit table by hand, and the disk cache's hit, miss, stale
// and damaged cases.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "abstract/test_insts.h"
#include "timing/abstract/block_table.h"

namespace ws::timing::abstract {
namespace {

using fake::sp;

// One unit kind, "sp", one pipeline.
CoreTimingParams params(uint32_t latency, uint32_t ii) { return {{UnitSpec{"sp", 1, latency, ii, 0}}, 20, {}}; }

struct Block {
  std::vector<ir::WarpInst> insts;
  std::vector<int16_t> units;
  explicit Block(std::vector<ir::WarpInst> v) : insts(std::move(v)), units(insts.size(), 0) {}
  uint32_t n() const { return static_cast<uint32_t>(insts.size()); }
  uint64_t key() const {
    uint64_t h = kBlockHashSeed;
    for (uint32_t i = 0; i < n(); ++i) h = mix_inst(h, insts[i], units[i]);
    return h;
  }
  BlockTiming time(const CoreTimingParams& p) const { return characterise(insts.data(), units.data(), n(), p); }
};

Block chain(int n) {
  std::vector<ir::WarpInst> v;
  for (int i = 0; i < n; ++i) v.push_back(sp(static_cast<uint16_t>(i + 1), i));
  return Block(v);
}

TEST(BlockCharacterise, DependentChainIssuesOneLatencyApart) {
  BlockTiming b = chain(5).time(params(4, 1));
  EXPECT_EQ(b.issue, (std::vector<uint32_t>{0, 4, 8, 12, 16}));
  // r0 comes from outside, needed at once; each destination's earlier write
  // (from outside) must be done when its writer issues. The body (the first
  // four) writes r1..r4, 4 cycles after each issue; the terminal's is dynamic.
  EXPECT_EQ(b.needs, (std::vector<RegAt>{{0, 0}, {1, 0}, {2, 4}, {3, 8}, {4, 12}, {5, 16}}));
  EXPECT_EQ(b.writes, (std::vector<RegAt>{{1, 4}, {2, 8}, {3, 12}, {4, 16}}));
  EXPECT_EQ(b.demand, (std::vector<UnitDemand>{{0, 4}}));  // four body instructions, ii 1
}

TEST(BlockCharacterise, IndependentInstructionsWaitForThePipeline) {
  // No dependences: one per cycle, or one per ii on the single pipeline.
  Block b({sp(1), sp(2), sp(3), sp(4)});
  EXPECT_EQ(b.time(params(4, 1)).issue, (std::vector<uint32_t>{0, 1, 2, 3}));
  BlockTiming slow = b.time(params(4, 3));
  EXPECT_EQ(slow.issue, (std::vector<uint32_t>{0, 3, 6, 9}));
  EXPECT_EQ(slow.demand, (std::vector<UnitDemand>{{0, 9}}));  // three body instructions of 3 cycles each
  // A register used before the block writes it is a live-in at its first
  // use (r5: read at 1, written by the terminal later).
  BlockTiming w = Block({sp(1), sp(2, 5), sp(5, 1)}).time(params(4, 1));
  EXPECT_EQ(w.needs, (std::vector<RegAt>{{1, 0}, {5, 1}, {2, 1}}));
  EXPECT_EQ(w.issue, (std::vector<uint32_t>{0, 1, 4}));
}

TEST(BlockCharacterise, AddressesAndPcsDoNotChangeTheKey) {
  Block a = chain(3), b = chain(3);
  for (auto& i : b.insts) i.pc += 0x400, i.active_mask = 0xff;
  EXPECT_EQ(a.key(), b.key());
  b.insts[1].src[0] = 7;  // another register is other code
  EXPECT_NE(a.key(), b.key());
  EXPECT_NE(params(4, 1).hash(), params(5, 1).hash());
}

class BlockCache : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("warpsim-blocks-" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    std::filesystem::remove_all(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string dir() const { return dir_.string(); }

  std::filesystem::path dir_;
};

TEST_F(BlockCache, SecondTableReadsWhatTheFirstCharacterised) {
  Block b = chain(6);
  BlockTable first(params(4, 1), dir());
  EXPECT_EQ(first.load_result(), BlockTable::Load::Missing);
  BlockTiming want = first.get(b.key(), b.insts.data(), b.units.data(), b.n());
  first.get(b.key(), b.insts.data(), b.units.data(), b.n());
  EXPECT_EQ(first.counts().characterised, 1u);  // the second lookup hit memory
  first.save();
  BlockTable second(params(4, 1), dir());
  EXPECT_EQ(second.load_result(), BlockTable::Load::Loaded);
  EXPECT_EQ(second.counts().loaded, 1u);
  EXPECT_EQ(second.get(b.key(), b.insts.data(), b.units.data(), b.n()), want);
  EXPECT_EQ(second.counts().characterised, 0u);
}

TEST_F(BlockCache, OtherUnitTableMissesAndForeignFileIsRebuilt) {
  Block b = chain(6);
  BlockTable fast(params(4, 1), dir());
  fast.get(b.key(), b.insts.data(), b.units.data(), b.n());
  fast.save();
  // Another latency is another file: a miss.
  BlockTable slow(params(7, 1), dir());
  EXPECT_EQ(slow.load_result(), BlockTable::Load::Missing);
  EXPECT_NE(slow.file(), fast.file());
  // The first configuration's file under the second's name: refused (its
  // header names the other configuration), and its entry timed afresh.
  std::filesystem::copy_file(fast.file(), slow.file());
  BlockTable again(params(7, 1), dir());
  EXPECT_EQ(again.load_result(), BlockTable::Load::Rejected);
  EXPECT_EQ(again.get(b.key(), b.insts.data(), b.units.data(), b.n()).last(), 35u);  // 5 links of 7
  EXPECT_EQ(again.counts().characterised, 1u);
}

TEST_F(BlockCache, DamagedFilesAreIgnoredAndRewritten) {
  Block b = chain(6);
  BlockTable good(params(4, 1), dir());
  good.get(b.key(), b.insts.data(), b.units.data(), b.n());
  good.save();
  std::vector<char> bytes;
  {
    std::ifstream in(good.file(), std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), {});
  }
  auto write = [&](const std::vector<char>& v) {
    std::ofstream out(good.file(), std::ios::binary | std::ios::trunc);
    out.write(v.data(), static_cast<std::streamsize>(v.size()));
  };
  std::vector<char> flipped = bytes, cut(bytes.begin(), bytes.end() - 9), empty;
  flipped[bytes.size() / 2] ^= 0x10;
  for (const auto& damaged : {flipped, cut, empty}) {
    write(damaged);
    BlockTable t(params(4, 1), dir());
    EXPECT_EQ(t.load_result(), BlockTable::Load::Rejected);
    EXPECT_EQ(t.get(b.key(), b.insts.data(), b.units.data(), b.n()).last(), 20u);
    EXPECT_EQ(t.counts().characterised, 1u);
    t.save();  // the rebuilt entry replaces the damaged file
    EXPECT_EQ(BlockTable(params(4, 1), dir()).load_result(), BlockTable::Load::Loaded);
  }
}

TEST_F(BlockCache, OffKeepsEntriesInMemoryOnly) {
  Block b = chain(3);
  BlockTable t(params(4, 1), "off");
  EXPECT_EQ(t.load_result(), BlockTable::Load::Off);
  EXPECT_TRUE(t.file().empty());
  t.get(b.key(), b.insts.data(), b.units.data(), b.n());
  t.save();
  EXPECT_FALSE(std::filesystem::exists(dir_));
}

}  // namespace
}  // namespace ws::timing::abstract
