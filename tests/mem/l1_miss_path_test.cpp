// The L1's miss path: read misses and store sectors queued apart, the
// arbiter between them, same-sector order, and what that does to a load
// queued behind a burst of stores (L1D with a fake L2).
#include "timing/mem/l1_miss_path.h"

#include <gtest/gtest.h>

#include "common/error.h"
#include "mem/l1_bench.h"

namespace ws::timing {
namespace {

using test::L1Bench;

MemRequest msg(AccessType type, Addr sector) {
  MemRequest r;
  r.type = type;
  r.addr = sector;
  return r;
}

config::Config with(std::vector<std::string> sets) {
  config::Config cfg;
  for (auto& s : sets) cfg.set_assignment(s);
  return cfg;
}

// Takes every queued message in the arbiter's order.
std::vector<MemRequest> drain(L1MissPath& p) {
  std::vector<MemRequest> out;
  while (!p.empty()) {
    out.push_back(p.front());
    p.pop();
  }
  return out;
}

TEST(L1MissPath, RoundRobinAlternatesReadsAndStores) {
  L1MissPath p(with({}));
  for (Addr s = 0; s < 3; ++s) p.push(msg(AccessType::Write, 0x1000 + s * 32));
  p.push(msg(AccessType::Read, 0x2000));
  p.push(msg(AccessType::Read, 0x2020));
  auto out = drain(p);
  ASSERT_EQ(out.size(), 5u);
  // The first read does not wait for the three stores queued before it.
  EXPECT_EQ(out[0].type, AccessType::Read);
  EXPECT_EQ(out[1].type, AccessType::Write);
  EXPECT_EQ(out[2].type, AccessType::Read);
  EXPECT_EQ(out[3].type, AccessType::Write);
  EXPECT_EQ(out[4].type, AccessType::Write);
}

TEST(L1MissPath, ReadOfAQueuedStoreSectorLeavesAfterTheStore) {
  L1MissPath p(with({}));
  p.push(msg(AccessType::Write, 0x1000));
  p.push(msg(AccessType::Write, 0x3000));  // the sector the read wants
  p.push(msg(AccessType::Read, 0x3000));
  auto out = drain(p);
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out[0].addr, 0x1000u);
  EXPECT_EQ(out[1].addr, 0x3000u);
  EXPECT_EQ(out[1].type, AccessType::Write);
  EXPECT_EQ(out[2].type, AccessType::Read);
}

TEST(L1MissPath, FifoKeepsArrivalOrderAndSharesOneLimit) {
  L1MissPath p(with({"l1d.miss_path_arbiter=fifo", "l1d.miss_queue=3"}));
  p.push(msg(AccessType::Write, 0x1000));
  p.push(msg(AccessType::Write, 0x1020));
  EXPECT_TRUE(p.read_room());
  p.push(msg(AccessType::Read, 0x2000));
  EXPECT_FALSE(p.read_room());
  EXPECT_FALSE(p.write_room());  // stores count against the same queue
  auto out = drain(p);
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out[2].type, AccessType::Read);
}

TEST(L1MissPath, SeparateLimitsForReadsAndStores) {
  L1MissPath p(with({"l1d.miss_queue=2", "l1d.write_buffer=3"}));
  for (Addr s = 0; s < 3; ++s) p.push(msg(AccessType::Write, s * 32));
  EXPECT_FALSE(p.write_room());
  EXPECT_TRUE(p.read_room(2));  // stores do not take read slots
  EXPECT_FALSE(p.read_room(3));
}

TEST(L1MissPath, UnknownArbiterIsNamed) {
  try {
    L1MissPath p(with({"l1d.miss_path_arbiter=lifo"}));
    FAIL() << "expected a ConfigError";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("l1d.miss_path_arbiter"), std::string::npos);
  }
}

