// The SM's constant cache (L1C). The constant port delivers one word to the
// whole warp per cycle: lanes reading the same address share it (broadcast),
// each further distinct address costs a cycle. Each distinct address is looked
// up in a small tag array; a miss costs a fixed `l1c.miss_latency` (an L2 hit
// round trip; like the instruction cache, v1 sends no traffic for it) and
// misses to a line already being fetched merge. `l1c.perfect = true` keeps the
// fixed-latency model (every load hits, no serialisation). The cache is
// emptied at every kernel launch, as constant banks may change between kernels.
#pragma once
#include <cstdint>

#include "config/config.h"
#include "stats/stats.h"
#include "timing/core/fixed_miss_tags.h"

namespace ws::timing {

class ConstCache {
 public:
  ConstCache(const config::Config& cfg, stats::Scope scope);
  // A warp constant load issued at `now`; `lane_addrs` may be null (an access
  // without traced addresses: one hit). Returns the cycle its data is ready.
  Cycle load(const Addr* lane_addrs, uint32_t active_mask, Cycle now);
  void flush();

 private:
  Cycle lookup(Addr addr, Cycle at);

  bool perfect_;
  uint32_t hit_latency_, miss_latency_, line_bytes_;
  FixedMissTags tags_;  // keyed by line number x 128 (SectorCache's line unit)
  Cycle port_free_ = 0;  // the port serves a later warp's first address from here
  stats::Counter &loads_, &addresses_, &hits_, &misses_;
};

}  // namespace ws::timing
