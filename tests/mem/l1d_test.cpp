#include "timing/mem/l1d.h"

#include <gtest/gtest.h>

#include "mem/l1_bench.h"

namespace ws::timing {
namespace {

using test::kPs;
using test::L1Bench;

TEST(L1D, IdleNextEventIsNever) {
  L1Bench b;
  EXPECT_EQ(b.l1->next_event(), kNever);
  b.to_cycle(1);
  b.access(AccessType::Read, 0x1000, 0x1, 1);
  EXPECT_LE(b.l1->next_event(), b.core.now_tick());
  b.wait_done(1);
  b.drv.run_until(b.core.tick_of(b.core.now() + 5));
  EXPECT_EQ(b.l1->next_event(), kNever);
}

TEST(L1D, HitLatencyEqualsConfiguredLatency) {
  L1Bench b({"l1d.latency=28"});
  b.to_cycle(1);
  b.access(AccessType::Read, 0x1000, 0x3, 1);
  b.wait_done(1);
  b.to_cycle(b.core.now() + 2);
  Cycle start = b.core.now();
  b.access(AccessType::Read, 0x1000, 0x3, 2);
  EXPECT_EQ(b.wait_done(2), start + 28);
  EXPECT_EQ(b.stat("read_hits"), 2u);
  EXPECT_EQ(b.stat("read_misses"), 2u);
}

TEST(L1D, SectorMissSendsExactlyOneSectorRequest) {
  L1Bench b;
  b.to_cycle(1);
  b.access(AccessType::Read, 0x2000, 0x4, 7);
  EXPECT_NE(b.wait_done(7), ~Cycle{0});
  ASSERT_EQ(b.mem.seen.size(), 1u);
  EXPECT_EQ(b.mem.seen[0].addr, 0x2040u);
  EXPECT_EQ(b.mem.seen[0].type, AccessType::Read);
  EXPECT_EQ(b.mem.seen[0].payload_bytes(), 0u);  // a read request is header only; 32 B come back
  // The neighbouring sector of the same line is still a miss.
  b.to_cycle(b.core.now() + 1);
  b.access(AccessType::Read, 0x2000, 0x8, 8);
  b.wait_done(8);
  EXPECT_EQ(b.mem.seen.size(), 2u);
}

// A load that misses several sectors of a line sends one request naming
// them (a header, no data), as the L1 sends the L2 one request per line.
TEST(L1D, LineMissSendsOneRequestForItsSectors) {
  L1Bench b;
  b.to_cycle(1);
  b.access(AccessType::Read, 0x2000, 0xB, 7);  // sectors 0, 1, 3
  b.to_cycle(3);
  EXPECT_EQ(b.l1->mshrs_in_use(), 3u);  // one per sector in flight
  EXPECT_NE(b.wait_done(7), ~Cycle{0});
  ASSERT_EQ(b.mem.seen.size(), 1u);
  EXPECT_EQ(b.mem.seen[0].addr, 0x2000u);
  EXPECT_EQ(b.mem.seen[0].sector_bits(), 0xBu);
  EXPECT_EQ(b.mem.seen[0].payload_bytes(), 0u);
  EXPECT_EQ(b.l1->mshrs_in_use(), 0u);
  EXPECT_EQ(b.stat("read_misses"), 3u);  // still counted per sector
}

// Sectors of one request may come back in several replies (the L2 answers
// hits at once and misses as DRAM returns them): the load completes with the
// last, each reply frees its sectors' MSHRs, and the next loads hit.
TEST(L1D, SectorsReturnedSeparatelyCompleteTheLoadWithTheLast) {
  L1Bench whole({}, 50);
  whole.to_cycle(1);
  whole.access(AccessType::Read, 0x4000, 0xF, 1);
  Cycle whole_done = whole.wait_done(1);
  L1Bench b({}, 50);
  b.mem.per_sector = true;
  b.mem.sector_gap = 7 * kPs;
  b.to_cycle(1);
  b.access(AccessType::Read, 0x4000, 0xF, 1);
  // The last of four replies comes 3 x 7 cycles after the first.
  EXPECT_EQ(b.wait_done(1), whole_done + 21);
  EXPECT_EQ(b.l1->mshrs_in_use(), 0u);
  for (uint32_t i = 0; i < 40; ++i) {  // the request slots are reused
    b.to_cycle(b.core.now() + 1);
    b.access(AccessType::Read, 0x10000 + Addr{i} * kLineBytes, 0xF, 10 + i);
    ASSERT_NE(b.wait_done(10 + i), ~Cycle{0});
  }
  b.to_cycle(b.core.now() + 1);
  b.access(AccessType::Read, 0x4000, 0xF, 99);
  b.wait_done(99);
  EXPECT_EQ(b.stat("read_hits"), 4u);
}

// A later load of sectors in flight merges into their fetches: a second warp
// missing the same sector, or a load whose line is partly in flight, which
// fetches only the other sectors.
TEST(L1D, LoadsMergeIntoSectorsInFlight) {
  struct Case {
    uint8_t first, second;  // sector masks of the two loads of one line
    size_t requests;        // requests sent in all
    uint8_t second_fetch;   // sectors the second load's own request names
    uint64_t merges;
  };
  for (Case c : {Case{0x1, 0x1, 1, 0, 1}, Case{0x3, 0xF, 2, 0xC, 2}}) {
    L1Bench b;
    b.to_cycle(1);
    b.access(AccessType::Read, 0x3000, c.first, 1);
    b.to_cycle(2);
    b.access(AccessType::Read, 0x3000, c.second, 2);
    EXPECT_NE(b.wait_done(1), ~Cycle{0});
    EXPECT_NE(b.wait_done(2), ~Cycle{0});
    ASSERT_EQ(b.mem.seen.size(), c.requests);
    if (c.second_fetch) {
      EXPECT_EQ(b.mem.seen[1].sector_bits(), c.second_fetch);
    }
    EXPECT_EQ(b.stat("mshr_merges"), c.merges);
  }
}

TEST(L1D, MshrExhaustionStalls) {
  L1Bench b({"l1d.mshr_entries=2"});
  b.mem.out = nullptr;  // L2 never answers
  b.to_cycle(1);
  b.access(AccessType::Read, 0x0, 0x1, 1);
  b.to_cycle(2);
  b.access(AccessType::Read, 0x80, 0x1, 2);
  b.to_cycle(3);
  b.access(AccessType::Read, 0x100, 0x1, 3);
  b.to_cycle(20);
  EXPECT_FALSE(b.l1->can_accept());
  EXPECT_EQ(b.mem.seen.size(), 2u);
  EXPECT_EQ(b.stat("mshr_stalls"), 1u);  // the third access waits...
  EXPECT_EQ(b.l1->mshrs_in_use(), 2u);   // ...for one of the two MSHRs
}

// Release builds compile assert() out: an access handed over while the L1
// cannot take one must still be refused, not overwrite the stalled access.
TEST(L1D, AccessWhileStalledIsRefused) {
  L1Bench b({"l1d.mshr_entries=1"});
  b.mem.out = nullptr;  // L2 never answers
  b.to_cycle(1);
  b.access(AccessType::Read, 0x0, 0x1, 1);
  b.to_cycle(2);
  b.access(AccessType::Read, 0x80, 0x1, 2);  // waits for the only MSHR
  b.to_cycle(10);
  ASSERT_FALSE(b.l1->can_accept());
  L1Access a;
  a.line_addr = 0x100;
  a.sector_mask = 0x1;
  a.type = AccessType::Read;
  a.token = 3;
  try {
    b.l1->accept(a);
    FAIL() << "accept() took an access while stalled";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("could not accept"), std::string::npos) << e.what();
  }
  EXPECT_EQ(b.mem.seen.size(), 1u);  // the stalled access is still the one waiting
}

TEST(L1D, MergeLimitStalls) {
  L1Bench b({"l1d.mshr_max_merge=2"});
  b.mem.out = nullptr;
  for (uint32_t i = 0; i < 3; ++i) {
    b.to_cycle(1 + i);
    b.access(AccessType::Read, 0x0, 0x1, i);
  }
  b.to_cycle(10);
  EXPECT_FALSE(b.l1->can_accept());
  EXPECT_EQ(b.stat("mshr_merges"), 1u);
}

TEST(L1D, StoreIsWriteThroughWithoutAllocation) {
  L1Bench b({"l1d.write_policy=no-allocate"});
  b.to_cycle(1);
  b.access(AccessType::Write, 0x4000, 0x3, 1, 0xF0);
  b.to_cycle(10);
  ASSERT_EQ(b.mem.seen.size(), 1u);  // both sectors, written alike, in one message
  EXPECT_EQ(b.mem.seen[0].type, AccessType::Write);
  EXPECT_EQ(b.mem.seen[0].sector_bits(), 0x3u);
  EXPECT_EQ(b.mem.seen[0].byte_mask, 0xF0u);
  EXPECT_EQ(b.mem.seen[0].payload_bytes(), 2 * kSectorBytes);
  EXPECT_EQ(b.stat("write_misses"), 2u);
  // No allocation: a later load of the same sector misses.
  b.access(AccessType::Read, 0x4000, 0x1, 2);
  b.wait_done(2);
  EXPECT_EQ(b.stat("read_misses"), 1u);
  // Store hit: updated in place and still sent to L2.
  b.to_cycle(b.core.now() + 1);
  b.access(AccessType::Write, 0x4000, 0x1, 3, 0xF);
  b.to_cycle(b.core.now() + 5);
  EXPECT_EQ(b.stat("write_hits"), 1u);
  EXPECT_EQ(b.mem.sectors_seen(), 4u);
}

TEST(L1D, WriteAllocateInstallsOnlyFullyWrittenSectors) {
  L1Bench b;  // default: write-allocate, as on Volta and later
  b.to_cycle(1);
  b.access(AccessType::Write, 0x6000, 0x3, 1, 0xFFFFFFFF);  // sectors 0 and 1, fully written
  b.to_cycle(3);
  b.access(AccessType::Write, 0x6000, 0x4, 2, 0x0000FFFF);  // sector 2, half written
  b.to_cycle(6);
  EXPECT_EQ(b.mem.sectors_seen(), 3u);  // still written through
  b.access(AccessType::Read, 0x6000, 0x7, 3);
  b.wait_done(3);
  EXPECT_EQ(b.stat("read_hits"), 2u);    // the fully written sectors
  EXPECT_EQ(b.stat("read_misses"), 1u);  // the partly written one is fetched
}

TEST(L1D, WriteEvictInvalidatesOnHit) {
  L1Bench b({"l1d.write_policy=write-evict"});
  b.to_cycle(1);
  b.access(AccessType::Read, 0x7000, 0x1, 1);
  b.wait_done(1);
  b.to_cycle(b.core.now() + 1);
  b.access(AccessType::Write, 0x7000, 0x1, 2, 0xFFFFFFFF);
  b.to_cycle(b.core.now() + 2);
  EXPECT_EQ(b.stat("write_hits"), 1u);
  b.access(AccessType::Read, 0x7000, 0x1, 3);
  b.wait_done(3);
  EXPECT_EQ(b.stat("read_misses"), 2u);  // the first load and the one after the store
}

// Kepler/Fermi-style L1: a one-sector miss fetches the whole 128 B line, and
// the other sectors then hit.
TEST(L1D, NonSectoredMissFetchesTheWholeLine) {
  for (bool sectored : {true, false}) {
    L1Bench b({sectored ? "l1d.sectored=true" : "l1d.sectored=false"});
    b.to_cycle(1);
    b.access(AccessType::Read, 0x8000, 0x2, 1);  // sector 1 only
    b.wait_done(1);
    EXPECT_EQ(b.mem.seen.size(), 1u);  // one request for the line
    EXPECT_EQ(b.mem.sectors_seen(), sectored ? 1u : 4u);
    b.to_cycle(b.core.now() + 10);
    b.access(AccessType::Read, 0x8000, 0xD, 2);  // sectors 0, 2, 3
    b.wait_done(2);
    EXPECT_EQ(b.stat("read_hits"), sectored ? 0u : 3u);
    EXPECT_EQ(b.mem.sectors_seen(), 4u);  // either way the line was fetched once in all
    EXPECT_EQ(b.mem.seen.size(), sectored ? 2u : 1u);
  }
}

TEST(L1D, UnknownWritePolicyIsNamed) {
  config::Config cfg;
  cfg.set_assignment("l1d.write_policy=write-back");
  stats::Registry reg;
  ClockDomain core{"core", ClockPeriod{kPs}};
  EXPECT_THROW(L1D(cfg, stats::Scope(reg, "l1"), core, 0), ConfigError);
}

TEST(L1D, AtomicGoesToL2AndInvalidatesLocalCopy) {
  L1Bench b;
  b.to_cycle(1);
  b.access(AccessType::Read, 0x5000, 0x1, 1);
  b.wait_done(1);
  b.to_cycle(b.core.now() + 1);
  Cycle start = b.core.now();
  b.access(AccessType::Atomic, 0x5000, 0x1, 2, 0xF);
  Cycle done = b.wait_done(2);
  EXPECT_GE(done, start + 100);  // waits for the L2 reply
  EXPECT_EQ(b.mem.seen.back().type, AccessType::Atomic);
  b.to_cycle(b.core.now() + 1);
  b.access(AccessType::Read, 0x5000, 0x1, 3);
  b.wait_done(3);
  EXPECT_EQ(b.stat("read_misses"), 2u);
}

// Lanes on one word go to the L2 in passes, a request each carrying its
// share of the sector's operations; with l1d.atomic_request_cycles = 4 the
// tag stage takes no other access until the last request's 4 cycles are up
// (the H100: ubench/atomics, docs/validation-h100.md).
TEST(L1D, AtomicPassesAreRequestsThatHoldTheTagStage) {
  L1Bench b({"l1d.atomic_request_cycles=4"});
  b.to_cycle(1);
  L1Access a;
  a.line_addr = 0x5000;
  a.sector_mask = 0x3;  // sectors 0 and 1
  a.type = AccessType::Atomic;
  a.token = 2;
  a.thread_ops = {12, 2};
  a.atomic_passes = {3, 1};  // three lanes name one word of sector 0
  Cycle start = b.core.now();
  ASSERT_TRUE(b.l1->can_accept());
  b.l1->accept(a);
  b.to_cycle(start + 15);
  EXPECT_FALSE(b.l1->can_accept());  // 4 requests x 4 cycles
  b.to_cycle(start + 16);
  EXPECT_TRUE(b.l1->can_accept());
  EXPECT_NE(b.wait_done(2), ~Cycle{0});
  ASSERT_EQ(b.mem.seen.size(), 4u);
  std::vector<uint32_t> ops;
  for (const MemRequest& r : b.mem.seen) ops.push_back(r.thread_ops);
  EXPECT_EQ(ops, (std::vector<uint32_t>{4, 4, 4, 2}));
  EXPECT_EQ(b.stat("atomics"), 4u);
}

TEST(L1D, CarveOutChangesCapacity) {
  L1Bench b;
  EXPECT_EQ(b.l1->capacity_bytes(), 128u * 1024);
  b.l1->set_capacity_bytes(32 * 1024);
  EXPECT_EQ(b.l1->capacity_bytes(), 32u * 1024);
  EXPECT_THROW(b.l1->set_capacity_bytes(1000), ConfigError);
  // All shared memory: no L1 lines, every load misses but still completes.
  b.l1->set_capacity_bytes(0);
  for (uint32_t t = 1; t <= 2; ++t) {
    b.to_cycle(b.core.now() + 1);
    b.access(AccessType::Read, 0x6000, 0x1, t);
    EXPECT_NE(b.wait_done(t), ~Cycle{0});
  }
  EXPECT_EQ(b.stat("read_misses"), 2u);
}

// Local memory with l1d.local_write_policy = write-back (the default).
void local_store(L1Bench& b, Addr line, uint8_t sectors, uint32_t bytes) {
  L1Access a;
  a.line_addr = line;
  a.sector_mask = sectors;
  a.type = AccessType::Write;
  a.local = true;
  for (auto& m : a.byte_masks) m = bytes;
  ASSERT_TRUE(b.l1->can_accept());
  b.l1->accept(a);
}

TEST(L1D, LocalStoreThenLoadHitsWithoutL2Traffic) {
  L1Bench b;
  b.to_cycle(1);
  local_store(b, 0x4000, 0x3, 0xffffffffu);
  b.to_cycle(3);
  Cycle start = b.core.now();
  b.access(AccessType::Read, 0x4000, 0x3, 1);
  EXPECT_EQ(b.wait_done(1), start + 28);
  EXPECT_TRUE(b.mem.seen.empty()) << "neither the store nor the load reached L2";
  EXPECT_EQ(b.stat("read_hits"), 2u);
}

TEST(L1D, LocalWriteBackOnEviction) {
  L1Bench b({"l1d.size_kb=1"});  // 4 sets x 2 ways
  b.to_cycle(1);
  local_store(b, 0x0, 0x1, 0xffffffffu);
  b.to_cycle(2);
  local_store(b, 0x0, 0x4, 0x0000ffffu);  // half a sector: dirty, not readable
  // Two more lines of set 0 (line numbers 4 and 8) evict it.
  b.to_cycle(3);
  b.access(AccessType::Read, 0x200, 0x1, 1);
  b.wait_done(1);
  EXPECT_EQ(b.mem.seen.size(), 1u);
  b.to_cycle(b.core.now() + 1);
  b.access(AccessType::Read, 0x400, 0x1, 2);
  b.wait_done(2);
  b.drv.run_until(b.core.tick_of(b.core.now() + 5));
  ASSERT_EQ(b.mem.seen.size(), 4u);  // two reads, then the victim's two dirty sectors
  EXPECT_EQ(b.stat("local_writebacks"), 2u);
  EXPECT_EQ(b.mem.seen[2].type, AccessType::Write);
  EXPECT_EQ(b.mem.seen[2].addr, 0x0u);
  EXPECT_EQ(b.mem.seen[2].byte_mask, 0xffffffffu);
  EXPECT_EQ(b.mem.seen[3].addr, 0x40u);
  EXPECT_EQ(b.mem.seen[3].byte_mask, 0x0000ffffu);
}

TEST(L1D, PartlyWrittenLocalSectorIsFetchedOnRead) {
  L1Bench b;
  b.to_cycle(1);
  local_store(b, 0x5000, 0x1, 0x0000000fu);
  b.to_cycle(2);
  b.access(AccessType::Read, 0x5000, 0x1, 1);
  b.wait_done(1);
  ASSERT_EQ(b.mem.seen.size(), 1u);
  EXPECT_EQ(b.mem.seen[0].type, AccessType::Read);
  b.to_cycle(b.core.now() + 1);
  Cycle start = b.core.now();
  b.access(AccessType::Read, 0x5000, 0x1, 2);
  EXPECT_EQ(b.wait_done(2), start + 28);
}

TEST(L1D, LocalWriteThroughSendsEveryStore) {
  L1Bench b({"l1d.local_write_policy=write-through"});
  b.to_cycle(1);
  local_store(b, 0x6000, 0x3, 0xffffffffu);
  b.drv.run_until(b.core.tick_of(10));
  EXPECT_EQ(b.mem.sectors_seen(), 2u);
  config::Config cfg;
  cfg.set_assignment("l1d.local_write_policy=write-around");
  stats::Registry reg;
  ClockDomain core{"core", ClockPeriod{kPs}};
  try {
    L1D l1(cfg, stats::Scope(reg, "l1"), core, 0);
    FAIL();
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("l1d.local_write_policy"), std::string::npos);
  }
}

}  // namespace
}  // namespace ws::timing
