#include "timing/core/const_cache.h"

#include <gtest/gtest.h>

#include <array>

#include "common/error.h"

namespace ws::timing {
namespace {

struct ConstBench {
  config::Config cfg;
  stats::Registry reg;
  std::unique_ptr<ConstCache> cc;
  explicit ConstBench(std::vector<std::string> sets = {}) {
    cfg.set_assignment("core.const_latency=8");
    cfg.set_assignment("l1c.miss_latency=200");
    for (auto& s : sets) cfg.set_assignment(s);
    cc = std::make_unique<ConstCache>(cfg, stats::Scope(reg, "sm.0.l1c"));
  }
  uint64_t stat(const std::string& leaf) const { return reg.sum("sm.0.l1c." + leaf); }
};

std::array<Addr, 32> same(Addr a) {
  std::array<Addr, 32> x;
  x.fill(a);
  return x;
}

TEST(ConstCache, BroadcastMissThenHit) {
  ConstBench b;
  auto addrs = same(0x1000);
  EXPECT_EQ(b.cc->load(addrs.data(), ~0u, 10), 10u + 200);
  EXPECT_EQ(b.cc->load(addrs.data(), ~0u, 300), 300u + 8);
  EXPECT_EQ(b.stat("addresses"), 2u);  // one per load: all lanes share it
  EXPECT_EQ(b.stat("misses"), 1u);
  EXPECT_EQ(b.stat("hits"), 1u);
}

// Distinct addresses serialise on the port, one per cycle, even within a line.
TEST(ConstCache, DistinctAddressesSerialise) {
  ConstBench b;
  auto warm = same(0x2000);
  b.cc->load(warm.data(), ~0u, 0);
  std::array<Addr, 32> four{};
  for (uint32_t lane = 0; lane < 32; ++lane) four[lane] = 0x2000 + 4 * (lane % 4);
  Cycle now = 500;
  EXPECT_EQ(b.cc->load(four.data(), ~0u, now), now + 3 + 8);
  // The next warp's load waits for the port.
  EXPECT_EQ(b.cc->load(warm.data(), ~0u, now + 1), now + 4 + 8);
  // Inactive lanes do not count.
  EXPECT_EQ(b.cc->load(four.data(), 0x1u, now + 100), now + 100 + 8);
}

TEST(ConstCache, MissesToOneLineMerge) {
  ConstBench b;
  auto a = same(0x3000), c = same(0x3004);  // one 64 B line
  EXPECT_EQ(b.cc->load(a.data(), ~0u, 0), 200u);
  EXPECT_EQ(b.cc->load(c.data(), ~0u, 50), 200u);
  auto d = same(0x3040);  // the next line
  EXPECT_EQ(b.cc->load(d.data(), ~0u, 60), 260u);
}

TEST(ConstCache, PerfectAndAddresslessLoadsTakeTheHitLatency) {
  ConstBench perfect({"l1c.perfect=true"});
  std::array<Addr, 32> spread{};
  for (uint32_t lane = 0; lane < 32; ++lane) spread[lane] = 0x4000 + 256 * lane;
  EXPECT_EQ(perfect.cc->load(spread.data(), ~0u, 7), 15u);
  ConstBench modelled;
  EXPECT_EQ(modelled.cc->load(nullptr, ~0u, 7), 15u);
  EXPECT_EQ(modelled.cc->load(spread.data(), ~0u, 7), 7u + 31 + 200);
}

TEST(ConstCache, FlushEmptiesIt) {
  ConstBench b;
  auto a = same(0x5000);
  b.cc->load(a.data(), ~0u, 0);
  EXPECT_EQ(b.cc->load(a.data(), ~0u, 400), 408u);
  b.cc->flush();
  EXPECT_EQ(b.cc->load(a.data(), ~0u, 500), 700u);
}

TEST(ConstCache, CapacityEvicts) {
  ConstBench b({"l1c.size_kb=1", "l1c.ways=1"});  // 16 direct-mapped 64 B lines
  auto a = same(0x0), conflict = same(0x400);      // 1 KB apart: same set
  b.cc->load(a.data(), ~0u, 0);
  b.cc->load(a.data(), ~0u, 300);  // installs it
  b.cc->load(conflict.data(), ~0u, 301);
  b.cc->load(conflict.data(), ~0u, 600);  // installs it, evicting the first
  EXPECT_EQ(b.cc->load(a.data(), ~0u, 700), 900u);
}

TEST(ConstCache, InvalidShapeNamesTheParameter) {
  auto build = [](const std::string& set) {
    config::Config cfg;
    cfg.set_assignment(set);
    stats::Registry reg;
    ConstCache cc(cfg, stats::Scope(reg, "l1c"));
  };
  try {
    build("l1c.line_bytes=48");
    FAIL();
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("l1c.line_bytes"), std::string::npos) << e.what();
  }
  try {
    build("l1c.ways=3");
    FAIL();
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("l1c.ways"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace ws::timing
