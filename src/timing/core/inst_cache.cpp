#include "timing/core/inst_cache.h"

#include "common/error.h"

namespace ws::timing {

namespace {
const config::Param<bool> kPerfect{"l1i.perfect", false, "", "every instruction fetch hits (no instruction cache model)"};
const config::Param<int64_t> kSizeKb{"l1i.size_kb", 128, "KB", "instruction cache capacity per SM", {1, 4096}};
const config::Param<int64_t> kWays{"l1i.ways", 16, "ways", "instruction cache associativity", {1, 1024}};
const config::Param<int64_t> kMissLatency{"l1i.miss_latency", 212, "cycles",
                                          "instruction fetch miss latency (an L2 hit round trip on QV100)", {1, 100000}};

SectorCacheShape shape(const config::Config& cfg) {
  SectorCacheShape s;
  uint64_t lines = static_cast<uint64_t>(kSizeKb.get(cfg)) * 1024 / kLineBytes;
  s.ways = static_cast<uint32_t>(kWays.get(cfg));
  if (lines % s.ways != 0) throw ConfigError(kWays.name(), "must divide the number of 128 B lines in l1i.size_kb");
  s.sets = static_cast<uint32_t>(lines / s.ways);
  s.param_prefix = "l1i";
  return s;
}
}  // namespace

InstCache::InstCache(const config::Config& cfg, stats::Scope scope)
    : perfect_(kPerfect.get(cfg)),
      tags_(shape(cfg), static_cast<uint32_t>(kMissLatency.get(cfg))),
      accesses_(scope.counter("accesses", "instruction fetches (one per issued instruction)")),
      misses_(scope.counter("misses", "fetches that started a line fill")) {}

Cycle InstCache::fetch(uint64_t pc, Cycle now) {
  accesses_.inc();
  if (perfect_) return now;
  Addr line = pc & ~Addr{kLineBytes - 1};
  // The most recently used line needs no lookup and no LRU update.
  if (line == mru_line_) return now;
  FixedMissTags::Result r = tags_.lookup(line, now);
  if (r.outcome == FixedMissTags::Outcome::Hit) mru_line_ = line;
  if (r.outcome == FixedMissTags::Outcome::Miss) misses_.inc();
  return r.ready;
}

void InstCache::flush() {
  tags_.flush();
  mru_line_ = kNoLine;
}

}  // namespace ws::timing
