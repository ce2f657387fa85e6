// The abstract model's analytical DRAM on hand-computed cases. One channel
// (two slices, both in it), DRAM clock = core clock and no slice-to-channel
// latency, so every time below is a DRAM cycle counted from the request's
// arrival. Without bank XOR hashing a slice-0 line at L x 128 B (L even) is
// channel-local line L: column L % 16, bank (L / 16) % 16, row L / 256.
// Timing (the QV100 HBM2 part): tRCD 12, tRP 12, tRAS 28, tRC 40, CL 12,
// WL 2, tCCDL 2, tRRD 3, tWTR 3, one clock per sector.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "config/config.h"
#include "stats/stats.h"
#include "timing/abstract/dram_model.h"

namespace ws::timing::abstract {
namespace {

config::Config one_channel(const std::vector<std::string>& sets = {}) {
  config::Config cfg;
  cfg.load_file(config::find_preset("qv100"));
  for (const char* s : {"clock.dram_mhz=1132", "l2.dram_latency=0", "dram.bank_xor=false", "dram.tREFI=0"})
    cfg.set_assignment(s);
  for (const auto& s : sets) cfg.set_assignment(s);
  return cfg;
}

// The line address of channel-local line 2 * (bank * 16 + row * 256) + 2 * column.
Addr at(uint32_t bank, uint64_t row, uint32_t column = 0) { return (row * 256 + bank * 16 + column * 2) * 128; }

struct Fixture {
  explicit Fixture(const config::Config& cfg) : dram(cfg, reg, 2, 2) {}
  uint64_t counter(const std::string& name) const { return reg.sum("dram.0." + name); }
  stats::Registry reg;
  DramModel dram;
};

TEST(AbstractDram, AddressesLandWhereTheDetailedMapPutsThem) {
  Fixture f(one_channel());
  DramModel::Place p = f.dram.locate(0, at(5, 3, 7));
  EXPECT_EQ(p.channel, 0u);
  EXPECT_EQ(p.bank, 5u);
  EXPECT_EQ(p.row, 3u);
}

// A closed bank: ACT at 0, the read tRCD later, data CL + one burst after
// that (25). Later reads of the open row are column commands in the same
// bank group, tCCDL = 2 apart: no activate.
TEST(AbstractDram, RowHitsInOneBankAreTccdlApart) {
  Fixture f(one_channel());
  std::vector<double> done;
  for (uint32_t c = 0; c < 6; ++c) done.push_back(f.dram.read(0, at(0, 0, c), 1, 0));
  EXPECT_DOUBLE_EQ(done[0], 12 + 12 + 1);
  for (size_t i = 1; i < done.size(); ++i) EXPECT_DOUBLE_EQ(done[i] - done[i - 1], 2) << i;
  EXPECT_EQ(f.counter("activates"), 1u);
  EXPECT_EQ(f.counter("row_hits"), 5u);
}

// Two banks in different groups share the bus: their column commands
// interleave, so together they deliver one sector a clock.
TEST(AbstractDram, TwoBanksFillTheBus) {
  Fixture f(one_channel());
  std::vector<double> done;
  for (uint32_t c = 0; c < 8; ++c) done.push_back(f.dram.read(0, at(c % 2, 0, c / 2), 1, 0));
  // Bank 1's ACT waits tRRD (3) after bank 0's; its first data at 3 + 12 + 12 + 1.
  EXPECT_DOUBLE_EQ(done[1], 28);
  EXPECT_DOUBLE_EQ(done[7] - done[1], 3 * 2);  // bank 1's fourth read, tCCDL apart
  EXPECT_DOUBLE_EQ(done[6] - done[0], 3 * 2);
}

// Alternating rows in one bank: each access precharges (tRAS after the ACT)
// and activates again tRP later, so accesses are tRC = tRAS + tRP = 40 apart.
TEST(AbstractDram, AlternatingRowsInOneBankCostTrcEach) {
  Fixture f(one_channel());
  std::vector<double> done;
  for (uint64_t i = 0; i < 5; ++i) done.push_back(f.dram.read(0, at(0, i % 2), 1, 0));
  for (size_t i = 1; i < done.size(); ++i) EXPECT_DOUBLE_EQ(done[i] - done[i - 1], 40) << i;
  EXPECT_EQ(f.counter("activates"), 5u);
  EXPECT_EQ(f.counter("row_hits"), 0u);
}

// A write to an idle channel goes at once: ACT 0, write command 12, data
// WL + one burst later (15). A read of the same row then waits for the bus
// to turn: its command tWTR after the write data, its data CL + a burst
// after that: 15 + 3 + 12 + 1 = 31 (alone it would end at 25).
TEST(AbstractDram, ReadAfterWritePaysTheTurnaround) {
  Fixture f(one_channel());
  f.dram.write(0, at(0, 0, 0), 1, 0);
  EXPECT_DOUBLE_EQ(f.dram.read(0, at(0, 0, 1), 1, 0), 31);
  EXPECT_EQ(f.counter("writes"), 1u);
}

// While reads keep the bus busy a write waits for a batch (dram.write_high
// sectors): it neither takes the bus nor turns it, so a later read of
// another bank is not delayed.
TEST(AbstractDram, WritesWaitForABatchWhileReadsRun) {
  Fixture f(one_channel());
  EXPECT_DOUBLE_EQ(f.dram.read(0, at(0, 0), 1, 0), 25);
  f.dram.write(0, at(2, 0), 1, 1);
  // Bank 1: ACT at tRRD = 3, read 15, data 28.
  EXPECT_DOUBLE_EQ(f.dram.read(0, at(1, 0), 1, 2), 28);
}

// A batch drains once dram.write_high sectors are queued, down to
// dram.write_low: afterwards reads wait for the bus to turn back.
TEST(AbstractDram, AFullWriteQueueDrainsABatch) {
  Fixture f(one_channel({"dram.write_high=8", "dram.write_low=4"}));
  EXPECT_DOUBLE_EQ(f.dram.read(0, at(0, 0), 1, 0), 25);
  for (uint32_t i = 0; i < 7; ++i) f.dram.write(0, at(2, 0, i), 1, 1);
  EXPECT_DOUBLE_EQ(f.dram.read(0, at(1, 0), 1, 2), 28);  // seven queued: no drain yet
  f.dram.write(0, at(2, 0, 7), 1, 3);                      // the eighth drains four
  // The write data follow the last read's (28) after one idle clock
  // (read-to-write CL + burst + 1 - WL between the commands): 29..32, the
  // last ending at 33; bank 2's own commands (ACT at 6, tRRD after bank
  // 1's; writes from 18) are earlier. A read then waits tWTR + CL + a
  // burst: 33 + 3 + 12 + 1 = 49.
  EXPECT_DOUBLE_EQ(f.dram.read(0, at(0, 0, 1), 1, 3), 49);
}

// All-bank refresh every tREFI for tRP + tRFC: a request meeting the window
// waits for its end, and a row open before it is closed after it. The
// channel's first refresh is at tREFI (one channel: no stagger).
TEST(AbstractDram, RefreshTakesTheBankAndClosesItsRow) {
  Fixture f(one_channel({"dram.tREFI=1000", "dram.tRFC=100", "dram.refresh_per_bank=false"}));
  EXPECT_DOUBLE_EQ(f.dram.read(0, at(0, 0, 0), 1, 0), 25);
  // Arrives at 1010, inside [1000, 1112): ACT 1112, data 1112 + 12 + 12 + 1.
  EXPECT_DOUBLE_EQ(f.dram.read(0, at(0, 0, 1), 1, 1010), 1137);
  EXPECT_EQ(f.counter("activates"), 2u);
}

TEST(AbstractDram, SameRequestsSameTimes) {
  auto run = [] {
    Fixture f(one_channel());
    std::vector<double> t;
    for (uint32_t i = 0; i < 200; ++i) {
      Addr a = at(i * 7 % 16, i * 13 % 5, i % 16);
      if (i % 3 == 0) f.dram.write(i % 2, a, 2, i);
      else t.push_back(f.dram.read(i % 2, a, 1 + i % 4, i));
    }
    return t;
  };
  EXPECT_EQ(run(), run());
}

}  // namespace
}  // namespace ws::timing::abstract
