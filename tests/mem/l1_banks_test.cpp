// The L1 data array's banks, driven through the L1D with a fake L2: read hits
// of one tag-stage cycle share a wavefront unless they need one bank in
// different rows (lines, with the default 32 banks x 4 B).
#include <gtest/gtest.h>

#include <map>

#include "mem/test_driver.h"
#include "timing/mem/l1d.h"

namespace ws::timing {
namespace {

constexpr Tick kPs = 1000;
constexpr uint32_t kLatency = 28;

struct BankBench {
  config::Config cfg;
  stats::Registry reg;
  ClockDomain core{"core", ClockPeriod{kPs}};
  std::unique_ptr<L1D> l1;
  test::FakeMemory mem;
  test::TestDriver drv;
  std::map<uint32_t, Cycle> done_at;  // token -> cycle it showed up in done()

  explicit BankBench(std::vector<std::string> sets = {}) {
    cfg.set_assignment("l1d.latency=" + std::to_string(kLatency));
    for (auto& s : sets) cfg.set_assignment(s);
    l1 = std::make_unique<L1D>(cfg, stats::Scope(reg, "sm.0.l1d"), core, 0);
    l1->connect(&mem.in);
    mem.out = &l1->from_icnt();
    mem.latency = 50 * kPs;
    drv.add(core, *l1);
    drv.on_edge([this](Tick t) {
      mem.step(t);
      Port<uint32_t>& d = l1->done();
      while (d.ready(t)) {
        done_at[d.front()] = core.now();
        d.pop();
      }
    });
  }
  uint64_t stat(const std::string& leaf) const { return reg.sum("sm.0.l1d." + leaf); }
  void to_cycle(Cycle c) { drv.run_until(core.tick_of(c)); }
  void run(Cycle cycles) { to_cycle(core.now() + cycles); }
  // A read of `sectors` of `line`; `bytes` per sector read (0 = whole sector).
  bool read(Addr line, uint8_t sectors, uint32_t token, uint32_t bytes = 0) {
    if (!l1->can_accept()) return false;
    L1Access a;
    a.line_addr = line;
    a.sector_mask = sectors;
    a.token = token;
    for (auto& b : a.byte_masks) b = bytes;
    l1->accept(a);
    return true;
  }
  // Brings lines 0x0, 0x80, ... (n of them) into the L1, every sector valid.
  void warm(uint32_t n) {
    for (uint32_t i = 0; i < n; ++i) {
      run(4);  // the miss queue drains one sector per cycle
      ASSERT_TRUE(read(Addr{i} * 128, 0xF, 1000 + i));
    }
    run(200);
    done_at.clear();
  }
};

TEST(L1Banks, FullLineHitsSustainOneLinePerCycle) {
  BankBench b;
  b.warm(8);
  b.run(1);
  Cycle start = b.core.now();
  for (uint32_t i = 0; i < 64; ++i) {
    ASSERT_TRUE(b.read(Addr{i % 8} * 128, 0xF, i)) << "cycle " << i;
    b.run(1);
  }
  b.run(kLatency + 2);
  for (uint32_t i = 0; i < 64; ++i) EXPECT_EQ(b.done_at[i], start + i + kLatency) << i;
  EXPECT_EQ(b.stat("data_wavefronts"), 64u + 8u);  // and one per warming miss: its line is read out once filled
  EXPECT_EQ(b.stat("bank_conflicts"), 0u) << "one access per cycle never conflicts";
}

// A read that merges into a miss in flight still takes its bytes from the
// array once the line is filled: the H100 serves a load whose 32 lanes wait
// on 32 pending lines of one bank at one line per cycle, as it serves hits
// (examples/hw/h100-2026-11-27-suite: atax_ax). Each of these reads, the
// miss and the three merged into it, costs a wavefront.
TEST(L1Banks, ReadsMergedIntoAMissUseTheArrayToo) {
  BankBench b;
  b.run(1);
  for (uint32_t i = 0; i < 4; ++i) {
    ASSERT_TRUE(b.read(Addr{64} * 128, 0x1, i)) << "cycle " << i;
    b.run(1);
  }
  EXPECT_EQ(b.stat("mshr_merges"), 3u);
  EXPECT_EQ(b.stat("data_wavefronts"), 4u);
}

// Four lines, each read in a different sector: 4 x 8 distinct banks, one
// wavefront for the four lookups of one cycle.
TEST(L1Banks, DistinctBanksOfFourLinesShareOneWavefront) {
  BankBench b;
  b.warm(4);
  b.run(1);
  Cycle start = b.core.now();
  uint64_t waves = b.stat("data_wavefronts");
  for (uint32_t i = 0; i < 4; ++i) ASSERT_TRUE(b.read(Addr{i} * 128, static_cast<uint8_t>(1u << i), i));
  EXPECT_FALSE(b.l1->can_accept()) << "l1d.tag_lookups = 4 per cycle";
  b.run(1);
  EXPECT_TRUE(b.l1->can_accept()) << "the data array is free again the next cycle";
  b.run(kLatency + 2);
  for (uint32_t i = 0; i < 4; ++i) EXPECT_EQ(b.done_at[i], start + kLatency) << i;
  EXPECT_EQ(b.stat("data_wavefronts") - waves, 1u);
  EXPECT_EQ(b.stat("bank_conflicts"), 0u);
}

// The same 4 bytes (bank 0) of four different lines: bank 0 must deliver four
// rows, so the cycle's lookups take 4 wavefronts and the tag stage waits.
TEST(L1Banks, OneBankInFourLinesSerialisesFourTimes) {
  BankBench b;
  b.warm(4);
  b.run(1);
  Cycle start = b.core.now();
  uint64_t waves = b.stat("data_wavefronts");
  for (uint32_t i = 0; i < 4; ++i) ASSERT_TRUE(b.read(Addr{i} * 128, 0x1, i, 0xF));
  for (uint32_t c = 1; c < 4; ++c) {
    b.run(1);
    EXPECT_FALSE(b.l1->can_accept()) << "wavefront " << c << " still reads";
  }
  b.run(1);
  EXPECT_TRUE(b.l1->can_accept());
  b.run(kLatency + 2);
  for (uint32_t i = 0; i < 4; ++i) EXPECT_EQ(b.done_at[i], start + i + kLatency) << i;
  EXPECT_EQ(b.stat("data_wavefronts") - waves, 4u);
  EXPECT_EQ(b.stat("bank_conflicts"), 3u) << "the first wavefront is the access itself, three more are conflicts";
}

// Different words of one bank-row (one line) are no conflict; the same line
// looked up twice in a cycle shares its row (broadcast).
TEST(L1Banks, SameLineTwiceIsBroadcast) {
  BankBench b;
  b.warm(1);
  b.run(1);
  uint64_t waves = b.stat("data_wavefronts");
  ASSERT_TRUE(b.read(0x0, 0x1, 1, 0xF));
  ASSERT_TRUE(b.read(0x0, 0x3, 2));
  b.run(kLatency + 2);
  EXPECT_EQ(b.done_at[1], b.done_at[2]);
  EXPECT_EQ(b.stat("data_wavefronts") - waves, 1u);
}

// A narrower array (8 banks x 4 B = 32 B per cycle) reads a full line in four
// wavefronts; misses do not use the data array.
TEST(L1Banks, NarrowArrayTakesFourCyclesPerLine) {
  BankBench b({"l1d.data_banks=8"});
  b.warm(1);
  b.run(1);
  Cycle start = b.core.now();
  ASSERT_TRUE(b.read(0x0, 0xF, 1));
  ASSERT_TRUE(b.read(0x1000, 0xF, 2));  // a miss in the same cycle
  b.run(kLatency + 60);
  EXPECT_EQ(b.done_at[1], start + 3 + kLatency);
  EXPECT_GT(b.done_at[2], start + 50);
}

TEST(L1Banks, InvalidGeometryNamesTheParameter) {
  auto build = [](const std::string& set) {
    config::Config cfg;
    cfg.set_assignment(set);
    stats::Registry reg;
    ClockDomain core{"core", ClockPeriod{kPs}};
    L1D l1(cfg, stats::Scope(reg, "l1"), core, 0);
  };
  try {
    build("l1d.data_banks=24");
    FAIL() << "24 banks accepted";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("l1d.data_banks"), std::string::npos) << e.what();
  }
  try {
    build("l1d.bank_bytes=8");  // 32 x 8 B = 256 B rows
    FAIL() << "256 B rows accepted";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("l1d.bank_bytes"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace ws::timing
