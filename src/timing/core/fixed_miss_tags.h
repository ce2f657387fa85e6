// A tag array whose misses take a fixed time and send no traffic (the
// sub-cores' L0 instruction caches, filled from the L1I): a miss starts a fill that is done
// `miss_latency` cycles later; lookups of a line being filled merge with it;
// the line is installed at its first lookup after the fill.
#pragma once
#include <cstdint>

#include "common/flat_map.h"
#include "timing/mem/sector_cache.h"

namespace ws::timing {

class FixedMissTags {
 public:
  enum class Outcome : uint8_t { Hit, Merged, Miss };
  struct Result {
    Outcome outcome;
    Cycle ready;  // when the line is present: `at` for a hit
  };

  FixedMissTags(const SectorCacheShape& shape, uint32_t miss_latency);
  // `line` is a 128 B-aligned key (SectorCache's unit).
  Result lookup(Addr line, Cycle at);
  // The line's state at `at` without starting a fill: Hit (present), Merged
  // (a fill under way, done at `ready`) or Miss (absent). A fill completed by
  // `at` is installed first.
  Result probe(Addr line, Cycle at);
  // Starts a fill of an absent line that completes at `ready` (its latency
  // decided by the caller, e.g. a lower level's hit).
  void start_fill(Addr line, Cycle ready) { in_flight_[line] = ready; }
  // Drops every line and every fill under way.
  void flush();

 private:
  SectorCacheShape shape_;
  uint32_t miss_latency_;
  SectorCache tags_;
  FlatMap<Cycle> in_flight_;  // line -> fill cycle, for misses not yet installed
};

}  // namespace ws::timing
