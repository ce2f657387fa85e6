#include "timing/core/const_cache.h"

#include <algorithm>
#include <array>
#include <bit>

#include "common/error.h"

namespace ws::timing {

namespace {
// Volta keeps a 2 KB constant cache with 64 B lines per SM in front of a larger
// constant/instruction cache; v1 models the first level only and charges an L2
// round trip for its misses.
const config::Param<bool> kPerfect{"l1c.perfect", false, "",
                                   "every constant load hits after core.const_latency, whatever its addresses "
                                   "(no constant-cache model)"};
const config::Param<int64_t> kSizeKb{"l1c.size_kb", 2, "KB", "constant cache capacity per SM", {1, 1024}};
const config::Param<int64_t> kL1cLineBytes{"l1c.line_bytes", 64, "bytes", "constant cache line (power of two, <= 128)",
                                        {4, 128}};
const config::Param<int64_t> kWays{"l1c.ways", 4, "ways", "constant cache associativity", {1, 1024}};
const config::Param<int64_t> kMissLatency{"l1c.miss_latency", 212, "cycles",
                                          "constant cache miss latency (an L2 hit round trip on QV100; no traffic "
                                          "is sent)",
                                          {1, 100000}};
const config::Param<int64_t> kHitLatency{"core.const_latency", 8, "cycles",
                                         "constant-cache hit latency (every constant load's latency with "
                                         "l1c.perfect = true)",
                                         {1, 1000}};

SectorCacheShape shape(const config::Config& cfg) {
  auto line = static_cast<uint64_t>(kL1cLineBytes.get(cfg));
  if (!std::has_single_bit(line)) throw ConfigError(kL1cLineBytes.name(), "must be a power of two");
  uint64_t lines = static_cast<uint64_t>(kSizeKb.get(cfg)) * 1024 / line;
  SectorCacheShape s;
  s.ways = static_cast<uint32_t>(kWays.get(cfg));
  if (lines % s.ways != 0)
    throw ConfigError(kWays.name(), "must divide the number of lines in l1c.size_kb (" + std::to_string(lines) + ")");
  s.sets = static_cast<uint32_t>(lines / s.ways);
  if (!std::has_single_bit(s.sets)) throw ConfigError(kSizeKb.name(), "l1c sets (size / line / ways) must be a power of two");
  s.param_prefix = "l1c";
  return s;
}
}  // namespace

ConstCache::ConstCache(const config::Config& cfg, stats::Scope scope)
    : perfect_(kPerfect.get(cfg)),
      hit_latency_(static_cast<uint32_t>(kHitLatency.get(cfg))),
      miss_latency_(static_cast<uint32_t>(kMissLatency.get(cfg))),
      line_bytes_(static_cast<uint32_t>(kL1cLineBytes.get(cfg))),
      tags_(shape(cfg), miss_latency_),
      loads_(scope.counter("loads", "warp constant loads")),
      addresses_(scope.counter("addresses", "distinct addresses served (one port cycle each)")),
      hits_(scope.counter("hits", "distinct addresses found in the constant cache")),
      misses_(scope.counter("misses", "distinct addresses that started or joined a line fill")) {}

Cycle ConstCache::load(const Addr* lane_addrs, uint32_t active_mask, Cycle now) {
  loads_.inc();
  if (perfect_ || !lane_addrs || !active_mask) return now + hit_latency_;
  std::array<Addr, 32> distinct;
  uint32_t n = 0;
  for (uint32_t m = active_mask; m; m &= m - 1) {
    Addr a = lane_addrs[std::countr_zero(m)];
    if (std::find(distinct.begin(), distinct.begin() + n, a) == distinct.begin() + n) distinct[n++] = a;
  }
  Cycle start = std::max(now, port_free_);
  port_free_ = start + n;
  addresses_.inc(n);
  Cycle ready = now;
  for (uint32_t k = 0; k < n; ++k) ready = std::max(ready, lookup(distinct[k], start + k));
  return ready;
}

Cycle ConstCache::lookup(Addr addr, Cycle at) {
  // The tag array keys 128 B lines: give it the line number in those units.
  FixedMissTags::Result r = tags_.lookup(addr / line_bytes_ * kLineBytes, at);
  if (r.outcome == FixedMissTags::Outcome::Hit) {
    hits_.inc();
    return at + hit_latency_;
  }
  misses_.inc();  // a new fill, or one already under way
  return std::max(r.ready, at + hit_latency_);
}

void ConstCache::flush() {
  tags_.flush();
  port_free_ = 0;
}

}  // namespace ws::timing
