// The constant cache alone, with a fake L2 that answers every request a fixed
// number of cycles after it is sent.
#include "timing/core/const_cache.h"

#include <gtest/gtest.h>

#include <array>
#include <deque>
#include <map>

#include "common/error.h"
#include "ir/param_bank.h"

namespace ws::timing {
namespace {

// Stands in for the SM that ticks the cache (it only needs to be wakeable).
class Owner : public Clocked {
 public:
  void tick() override {}
  Tick next_event() const override { return kNever; }
};

constexpr Cycle kL2 = 100;  // the fake L2's latency
constexpr Cycle kHit = 8;   // core.const_latency
// A 64 B line: one request for its two sectors, the L2's latency, the reply
// seen a cycle after it is sent, then the hit latency.
constexpr Cycle kMissLatency = kL2 + 1 + kHit;

struct ConstBench {
  config::Config cfg;
  stats::Registry reg;
  ClockDomain clk{"core", ClockPeriod{1000}};
  Owner owner;
  Port<MemRequest> to_l2{1 << 16};
  std::unique_ptr<ConstCache> cc;
  std::deque<std::pair<Cycle, MemRequest>> l2_pending;
  std::vector<MemRequest> l2_reads;
  uint32_t sectors_read() const {
    uint32_t n = 0;
    for (const MemRequest& r : l2_reads) n += r.sector_count();
    return n;
  }
  std::map<uint32_t, Cycle> done;
  uint32_t next_token = 0;
  Cycle now = 0;

