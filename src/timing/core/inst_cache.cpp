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
      miss_latency_(static_cast<uint32_t>(kMissLatency.get(cfg))),
      sets_(shape(cfg).sets),
      ways_(shape(cfg).ways),
      tags_(shape(cfg)),
      accesses_(scope.counter("accesses", "instruction fetches (one per issued instruction)")),
      misses_(scope.counter("misses", "fetches that started a line fill")) {}

Cycle InstCache::fetch(uint64_t pc, Cycle now) {
  accesses_.inc();
  if (perfect_) return now;
  Addr line = pc & ~Addr{kLineBytes - 1};
  // The most recently used line needs no lookup and no LRU update.
  if (line == mru_line_) return now;
  if (CacheLine* l = tags_.find(line)) {
    tags_.touch(*l);
    mru_line_ = line;
    return now;
  }
  if (Cycle* fill = in_flight_.find(line)) {
    if (*fill > now) return *fill;
    in_flight_.erase(line);  // filled: install it
    tags_.touch(tags_.insert(line, nullptr));
    mru_line_ = line;
    return now;
  }
  misses_.inc();
  Cycle ready = now + miss_latency_;
  in_flight_[line] = ready;
  return ready;
}

void InstCache::flush() {
  tags_.resize(sets_, ways_);
  in_flight_.clear();
  mru_line_ = kNoLine;
}

}  // namespace ws::timing
