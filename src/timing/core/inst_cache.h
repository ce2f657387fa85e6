// The SM's instruction cache: a warp cannot issue an instruction before the
// 128 B line holding it has been fetched. A miss costs a fixed latency (an L2
// round trip; v1 sends no traffic through the memory system for it) and
// misses to a line already being fetched merge. `l1i.perfect = true` makes
// every fetch hit. The cache is emptied at every kernel launch (traced PCs
// are offsets within their kernel).
#pragma once
#include <cstdint>

#include "config/config.h"
#include "stats/stats.h"
#include "timing/core/fixed_miss_tags.h"

namespace ws::timing {

class InstCache {
 public:
  InstCache(const config::Config& cfg, stats::Scope scope);
  // The cycle the instruction at `pc` is available to issue (>= now).
  Cycle fetch(uint64_t pc, Cycle now);
  void flush();

 private:
  bool perfect_;
  FixedMissTags tags_;
  static constexpr Addr kNoLine = ~Addr{0};
  Addr mru_line_ = kNoLine;   // last line looked up and present
  stats::Counter &accesses_, &misses_;
};

}  // namespace ws::timing