  explicit ConstBench(std::vector<std::string> sets = {}) {
    cfg.set_assignment("core.const_latency=8");
    for (auto& s : sets) cfg.set_assignment(s);
    cc = std::make_unique<ConstCache>(cfg, stats::Scope(reg, "sm.0.l1c"), clk, 0);
    cc->connect(&to_l2, &owner);
  }
  uint64_t stat(const std::string& leaf) const { return reg.sum("sm.0.l1c." + leaf); }
  // One cycle: the cache ticks, the fake L2 takes what was sent and answers
  // what is due.
  void step() {
    clk.set_now(now);
    cc->tick(now);
    for (const ConstCache::Done& d : cc->done()) done[d.token] = d.ready;
    cc->done().clear();
    while (to_l2.ready(clk.now_tick())) {
      l2_reads.push_back(to_l2.front());
      l2_pending.emplace_back(now + kL2, to_l2.front());
      to_l2.pop();
    }
    while (!l2_pending.empty() && l2_pending.front().first <= now) {
      MemRequest r = l2_pending.front().second;
      r.is_reply = true;
      cc->from_l2().push(r, clk.tick_of(now + 1));
      l2_pending.pop_front();
    }
    ++now;
  }
  void run_to(Cycle c) {
    while (now < c) step();
  }
  // Issues a load at the current cycle: its token.
  uint32_t issue(const std::array<Addr, 32>& a, uint32_t mask, Cycle& ready) {
    clk.set_now(now);
    uint32_t token = next_token++;
    ready = cc->load(a.data(), mask, now, token);
    return token;
  }
  // Issues a load and runs until its data is ready; its ready cycle.
  Cycle load(const std::array<Addr, 32>& a, uint32_t mask = ~0u) {
    Cycle ready;
    uint32_t token = issue(a, mask, ready);
    return ready == ConstCache::kWaiting ? wait(token) : ready;
  }
  Cycle wait(uint32_t token) {
    while (!done.count(token)) step();
    return done[token];
  }
};

std::array<Addr, 32> same(Addr a) {
  std::array<Addr, 32> x;
  x.fill(a);
  return x;
}

TEST(ConstCache, MissReadsTheLineFromTheL2ThenHits) {
  ConstBench b;
  auto addrs = same(0x1010);
  EXPECT_EQ(b.load(addrs), kMissLatency);
  ASSERT_EQ(b.l2_reads.size(), 1u);  // one request for the 64 B line's two sectors
  EXPECT_EQ(b.l2_reads[0].addr, 0x1000u);
  EXPECT_EQ(b.l2_reads[0].sector_bits(), 0x3u);
  for (const MemRequest& r : b.l2_reads) {
    EXPECT_EQ(r.client, MemClient::Const);
    EXPECT_EQ(r.type, AccessType::Read);
  }
  b.run_to(300);
  EXPECT_EQ(b.load(addrs), 300u + kHit);
  EXPECT_EQ(b.sectors_read(), 2u);
  EXPECT_EQ(b.stat("addresses"), 2u);  // one per load: all lanes share it
  EXPECT_EQ(b.stat("misses"), 1u);
  EXPECT_EQ(b.stat("hits"), 1u);
  EXPECT_EQ(b.stat("fills"), 1u);
  EXPECT_EQ(b.stat("sectors"), 2u);
}

// l1c.bank_latency: a line of the launch's parameter bank is served after
// that latency (then the hit latency) without L2 traffic; other lines still
// go to the L2. 0 sends bank lines to the L2 too. (The other tests read
// ordinary addresses: the default bank latency does not touch them.)
TEST(ConstCache, ParamBankLinesComeFromTheBankLevel) {
  ConstBench b({"l1c.bank_latency=40"});
  Addr bank = ir::kParamBankBase + 0x210;
  EXPECT_EQ(b.load(same(bank)), 40u + kHit);
  EXPECT_TRUE(b.l2_reads.empty());
  EXPECT_EQ(b.stat("fills"), 1u);
  EXPECT_EQ(b.stat("sectors"), 0u);  // none from the L2
  Cycle at = b.now;
  EXPECT_EQ(b.load(same(bank + 8)), at + kHit);  // same line: a hit
  at = b.now;
  EXPECT_EQ(b.load(same(0x1010)), at + kMissLatency);  // data: from the L2
  EXPECT_EQ(b.l2_reads.size(), 1u);

  ConstBench l2({"l1c.bank_latency=0"});
  EXPECT_EQ(l2.load(same(bank)), kMissLatency);
  EXPECT_EQ(l2.l2_reads.size(), 1u);
}

// Distinct addresses serialise on the port, one per cycle, even within a line.
TEST(ConstCache, DistinctAddressesSerialise) {
  ConstBench b;
  auto warm = same(0x2000);
  b.load(warm);
  b.run_to(500);
  std::array<Addr, 32> four{};
  for (uint32_t lane = 0; lane < 32; ++lane) four[lane] = 0x2000 + 4 * (lane % 4);
  Cycle ready;
  b.issue(four, ~0u, ready);
  EXPECT_EQ(ready, 500u + 3 + kHit);
  b.step();
  // The next warp's load waits for the port.
  b.issue(warm, ~0u, ready);
  EXPECT_EQ(ready, 501u + 3 + kHit);
  b.run_to(600);
  // Inactive lanes do not count.
  b.issue(four, 0x1u, ready);
  EXPECT_EQ(ready, 600u + kHit);
  EXPECT_EQ(b.sectors_read(), 2u);
}

TEST(ConstCache, MissesToOneLineMerge) {
  ConstBench b;
  auto a = same(0x3000), c = same(0x3004), d = same(0x3040);  // a, c: one 64 B line; d: the next
  Cycle ra, rc, rd;
  uint32_t ta = b.issue(a, ~0u, ra);
  b.run_to(50);
  uint32_t tc = b.issue(c, ~0u, rc);
  b.run_to(60);
  uint32_t td = b.issue(d, ~0u, rd);
  EXPECT_EQ(ra, ConstCache::kWaiting);
  EXPECT_EQ(rc, ConstCache::kWaiting);
  EXPECT_EQ(b.wait(ta), kMissLatency);
  EXPECT_EQ(b.wait(tc), kMissLatency);  // joined the read under way
  EXPECT_EQ(b.wait(td), 60u + kMissLatency);
  EXPECT_EQ(b.l2_reads.size(), 2u);  // two lines
  EXPECT_EQ(b.sectors_read(), 4u);
  EXPECT_EQ(b.stat("misses"), 3u);
  EXPECT_EQ(b.stat("fills"), 2u);
}

// A load touching two missing lines is done when the later one arrives.
TEST(ConstCache, LoadWaitsForItsLastLine) {
  ConstBench b;
  std::array<Addr, 32> two{};
  for (uint32_t lane = 0; lane < 32; ++lane) two[lane] = lane < 16 ? 0x6000 : 0x6100;
  // The second line's request goes out a cycle after the first's.
  EXPECT_EQ(b.load(two), 1 + kMissLatency);
  EXPECT_EQ(b.stat("fills"), 2u);
  EXPECT_EQ(b.stat("addresses"), 2u);
}

TEST(ConstCache, PerfectAndAddresslessLoadsTakeTheHitLatencyWithoutTraffic) {
  ConstBench perfect({"l1c.perfect=true"});
  std::array<Addr, 32> spread{};
  for (uint32_t lane = 0; lane < 32; ++lane) spread[lane] = 0x4000 + 256 * lane;
  perfect.run_to(7);
  EXPECT_EQ(perfect.load(spread), 7u + kHit);
  perfect.run_to(300);
  EXPECT_TRUE(perfect.l2_reads.empty());
  ConstBench modelled;
  modelled.run_to(7);
  Cycle ready = modelled.cc->load(nullptr, ~0u, 7, 0);
  EXPECT_EQ(ready, 7u + kHit);
  // 32 lines: a request each, one per cycle; the last leaves at cycle 7 + 31.
  EXPECT_EQ(modelled.load(spread), 7u + 31 + kMissLatency);
  EXPECT_EQ(modelled.l2_reads.size(), 32u);
  EXPECT_EQ(modelled.sectors_read(), 64u);
}

TEST(ConstCache, FlushEmptiesIt) {
  ConstBench b;
  auto a = same(0x5000);
  b.load(a);
  b.run_to(400);
  EXPECT_EQ(b.load(a), 400u + kHit);
  b.cc->flush();
  b.run_to(500);
  EXPECT_EQ(b.load(a), 500u + kMissLatency);
}

TEST(ConstCache, CapacityEvicts) {
  ConstBench b({"l1c.size_kb=1", "l1c.ways=1"});  // 16 direct-mapped 64 B lines
  auto a = same(0x0), conflict = same(0x400);      // 1 KB apart: same set
  b.load(a);
  b.load(conflict);  // evicts the first
  b.run_to(700);
  EXPECT_EQ(b.load(a), 700u + kMissLatency);
  EXPECT_EQ(b.stat("fills"), 3u);
}

TEST(ConstCache, InvalidShapeNamesTheParameter) {
  auto build = [](const std::string& set) {
    config::Config cfg;
    cfg.set_assignment(set);
    stats::Registry reg;
    ClockDomain clk{"core", ClockPeriod{1000}};
    ConstCache cc(cfg, stats::Scope(reg, "l1c"), clk, 0);
  };
  for (const char* bad : {"l1c.line_bytes=48", "l1c.line_bytes=16", "l1c.ways=3"}) {
    std::string name = std::string(bad).substr(0, std::string(bad).find('='));
    try {
      build(bad);
      FAIL() << bad;
    } catch (const ConfigError& e) {
      EXPECT_NE(std::string(e.what()).find(name), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace ws::timing
