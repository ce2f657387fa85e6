#include "timing/mem/l2_slice.h"

#include <gtest/gtest.h>

#include "exec/memory_windows.h"
#include "ir/param_bank.h"
#include "mem/test_driver.h"

namespace ws::timing {
namespace {

constexpr Tick kPs = 1000;
// One slice, one set of 8 ways: evictions are easy to provoke.
const std::vector<std::string> kTiny = {"l2.channels=1", "l2.slices_per_channel=1", "l2.size_kb=1", "l2.ways=8",
                                        "l2.latency=20", "l2.dram_latency=0"};

struct L2Bench {
  config::Config cfg;
  stats::Registry reg;
  ClockDomain clk{"l2", ClockPeriod{kPs}};
  std::unique_ptr<L2Slice> l2;
  test::FakeMemory dram;
  Port<MemRequest> replies{256};
  test::TestDriver drv;

  explicit L2Bench(std::vector<std::string> sets = kTiny, uint16_t id = 0) {
    for (auto& s : sets) cfg.set_assignment(s);
    l2 = std::make_unique<L2Slice>(cfg, stats::Scope(reg, "l2.0"), clk, id);
    l2->connect_reply(&replies);
    l2->connect_dram(&dram.in);
    dram.out = &l2->from_dram();
    dram.latency = 50 * kPs;
    drv.add(clk, *l2);
    drv.on_edge([this](Tick t) { dram.step(t); });
  }
  uint64_t stat(const std::string& leaf) const { return reg.sum("l2.0." + leaf); }
  // Delivers a request at the next edge.
  void send(AccessType type, Addr addr, uint32_t mask = 0, uint32_t tag = 0, ir::CacheOp op = ir::CacheOp::Default,
            uint8_t sectors = 0) {
    MemRequest m;
    m.sectors = sectors;
    m.addr = addr;
    m.type = type;
    m.byte_mask = mask;
    m.tag = tag;
    m.cache_op = op;
    l2->from_icnt().push(m, clk.tick_of(clk.now() + 1));
  }
  void run(Cycle cycles) { drv.run_until(clk.tick_of(clk.now() + cycles)); }
  // Sectors asked of DRAM, and the messages that asked for them.
  size_t dram_reads() const {
    size_t n = 0;
    for (auto& r : dram.seen) n += r.type == AccessType::Read ? r.sector_count() : 0;
    return n;
  }
  size_t dram_read_messages() const {
    size_t n = 0;
    for (auto& r : dram.seen) n += r.type == AccessType::Read;
    return n;
  }
};

TEST(L2Slice, HitLatencyAndIdleNever) {
  L2Bench b;
  EXPECT_EQ(b.l2->next_event(), kNever);
  b.l2->warm(0x1000, 32);
  b.run(3);
  Cycle arrive = b.clk.now() + 1;
  b.send(AccessType::Read, 0x1000, 0, 9);
  b.run(100);
  ASSERT_EQ(b.replies.size(), 1u);
  EXPECT_EQ(b.replies.next_ready(), b.clk.tick_of(arrive + 20));
  EXPECT_EQ(b.replies.front().tag, 9u);
  EXPECT_TRUE(b.replies.front().is_reply);
  EXPECT_EQ(b.stat("read_hits"), 1u);
  EXPECT_TRUE(b.dram.seen.empty());
  EXPECT_EQ(b.l2->next_event(), kNever);
}

// A read of several sectors of a line is looked up once: the valid sectors
// go back in one reply when the pipeline is through, the missing ones in one
// reply once DRAM has returned the last of them.
TEST(L2Slice, LineReadRepliesHitsTogetherAndMissesTogether) {
  L2Bench b;
  b.dram.per_sector = true;  // the fake DRAM answers sector by sector, 9 cycles apart
  b.dram.sector_gap = 9 * kPs;
  b.l2->warm(0x2000, 64);  // sectors 0 and 1
  b.run(3);
  Cycle arrive = b.clk.now() + 1;
  MemRequest m;
  m.addr = 0x2000;
  m.sectors = 0xF;
  m.tag = 5;
  b.l2->from_icnt().push(m, b.clk.tick_of(arrive));
  b.run(200);
  ASSERT_EQ(b.replies.size(), 2u);
  EXPECT_EQ(b.replies.front().sector_bits(), 0x3u);
  EXPECT_EQ(b.replies.front().addr, 0x2000u);
  EXPECT_EQ(b.replies.next_ready(), b.clk.tick_of(arrive + 20));
  EXPECT_EQ(b.replies.front().payload_bytes(), 2 * kSectorBytes);
  b.replies.pop();
  EXPECT_EQ(b.replies.front().sector_bits(), 0xCu);
  EXPECT_EQ(b.replies.front().addr, 0x2040u);
  EXPECT_EQ(b.replies.front().tag, 5u);
  EXPECT_EQ(b.dram_reads(), 2u);
  EXPECT_EQ(b.dram_read_messages(), 1u);  // one fetch of the line's missing sectors
  EXPECT_EQ(b.dram.seen[0].sector_bits(), 0xCu);
  EXPECT_EQ(b.stat("reads"), 4u);
  EXPECT_EQ(b.stat("read_hits"), 2u);
  EXPECT_EQ(b.stat("read_misses"), 2u);
  // A second reader of the line, while its fetch is in flight, joins it.
  L2Bench c;
  m.sectors = 0x3;
  c.l2->from_icnt().push(m, c.clk.tick_of(1));
  m.sectors = 0x6;
  m.addr = 0x2020;
  c.l2->from_icnt().push(m, c.clk.tick_of(2));
  c.run(300);
  EXPECT_EQ(c.dram_reads(), 3u);  // sectors 0, 1, 2 once each
  EXPECT_EQ(c.dram_read_messages(), 2u);
  EXPECT_EQ(c.stat("mshr_merges"), 1u);
  ASSERT_EQ(c.replies.size(), 2u);
  EXPECT_EQ(c.replies.front().sector_bits(), 0x3u);
  c.replies.pop();
  EXPECT_EQ(c.replies.front().sector_bits(), 0x6u);
}

// A reply of k sectors holds the slice's wire into the reply crossbar k
// flits (40 B flits: header and 32 B a flit), so two four-sector hit replies
// leave four cycles apart, and the slice wakes for the second by itself.
TEST(L2Slice, ReplyOfSeveralSectorsHoldsTheWireAFlitPerSector) {
  L2Bench b;
  b.l2->warm(0x2000, 256);
  b.run(3);
  Cycle arrive = b.clk.now() + 1;
  b.send(AccessType::Read, 0x2000, 0, 1, ir::CacheOp::Default, 0xF);
  b.send(AccessType::Read, 0x2080, 0, 2, ir::CacheOp::Default, 0xF);
  b.run(100);
  ASSERT_EQ(b.replies.size(), 2u);
  EXPECT_EQ(b.replies.ready_of(0), b.clk.tick_of(arrive + 20));
  EXPECT_EQ(b.replies.ready_of(1), b.clk.tick_of(arrive + 20 + 4));
}

// A line read that runs out of MSHRs part-way keeps its remaining sectors
// and takes them up when a fill frees one: nothing is asked twice or lost.
TEST(L2Slice, LineReadStalledPartWayResumesWithTheRest) {
  std::vector<std::string> sets = kTiny;
  sets.push_back("l2.mshr_entries=1");
  L2Bench b(sets);
  MemRequest m;
  m.addr = 0x3000;
  m.sectors = 0x7;
  b.l2->from_icnt().push(m, b.clk.tick_of(1));
  b.run(1000);
  EXPECT_EQ(b.dram_reads(), 3u);
  uint8_t back = 0;
  for (; !b.replies.empty(); b.replies.pop()) {
    EXPECT_EQ(back & b.replies.front().sector_bits(), 0) << "a sector replied twice";
    back |= b.replies.front().sector_bits();
  }
  EXPECT_EQ(back, 0x7);
  EXPECT_GT(b.stat("stall_cycles"), 0u);
  EXPECT_EQ(b.stat("read_misses"), 3u);
}

// l2.code_loaded: a code line's first read finds it (the module load wrote
// it); once evicted it comes from DRAM like any line. Data lines are not
// affected. The tiny L2 holds 8 lines in one set: 9 more lines evict it.
TEST(L2Slice, LoadedCodeHitsOnceThenBehavesAsData) {
  std::vector<std::string> sets = kTiny;
  sets.push_back("l2.code_loaded=true");
  L2Bench b(sets);
  Addr code = kCodeRegionBase + 0x80;
  b.send(AccessType::Read, code);
  b.run(200);
  EXPECT_EQ(b.dram_reads(), 0u);
  EXPECT_EQ(b.stat("read_hits"), 1u);
  for (Addr i = 1; i <= 9; ++i) {
    b.send(AccessType::Read, i * kLineBytes);  // data lines: misses
    b.run(200);
  }
  EXPECT_EQ(b.dram_reads(), 9u);
  b.send(AccessType::Read, code);  // evicted by then: from DRAM
  b.run(200);
  EXPECT_EQ(b.dram_reads(), 10u);
  // Data at exec's and NVBit traces' addresses (0x7f..), above the code
  // region, is not code: a miss.
  b.send(AccessType::Read, 0x0000'7f00'0000'0100ull);
  b.run(200);
  EXPECT_EQ(b.dram_reads(), 11u);

  std::vector<std::string> cold = kTiny;
  cold.push_back("l2.code_loaded=false");
  L2Bench off(cold);  // code that starts in DRAM is read from there the first time
  off.send(AccessType::Read, code);
  off.run(200);
  EXPECT_EQ(off.dram_reads(), 1u);
}

// A launch writes its constant bank (ir/param_bank.h): a bank line is found
// at every read, also after evictions, with or without l2.code_loaded.
TEST(L2Slice, ParamBankLinesAreAlwaysThere) {
  std::vector<std::string> sets = kTiny;
  sets.push_back("l2.code_loaded=false");
  L2Bench b(sets);
  Addr bank = ir::kParamBankBase + 0x200;
  b.send(AccessType::Read, bank);
  b.run(200);
  EXPECT_EQ(b.stat("read_hits"), 1u);
  for (Addr i = 1; i <= 9; ++i) {
    b.send(AccessType::Read, i * kLineBytes);  // nine data lines evict it
    b.run(200);
  }
  b.send(AccessType::Read, bank);
  b.run(200);
  EXPECT_EQ(b.stat("read_hits"), 2u);
  EXPECT_EQ(b.dram_reads(), 9u);  // the data lines only
}

// Code regions (one per kernel name) stay below kCodeRegionEnd, clear of data.
TEST(L2Slice, CodeRegionsStayInTheirRange) {
  EXPECT_TRUE(is_code_addr(code_region_base(0)));
  uint64_t regions = (kCodeRegionEnd - kCodeRegionBase) >> kCodeRegionShift;
  EXPECT_TRUE(is_code_addr(code_region_base(regions - 1) + ((Addr{1} << kCodeRegionShift) - 1)));
  EXPECT_THROW(code_region_base(regions), InputError);
  EXPECT_FALSE(is_code_addr(0x0000'7f00'0000'0000ull));
  EXPECT_FALSE(is_code_addr(exec::kUnifiedBase));  // managed and mapped host memory is data
  EXPECT_FALSE(is_code_addr(0x0000'5555'5555'0000ull));  // where Linux puts a PIE program's heap
}

TEST(L2Slice, FullSectorWriteThenReadNeedsNoDram) {
  L2Bench b;
  b.send(AccessType::Write, 0x2000, kFullSectorMask);
  b.run(2);
  b.send(AccessType::Read, 0x2000);
  b.run(200);
  EXPECT_EQ(b.dram_reads(), 0u);
  EXPECT_EQ(b.replies.size(), 1u);
  EXPECT_EQ(b.stat("read_hits"), 1u);
  EXPECT_EQ(b.stat("write_misses"), 1u);
}

// A store message carries several sectors written alike: each is validated
// (whole) or merged with DRAM's bytes on a later read (partly written);
// st.wt sends them on to DRAM in one write.
TEST(L2Slice, LineWriteTreatsEachSectorAsWritten) {
  L2Bench b;
  b.send(AccessType::Write, 0x2000, kFullSectorMask, 0, ir::CacheOp::Default, 0xF);
  b.send(AccessType::Write, 0x2080, 0x0000FFFF, 0, ir::CacheOp::Default, 0x6);
  b.run(30);
  EXPECT_EQ(b.stat("writes"), 6u);
  EXPECT_EQ(b.stat("write_misses"), 6u);
  b.send(AccessType::Read, 0x2000, 0, 1, ir::CacheOp::Default, 0xF);
  b.send(AccessType::Read, 0x20A0, 0, 2, ir::CacheOp::Default, 0x6);
  b.run(300);
  EXPECT_EQ(b.dram_reads(), 2u);  // the two half-written sectors
  ASSERT_EQ(b.replies.size(), 2u);
  EXPECT_EQ(b.replies.front().sector_bits(), 0xFu);
  b.replies.pop();
  EXPECT_EQ(b.replies.front().sector_bits(), 0x6u);
  L2Bench wt;
  wt.send(AccessType::Write, 0x1040, kFullSectorMask, 0, ir::CacheOp::WriteThrough, 0xC);
  wt.run(100);
  ASSERT_EQ(wt.dram.seen.size(), 1u);
  EXPECT_EQ(wt.dram.seen[0].addr, 0x1040u);
  EXPECT_EQ(wt.dram.seen[0].sector_bits(), 0xCu);
  EXPECT_EQ(wt.dram.seen[0].type, AccessType::Write);
}

// An evicted line's dirty sectors go to DRAM as one write per group written
// alike, and the wire towards DRAM carries a sector of data a cycle: a
// whole line's write-back holds it four cycles.
TEST(L2Slice, WriteBackGroupsSectorsWrittenAlike) {
  L2Bench b;
  b.send(AccessType::Write, 0x1000, kFullSectorMask, 0, ir::CacheOp::Default, 0xF);
  b.send(AccessType::Write, 0x1080, kFullSectorMask, 0, ir::CacheOp::Default, 0x3);
  b.send(AccessType::Write, 0x10C0, 0xFF);
  b.run(30);
  for (Addr line = 2; line <= 9; ++line) b.send(AccessType::Write, 0x1000 + line * kLineBytes, kFullSectorMask);
  b.run(100);
  ASSERT_EQ(b.dram.seen.size(), 3u);
  EXPECT_EQ(b.dram.seen[0].addr, 0x1000u);
  EXPECT_EQ(b.dram.seen[0].sector_bits(), 0xFu);
  EXPECT_EQ(b.dram.seen[1].addr, 0x1080u);
  EXPECT_EQ(b.dram.seen[1].sector_bits(), 0x3u);
  EXPECT_EQ(b.dram.seen[1].byte_mask, kFullSectorMask);
  EXPECT_EQ(b.dram.seen[2].addr, 0x10C0u);
  EXPECT_EQ(b.dram.seen[2].sector_bits(), 0x4u);
  EXPECT_EQ(b.dram.seen[2].byte_mask, 0xFFu);
  EXPECT_EQ(b.stat("dram_writes"), 7u);
  EXPECT_EQ(b.dram.seen_at[1] - b.dram.seen_at[0], 4 * kPs);
  EXPECT_EQ(b.dram.seen_at[2] - b.dram.seen_at[1], 2 * kPs);
}

TEST(L2Slice, PartialWriteThenReadFetchesOnce) {
  L2Bench b;
  b.send(AccessType::Write, 0x2000, 0x0000FFFF);
  b.run(2);
  b.send(AccessType::Read, 0x2000);
  b.run(200);
  EXPECT_EQ(b.dram_reads(), 1u);
  EXPECT_EQ(b.replies.size(), 1u);
  EXPECT_EQ(b.stat("read_misses"), 1u);
  // The merged sector is now valid: a second read hits.
  b.send(AccessType::Read, 0x2000);
  b.run(100);
  EXPECT_EQ(b.dram_reads(), 1u);
  EXPECT_EQ(b.stat("read_hits"), 1u);
}

TEST(L2Slice, MissesToOneSectorMerge) {
  L2Bench b;
  b.send(AccessType::Read, 0x3000, 0, 1);
  b.run(1);
  b.send(AccessType::Read, 0x3000, 0, 2);
  b.run(200);
  EXPECT_EQ(b.dram_reads(), 1u);
  EXPECT_EQ(b.replies.size(), 2u);
  EXPECT_EQ(b.stat("mshr_merges"), 1u);
  EXPECT_EQ(b.dram.seen[0].src_slice, 0u);
}

TEST(L2Slice, DirtyEvictionWritesBack) {
  L2Bench b;
  b.send(AccessType::Write, 0x0, 0x000000FF);  // partial, dirty
  b.run(1);
  for (Addr line = 1; line <= 8; ++line) {  // eight more lines evict the first (LRU)
    b.send(AccessType::Write, line * kLineBytes, kFullSectorMask);
    b.run(1);
  }
  b.run(100);
  ASSERT_EQ(b.dram.seen.size(), 1u);
  EXPECT_EQ(b.dram.seen[0].type, AccessType::Write);
  EXPECT_EQ(b.dram.seen[0].addr, 0x0u);
  EXPECT_EQ(b.dram.seen[0].byte_mask, 0xFFu);  // only the written bytes
  EXPECT_EQ(b.stat("dram_writes"), 1u);
}

TEST(L2Slice, CleanEvictionIsSilent) {
  L2Bench b;
  b.l2->warm(0, 9 * kLineBytes);  // nine clean lines through eight ways
  b.run(100);
  EXPECT_TRUE(b.dram.seen.empty());
}

TEST(L2Slice, AtomicsArePerformedHere) {
  L2Bench b;
  b.l2->warm(0x4000, 32);
  b.send(AccessType::Atomic, 0x4000, 0xF, 5);
  b.send(AccessType::Atomic, 0x4020, 0xF, 6);  // miss: fetch first
  b.run(300);
  EXPECT_EQ(b.replies.size(), 2u);
  EXPECT_EQ(b.stat("atomics"), 2u);
  EXPECT_EQ(b.dram_reads(), 1u);
}

// l2.atomic_ops_per_clk: the slice's atomic unit performs that many lane
// operations per cycle; the pipeline head waits while it is busy. Four hits
// of 8 operations each at 2 per cycle leave 4 cycles apart; with the
// default (32) they leave a cycle apart, as they arrived.
TEST(L2Slice, AtomicUnitPerformsItsOperationsPerCycle) {
  for (uint32_t rate : {2u, 32u}) {
    std::vector<std::string> sets = kTiny;
    sets.push_back("l2.atomic_ops_per_clk=" + std::to_string(rate));
    L2Bench b(sets);
    b.l2->warm(0x4000, 128);
    b.run(3);
    Cycle arrive = b.clk.now() + 1;
    for (uint32_t i = 0; i < 4; ++i) {
      MemRequest m;
      m.addr = 0x4000 + i * kSectorBytes;
      m.type = AccessType::Atomic;
      m.byte_mask = 0xFFFFFFFFu;
      m.thread_ops = 8;  // eight lanes on eight words
      b.l2->from_icnt().push(m, b.clk.tick_of(arrive));
    }
    b.run(200);
    ASSERT_EQ(b.replies.size(), 4u) << rate;
    for (uint32_t i = 0; i < 4; ++i, b.replies.pop())
      EXPECT_EQ(b.replies.next_ready(), b.clk.tick_of(arrive + 20 + i * (rate == 2 ? 4 : 1))) << rate << " " << i;
    EXPECT_EQ(b.l2->next_event(), kNever);
  }
}

TEST(L2Slice, WarmInstallsOnlyThisSlicesSectors) {
  L2Bench b({}, 5);  // QV100 defaults: 64 slices, IPOLY
  const L2AddressMap& map = b.l2->address_map();
  EXPECT_EQ(map.num_slices(), 64u);
  b.l2->warm(0, 64 * 1024);
  Addr mine = 0, other = 0;
  while (map.slice_of(mine) != 5) mine += kLineBytes;
  while (map.slice_of(other) == 5) other += kLineBytes;
  b.send(AccessType::Read, mine);
  b.run(400);
  EXPECT_EQ(b.stat("read_hits"), 1u);
  b.send(AccessType::Read, other + 128 * 1024);
  b.run(600);
  EXPECT_EQ(b.stat("read_misses"), 1u);
}

TEST(L2Slice, IpolySlicesAndSetsFillTheWholeCapacity) {
  // 6 MB of contiguous lines land exactly 768 = 32 sets x 24 ways on each slice.
  L2Bench b({}, 9);
  b.l2->warm(0, 6u << 20);
  uint32_t mine = 0;
  for (Addr a = 0; a < (6u << 20); a += kLineBytes) {
    if (b.l2->address_map().slice_of(a) != 9) continue;
    ++mine;
    b.send(AccessType::Read, a + 32);
    b.run(1);
  }
  b.run(400);
  EXPECT_EQ(mine, 768u);
  EXPECT_EQ(b.stat("read_hits"), 768u);
  EXPECT_EQ(b.stat("read_misses"), 0u);
}

}  // namespace
}  // namespace ws::timing

namespace ws::timing {
namespace {

// Cache operators at L2 (one set of eight ways, kTiny): streaming lines are
// the set's next victims; write-through stores reach DRAM at once.
TEST(L2SliceCacheOp, StreamingFillIsTheNextVictim) {
  for (ir::CacheOp op : {ir::CacheOp::Streaming, ir::CacheOp::LastUse}) {
    L2Bench b;
    for (Addr line = 1; line <= 7; ++line) {
      b.send(AccessType::Read, line * kLineBytes);
      b.run(100);
    }
    b.send(AccessType::Read, 0x1000, 0, 0, op);  // the most recent fill, but evict-first
    b.run(100);
    b.send(AccessType::Read, 0x1000, 0, 0, op);  // a streaming hit does not renew it
    b.run(100);
    EXPECT_EQ(b.stat("read_hits"), 1u);
    b.send(AccessType::Read, 0x2000);  // a new line replaces it
    b.run(100);
    size_t before = b.dram_reads();
    b.send(AccessType::Read, kLineBytes);  // the least recently used normal line is still there
    b.run(100);
    EXPECT_EQ(b.dram_reads(), before);
    b.send(AccessType::Read, 0x1000);
    b.run(100);
    EXPECT_EQ(b.dram_reads(), before + 1) << ir::cache_op_name(op);
  }
}

TEST(L2SliceCacheOp, StreamingWriteAllocatesEvictFirst) {
  L2Bench b;
  for (Addr line = 1; line <= 7; ++line) {
    b.send(AccessType::Write, line * kLineBytes, kFullSectorMask);
    b.run(2);
  }
  b.send(AccessType::Write, 0x1000, kFullSectorMask, 0, ir::CacheOp::Streaming);  // the most recent line
  b.run(2);
  b.send(AccessType::Write, 0x2000, kFullSectorMask);  // evicts the streaming line, not line 1
  b.run(100);
  ASSERT_EQ(b.dram.seen.size(), 1u);
  EXPECT_EQ(b.dram.seen[0].addr, 0x1000u);  // its dirty sector written back
}

TEST(L2SliceCacheOp, WriteThroughReachesDramAndLeavesTheSectorClean) {
  L2Bench b;
  b.send(AccessType::Write, 0x1000, kFullSectorMask, 0, ir::CacheOp::WriteThrough);
  b.run(100);
  ASSERT_EQ(b.dram.seen.size(), 1u);
  EXPECT_EQ(b.dram.seen[0].type, AccessType::Write);
  EXPECT_EQ(b.dram.seen[0].addr, 0x1000u);
  EXPECT_EQ(b.dram.seen[0].byte_mask, kFullSectorMask);
  b.send(AccessType::Read, 0x1000);  // valid in L2: a hit
  b.run(100);
  EXPECT_EQ(b.stat("read_hits"), 1u);
  for (Addr line = 1; line <= 8; ++line) {  // eviction finds it clean: no second write
    b.send(AccessType::Write, line * kLineBytes, kFullSectorMask);
    b.run(2);
  }
  b.run(100);
  EXPECT_EQ(b.dram.seen.size(), 1u);
  EXPECT_EQ(b.stat("dram_writes"), 1u);
}

}  // namespace
}  // namespace ws::timing
