// An L1D between a test and a fake L2 (fixed latency), for the L1D tests.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "mem/test_driver.h"
#include "timing/mem/l1d.h"

namespace ws::timing::test {

inline constexpr Tick kPs = 1000;  // 1 GHz core in these tests

struct L1Bench {
  config::Config cfg;
  stats::Registry reg;
  ClockDomain core{"core", ClockPeriod{kPs}};
  std::unique_ptr<L1D> l1;
  FakeMemory mem;
  TestDriver drv;

  explicit L1Bench(std::vector<std::string> sets = {}, Tick mem_latency_cycles = 100) {
    for (auto& s : sets) cfg.set_assignment(s);
    l1 = std::make_unique<L1D>(cfg, stats::Scope(reg, "sm.0.l1d"), core, 0);
    l1->connect(&mem.in);
    mem.out = &l1->from_icnt();
    mem.latency = mem_latency_cycles * kPs;
    drv.add(core, *l1);
    drv.on_edge([this](Tick t) { mem.step(t); });
  }
  uint64_t stat(const std::string& leaf) const { return reg.sum("sm.0.l1d." + leaf); }
  // Advances to cycle c so that an access can be accepted "this cycle".
  void to_cycle(Cycle c) { drv.run_until(core.tick_of(c)); }
  void access(AccessType type, Addr line, uint8_t sectors, uint32_t token, uint32_t bytes = 0,
              ir::CacheOp op = ir::CacheOp::Default, bool local = false) {
    L1Access a;
    a.line_addr = line;
    a.sector_mask = sectors;
    a.type = type;
    a.token = token;
    a.cache_op = op;
    a.local = local;
    for (auto& b : a.byte_masks) b = bytes;
    ASSERT_TRUE(l1->can_accept());
    l1->accept(a);
  }
  // Cycle at which `token` shows up in done(), or ~0 if not within `limit` cycles.
  Cycle wait_done(uint32_t token, Cycle limit = 2000) {
    bool ok = drv.run_while_not(
        [&] {
          Port<uint32_t>& d = l1->done();
          while (d.ready(drv.now() - 1)) {
            uint32_t t = d.front();
            d.pop();
            if (t == token) return true;
          }
          return false;
        },
        limit * kPs);
    return ok ? core.now() : ~Cycle{0};
  }
};

}  // namespace ws::timing::test
