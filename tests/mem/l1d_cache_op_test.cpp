// Cache operators in the L1D (docs/memory-system.md): which reads may be
// served by a present copy, which fills are kept and how long, and which
// stores leave a copy behind. The fake L2 answers after 100 cycles, an L1
// hit after 28, so where an access was served is read off its latency and
// off the requests the fake L2 saw.
#include <gtest/gtest.h>

#include "mem/l1_bench.h"

namespace ws::timing {
namespace {

using ir::CacheOp;
using test::L1Bench;

// Reads one sector after the previous access finished; returns its latency.
Cycle read_latency(L1Bench& b, Addr line, uint32_t token, CacheOp op, bool local = false) {
  b.to_cycle(b.core.now() + 1);
  Cycle start = b.core.now();
  b.access(AccessType::Read, line, 0x1, token, 0, op, local);
  return b.wait_done(token) - start;
}

TEST(L1DCacheOp, CacheGlobalReadsThroughL2AndKeepsNothing) {
  L1Bench b;
  b.to_cycle(1);
  EXPECT_GT(read_latency(b, 0x1000, 1, CacheOp::Default), 100u);  // cold: filled into the L1
  EXPECT_EQ(read_latency(b, 0x1000, 2, CacheOp::Default), 28u);
  // The copy is valid, but .cg does not use it: another trip to L2.
  EXPECT_GT(read_latency(b, 0x1000, 3, CacheOp::CacheGlobal), 100u);
  EXPECT_EQ(b.mem.seen.size(), 2u);
  EXPECT_EQ(b.mem.seen[1].cache_op, CacheOp::CacheGlobal);  // L2 is told
  EXPECT_EQ(b.stat("bypass_reads"), 1u);
  // ... nor drops it (the L2 copy it read is the same data).
  EXPECT_EQ(read_latency(b, 0x1000, 4, CacheOp::Default), 28u);
  // A .cg miss allocates nothing: a default read of that sector still misses.
  EXPECT_GT(read_latency(b, 0x2000, 5, CacheOp::CacheGlobal), 100u);
  EXPECT_GT(read_latency(b, 0x2000, 6, CacheOp::Default), 100u);
  EXPECT_EQ(b.stat("read_hits"), 2u);
}

// A .cg read has no line to wait on, so it does not merge into a fetch of
// its sector in flight, nor does a later read merge into its fetch: each
// goes to the L2 (a loop re-reading one address with .cg pays the L2 each
// time, as the public L2-bandwidth benchmarks assume).
TEST(L1DCacheOp, CacheGlobalReadsNeitherMergeNorTakeMerges) {
  for (CacheOp first : {CacheOp::Default, CacheOp::CacheGlobal}) {
    L1Bench b;
    b.to_cycle(1);
    b.access(AccessType::Read, 0x3000, 0x1, 1, 0, first);
    b.to_cycle(2);
    b.access(AccessType::Read, 0x3000, 0x1, 2, 0, CacheOp::CacheGlobal);
    b.to_cycle(3);
    b.access(AccessType::Read, 0x3000, 0x1, 3, 0, CacheOp::CacheGlobal);
    for (uint32_t t : {1u, 2u, 3u}) EXPECT_NE(b.wait_done(t), ~Cycle{0});
    EXPECT_EQ(b.mem.seen.size(), 3u);
    EXPECT_EQ(b.stat("mshr_merges"), 0u);
  }
  // A default read after a .cg one in flight fetches (and keeps) its own copy.
  L1Bench b;
  b.to_cycle(1);
  b.access(AccessType::Read, 0x3000, 0x1, 1, 0, CacheOp::CacheGlobal);
  b.to_cycle(2);
  b.access(AccessType::Read, 0x3000, 0x1, 2);
  EXPECT_NE(b.wait_done(2), ~Cycle{0});
  EXPECT_EQ(b.mem.seen.size(), 2u);
  EXPECT_EQ(read_latency(b, 0x3000, 3, CacheOp::Default), 28u);
}

TEST(L1DCacheOp, VolatileReadDropsTheStaleCopy) {
  L1Bench b;
  b.to_cycle(1);
  read_latency(b, 0x1000, 1, CacheOp::Default);
  EXPECT_GT(read_latency(b, 0x1000, 2, CacheOp::Volatile), 100u);
  EXPECT_GT(read_latency(b, 0x1000, 3, CacheOp::Default), 100u);  // the copy was dropped
  EXPECT_EQ(b.mem.seen.size(), 3u);
}

TEST(L1DCacheOp, CacheAllAndNonCoherentAreCachedLikeDefault) {
  L1Bench b;
  b.to_cycle(1);
  read_latency(b, 0x1000, 1, CacheOp::CacheAll);
  EXPECT_EQ(read_latency(b, 0x1000, 2, CacheOp::NonCoherent), 28u);
  EXPECT_EQ(read_latency(b, 0x1000, 3, CacheOp::Default), 28u);
}

TEST(L1DCacheOp, WithoutGlobalCachingOnlyTheReadOnlyPathUsesTheL1) {
  L1Bench b({"l1d.cache_global=false"});
  b.to_cycle(1);
  read_latency(b, 0x1000, 1, CacheOp::Default);
  EXPECT_GT(read_latency(b, 0x1000, 2, CacheOp::Default), 100u);
  EXPECT_GT(read_latency(b, 0x1000, 3, CacheOp::CacheAll), 100u);
  read_latency(b, 0x3000, 4, CacheOp::NonCoherent);
  EXPECT_EQ(read_latency(b, 0x3000, 5, CacheOp::NonCoherent), 28u);
  // Local memory is still cached.
  read_latency(b, 0x5000, 6, CacheOp::Default, true);
  EXPECT_EQ(read_latency(b, 0x5000, 7, CacheOp::Default, true), 28u);
  EXPECT_EQ(b.stat("bypass_reads"), 3u);
}

// One set of eight ways: seven normal lines, then a streaming one (the most
// recent). The next miss evicts the streaming line, not the LRU one.
TEST(L1DCacheOp, StreamingLinesAreTheNextVictims) {
  for (CacheOp op : {CacheOp::Streaming, CacheOp::LastUse}) {
    L1Bench b({"l1d.size_kb=1", "l1d.sets=1"});
    b.to_cycle(1);
    uint32_t token = 1;
    for (Addr line = 1; line <= 7; ++line) read_latency(b, line * 0x80, token++, CacheOp::Default);
    read_latency(b, 0x1000, token++, op);
    EXPECT_EQ(b.mem.seen.back().cache_op, op);
    EXPECT_EQ(read_latency(b, 0x1000, token++, op), 28u) << "cached until replaced";
    read_latency(b, 0x2000, token++, CacheOp::Default);  // the set is full: one line goes
    EXPECT_EQ(read_latency(b, 0x80, token++, CacheOp::Default), 28u) << "the LRU normal line stayed";
    EXPECT_GT(read_latency(b, 0x1000, token++, CacheOp::Default), 100u) << "the streaming line went";
  }
}

// Normal replacement for comparison: the same sequence evicts the LRU line.
TEST(L1DCacheOp, DefaultLinesFollowLru) {
  L1Bench b({"l1d.size_kb=1", "l1d.sets=1"});
  b.to_cycle(1);
  uint32_t token = 1;
  for (Addr line = 1; line <= 7; ++line) read_latency(b, line * 0x80, token++, CacheOp::Default);
  read_latency(b, 0x1000, token++, CacheOp::Default);
  read_latency(b, 0x2000, token++, CacheOp::Default);
  EXPECT_EQ(read_latency(b, 0x1000, token++, CacheOp::Default), 28u);
  EXPECT_GT(read_latency(b, 0x80, token++, CacheOp::Default), 100u);
}

void store(L1Bench& b, Addr line, CacheOp op) {
  b.to_cycle(b.core.now() + 1);
  b.access(AccessType::Write, line, 0x1, 0, 0xffffffffu, op);
  b.drv.run_until(b.core.tick_of(b.core.now() + 2));
}

TEST(L1DCacheOp, L2OnlyStoresLeaveNoCopy) {
  for (CacheOp op : {CacheOp::CacheGlobal, CacheOp::Volatile, CacheOp::WriteThrough}) {
    L1Bench b;  // write-allocate: a default full-sector store installs the sector
    b.to_cycle(1);
    store(b, 0x1000, CacheOp::Default);
    EXPECT_EQ(read_latency(b, 0x1000, 1, CacheOp::Default), 28u);
    store(b, 0x1000, op);  // drops the present copy
    EXPECT_GT(read_latency(b, 0x1000, 2, CacheOp::Default), 100u) << ir::cache_op_name(op);
    store(b, 0x3000, op);  // and allocates nothing on a miss
    EXPECT_GT(read_latency(b, 0x3000, 3, CacheOp::Default), 100u) << ir::cache_op_name(op);
    ASSERT_EQ(b.mem.seen[1].type, AccessType::Write);
    EXPECT_EQ(b.mem.seen[1].cache_op, op);  // the store reaches L2 with its operator
  }
}

TEST(L1DCacheOp, LastUseOfALocalLineDropsItWithoutWriteBack) {
  L1Bench b;
  b.to_cycle(1);
  b.access(AccessType::Write, 0x4000, 0x1, 0, 0xffffffffu, CacheOp::Default, true);  // dirty, L1 only
  EXPECT_EQ(read_latency(b, 0x4000, 1, CacheOp::LastUse, true), 28u);
  EXPECT_TRUE(b.mem.seen.empty());
  EXPECT_GT(read_latency(b, 0x4000, 2, CacheOp::Default, true), 100u) << "dropped after its last use";
  ASSERT_EQ(b.mem.seen.size(), 1u);
  EXPECT_EQ(b.mem.seen[0].type, AccessType::Read);  // never written back
  EXPECT_EQ(b.stat("local_writebacks"), 0u);
}

}  // namespace
}  // namespace ws::timing
