// The whole memory path with QV100 defaults, wired by hand: L1 -> request
// crossbar -> L2 slices -> DRAM channels -> L2 -> reply crossbar -> L1.
#include <gtest/gtest.h>

#include "mem/test_driver.h"
#include "timing/dram/dram_channel.h"
#include "timing/mem/l1d.h"
#include "timing/mem/l2_slice.h"
#include "timing/noc/crossbar.h"

namespace ws::timing {
namespace {

struct MemSystem {
  config::Config cfg;
  stats::Registry reg;
  ClockDomain core{"core", ClockPeriod::from_mhz(1132)};
  ClockDomain icnt{"icnt", ClockPeriod::from_mhz(1132)};
  ClockDomain l2clk{"l2", ClockPeriod::from_mhz(1132)};
  ClockDomain dram{"dram", ClockPeriod::from_mhz(850)};
  L2AddressMap map{cfg};
  std::vector<std::unique_ptr<L1D>> l1s;
  std::unique_ptr<Crossbar> req, rep;
  std::vector<std::unique_ptr<L2Slice>> slices;
  std::vector<std::unique_ptr<DramChannel>> channels;
  test::TestDriver drv;

  explicit MemSystem(uint32_t sms) {
    stats::Scope root(reg, "");
    uint32_t n = map.num_slices();
    req = std::make_unique<Crossbar>(cfg, root.sub("icnt.req"), icnt, sms, n,
                                     [this](const MemRequest& m) { return map.slice_of(m.addr); });
    rep = std::make_unique<Crossbar>(cfg, root.sub("icnt.reply"), icnt, n, sms,
                                     [](const MemRequest& m) { return uint32_t{m.src_sm}; });
    for (uint32_t c = 0; c < n / map.slices_per_channel(); ++c)
      channels.push_back(std::make_unique<DramChannel>(cfg, root.sub("dram." + std::to_string(c)), dram, c));
    for (uint16_t s = 0; s < n; ++s) {
      slices.push_back(std::make_unique<L2Slice>(cfg, root.sub("l2." + std::to_string(s)), l2clk, s));
      slices[s]->connect_reply(&rep->input(s));
      DramChannel& ch = *channels[map.channel_of_slice(s)];
      slices[s]->connect_dram(&ch.from_l2());
      ch.connect_reply(s, &slices[s]->from_dram());
      req->connect_output(s, &slices[s]->from_icnt());
    }
    for (uint16_t i = 0; i < sms; ++i) {
      l1s.push_back(std::make_unique<L1D>(cfg, root.sub("sm." + std::to_string(i) + ".l1d"), core, i));
      l1s[i]->connect(&req->input(i));
      rep->connect_output(i, &l1s[i]->from_icnt());
      drv.add(core, *l1s[i]);
    }
    drv.add(icnt, *req);
    drv.add(icnt, *rep);
    for (auto& s : slices) drv.add(l2clk, *s);
    for (auto& c : channels) drv.add(dram, *c);
  }

  // Core cycles from accepting a one-sector load to its completion.
  Cycle load_latency(uint32_t sm, Addr a, uint32_t token) {
    drv.run_until(core.tick_of(core.now() + 1));
    Cycle start = core.now();
    L1Access acc;
    acc.line_addr = line_of(a);
    acc.sector_mask = static_cast<uint8_t>(1u << sector_in_line(a));
    acc.token = token;
    l1s[sm]->accept(acc);
    Port<uint32_t>& done = l1s[sm]->done();
    bool ok = drv.run_while_not([&] { return done.ready(drv.now() - 1); }, core.tick_of(5000));
    EXPECT_TRUE(ok);
    done.pop();
    return core.now() - start;
  }
  bool idle() const {
    for (auto& l : l1s)
      if (l->next_event() != kNever) return false;
    for (auto& s : slices)
      if (s->next_event() != kNever) return false;
    for (auto& c : channels)
      if (c->next_event() != kNever) return false;
    return req->next_event() == kNever && rep->next_event() == kNever;
  }
};

TEST(MemSystem, Qv100L2HitAndDramRoundTrips) {
  MemSystem m(2);
  Addr warm = 0x100000;
  for (auto& s : m.slices) s->warm(warm, 4096);
  Cycle l2_hit = m.load_latency(0, warm + 64, 1);
  EXPECT_GE(l2_hit, 205u);
  EXPECT_LE(l2_hit, 220u);
  Cycle dram_miss = m.load_latency(1, 0x900000, 2);
  EXPECT_GT(dram_miss, l2_hit + 100);
  EXPECT_LT(dram_miss, l2_hit + 250);
  Cycle l1_hit = m.load_latency(1, 0x900000, 3);
  EXPECT_EQ(l1_hit, 28u);
  m.drv.run_until(m.core.tick_of(m.core.now() + 10));
  EXPECT_TRUE(m.idle());
  std::cout << "[ latency  ] L2 hit " << l2_hit << ", DRAM " << dram_miss << " core cycles\n";
}

// Mixed loads and stores from two SMs; returns the cycle the system went idle.
Cycle run_stream(MemSystem& m) {
  uint32_t token = 0;
  Addr base = 0x4000000;
  for (uint32_t i = 0; i < 256; ++i) {
    for (uint32_t sm = 0; sm < 2; ++sm) {
      while (!m.l1s[sm]->can_accept()) m.drv.run_until(m.core.tick_of(m.core.now() + 1));
      L1Access a;
      a.line_addr = base + (uint64_t{i} * 2 + sm) * kLineBytes;
      a.sector_mask = 0xF;
      a.type = i % 4 == 3 ? AccessType::Write : AccessType::Read;
      a.byte_masks = {kFullSectorMask, kFullSectorMask, kFullSectorMask, kFullSectorMask};
      a.token = token++;
      m.l1s[sm]->accept(a);
    }
    m.drv.run_until(m.core.tick_of(m.core.now() + 1));
  }
  EXPECT_TRUE(m.drv.run_while_not([&] { return m.idle(); }, m.core.tick_of(200000)));
  return m.core.now();
}

TEST(MemSystem, StreamOfLoadsAndStoresDrains) {
  MemSystem m(2);
  run_stream(m);
  EXPECT_EQ(m.reg.sum("sm.*.l1d.read_misses"), 192u * 2 * 4);
  EXPECT_EQ(m.reg.sum("l2.*.writes"), 64u * 2 * 4);
  EXPECT_EQ(m.reg.sum("dram.*.reads"), 192u * 2 * 4);
}

TEST(MemSystem, ActivityGatingChangesNothing) {
  MemSystem gated(2), ungated(2);
  ungated.drv.set_gated(false);
  Cycle t_gated = run_stream(gated), t_ungated = run_stream(ungated);
  EXPECT_EQ(t_gated, t_ungated);
  stats::Snapshot a = gated.reg.snapshot(), b = ungated.reg.snapshot();
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) EXPECT_EQ(a[i], b[i]) << gated.reg.name(i);
}

}  // namespace
}  // namespace ws::timing
