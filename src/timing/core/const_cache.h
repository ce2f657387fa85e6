// The SM's constant cache (L1C). The constant port delivers one word to the
// whole warp per cycle: lanes reading the same address share it (broadcast),
// each further distinct address costs a cycle. Each distinct address is looked
// up in a small tag array; a missing line is read from the L2 through the SM's
// crossbar port (real traffic, MemClient::Const, like the instruction fetch
// unit's misses) and lookups of a line already being read merge with it. A
// load whose lines all hit has a ready cycle at once; one that waits for the
// L2 is reported by done() when its last line arrives.
//
// Volta puts a larger constant/instruction cache (L1.5) between this cache
// and the L2; it is not modelled: misses go to the L2. `l1c.perfect = true`
// keeps the fixed-latency model (every load hits, no serialisation, no
// traffic). The cache is emptied at every kernel launch, as constant banks may
// change between kernels.
#pragma once
#include <algorithm>
#include <cstdint>
#include <deque>
#include <vector>

#include "common/flat_map.h"
#include "common/small_vec.h"
#include "config/config.h"
#include "stats/stats.h"
#include "timing/core/l2_reads.h"
#include "timing/mem/sector_cache.h"

namespace ws::timing {

class ConstCache {
 public:
  // A load that waited for the L2: its data is ready at `ready`.
  struct Done {
    uint32_t token;
    Cycle ready;
  };
  static constexpr Cycle kWaiting = ~Cycle{0};

  ConstCache(const config::Config& cfg, stats::Scope scope, const ClockDomain& clk, uint16_t sm_id);

  // `owner` is the SM that ticks this cache: it sends into `to_l2` (shared
  // with the L1D and the fetch unit) and is woken by replies in from_l2().
  void connect(Port<MemRequest>* to_l2, Clocked* owner) { l2_.connect(to_l2, owner); }
  Port<MemRequest>& from_l2() { return l2_.replies(); }

  // A warp constant load issued at `now`; `lane_addrs` may be null (an access
  // without traced addresses: one hit). Returns the cycle its data is ready,
  // or kWaiting: `token` comes back through done() once its lines arrived.
  Cycle load(const Addr* lane_addrs, uint32_t active_mask, Cycle now, uint32_t token);
  // Sends queued sector reads and takes arrived sectors.
  void tick(Cycle now);
  std::vector<Done>& done() { return done_; }
  // Earliest time tick() has work (kNever: none).
  Tick next_event(Tick now) const {
    Tick t = l2_.next_event(now);
    return bank_fills_.empty() ? t : std::min(t, clk_.tick_of(bank_fills_.front().ready));
  }
  uint32_t lines_in_flight() const { return static_cast<uint32_t>(misses_.size()); }
  void flush();

 private:
  struct Waiter {  // a load with lines still to arrive
    uint32_t token;
    uint32_t lines_left;
    Cycle ready;
  };
  struct Miss {
    uint8_t sectors_left;
    SmallVec<uint32_t, 4> waiters;  // indices into waiters_, one per address waiting
  };

  Cycle lookup(Addr addr, Cycle at, uint32_t& waiter, uint32_t token);
  uint32_t new_waiter(uint32_t token);
  void request_line(Addr key, Addr first_byte, Cycle at);
  void sector_arrived(Addr addr, Cycle now);
  void line_arrived(Addr key, Cycle now);
  Addr key_of(Addr a) const { return a / line_bytes_ * kLineBytes; }

  const ClockDomain& clk_;
  bool perfect_;
  uint32_t hit_latency_, line_bytes_;
  uint32_t bank_latency_;  // l1c.bank_latency (0: bank lines come from the L2)
  struct BankFill {
    Cycle ready;
    Addr key;
  };
  std::deque<BankFill> bank_fills_;  // launch-bank lines on their way, in ready order
  SectorCache tags_;   // present lines, keyed by line number x 128 (SectorCache's line unit)
  FlatMap<Miss> misses_;  // key -> line being read from the L2
  std::vector<Waiter> waiters_;
  std::vector<uint32_t> free_waiters_;
  std::vector<Done> done_;
  L2Reads l2_;
  Cycle port_free_ = 0;  // the port serves a later warp's first address from here
  stats::Counter &loads_, &addresses_, &hits_, &misses_stat_, &fills_, &sectors_;
};

}  // namespace ws::timing