// A warp's 128 B store is one message of four sectors, which holds the L1's
// wire into the crossbar four cycles (a flit each): 32 warps' stores (128
// sectors) take 128 cycles to leave. A load miss behind them is sent after
// at most the store it alternates with under the round-robin arbiter, and
// only after the stores it queued behind with fifo. Returns the store
// sectors sent before the load.
Cycle load_send_cycle(const std::string& arbiter) {
  L1Bench b({"l1d.miss_path_arbiter=" + arbiter, "l1d.write_buffer=16", "l1d.miss_queue=16"});
  b.mem.out = nullptr;  // the L2 never answers: only the order of sending matters
  Cycle c = 1;
  for (uint32_t w = 0; w < 4; ++w) {  // four full-line stores: 16 sectors fill the write buffer
    b.to_cycle(c++);
    b.access(AccessType::Write, 0x10000 + w * 128, 0xF, 0, 0xFFFFFFFF);
  }
  b.to_cycle(c);
  b.access(AccessType::Read, 0x80000, 0x1, 1);
  Cycle accepted = b.core.now();
  b.to_cycle(accepted + 40);
  Cycle sectors = 0;
  for (const MemRequest& r : b.mem.seen) {
    if (r.type == AccessType::Read) return sectors;
    sectors += r.sector_count();
  }
  return ~Cycle{0};
}

TEST(L1MissPath, LoadMissIsNotQueuedBehindAStoreBurst) {
  // With fifo it leaves after the 16 store sectors queued before it (some
  // already sent); with round robin after at most the one store it alternates with.
  EXPECT_GE(load_send_cycle("fifo"), 12u);
  EXPECT_LE(load_send_cycle("round-robin"), 8u);
}

// A load of a sector whose partial store is still queued: the sector is not
// valid in the L1 (only fully written sectors are installed), so the load
// goes to the L2, and it must not get there before the store.
TEST(L1MissPath, LoadOfAPartlyStoredSectorLeavesAfterTheStore) {
  L1Bench b({"l1d.write_buffer=16"});
  b.to_cycle(1);
  b.access(AccessType::Write, 0x40000, 0xF, 0, 0xFFFFFFFF);
  b.to_cycle(2);
  b.access(AccessType::Write, 0x40080, 0xF, 0, 0xFFFFFFFF);
  b.to_cycle(3);
  b.access(AccessType::Write, 0x50000, 0x1, 0, 0x0000000F);  // 4 B of one sector
  b.to_cycle(4);
  b.access(AccessType::Read, 0x50000, 0x1, 1);
  ASSERT_NE(b.wait_done(1), ~Cycle{0});
  size_t store_at = SIZE_MAX, load_at = SIZE_MAX;
  for (size_t i = 0; i < b.mem.seen.size(); ++i) {
    if (b.mem.seen[i].addr != 0x50000) continue;
    (b.mem.seen[i].type == AccessType::Write ? store_at : load_at) = i;
  }
  ASSERT_NE(load_at, SIZE_MAX);  // the read went to the L2
  EXPECT_LT(store_at, load_at);
  EXPECT_EQ(b.stat("read_misses"), 1u);
}

// Store throughput: a sector's flit per cycle whatever the bytes written, so
// a full 128 B line (one message of 4 flits with 40 B flits) is 4 cycles and
// 32 B of data per cycle leave the L1.
TEST(L1MissPath, StoresLeaveOneSectorPerCycle) {
  L1Bench b;
  Cycle c = 1;
  for (uint32_t w = 0; w < 16; ++w) {
    while (true) {
      b.to_cycle(c++);
      if (b.l1->can_accept()) break;
    }
    b.access(AccessType::Write, 0x20000 + w * 128, 0xF, 0, 0xFFFFFFFF);
  }
  Cycle start = 1;
  b.drv.run_while_not([&] { return b.mem.sectors_seen() == 64; }, 1000 * test::kPs);
  Cycle took = b.core.now() - start;
  EXPECT_EQ(b.mem.seen.size(), 16u);
  EXPECT_GE(took, 60u);  // 64 sectors, one per cycle: the last message starts 60 cycles after the first
  EXPECT_LE(took, 66u);
  EXPECT_GT(b.stat("stall_cycles_write_buffer"), 0u);  // the 8-sector buffer filled
}

}  // namespace
}  // namespace ws::timing
