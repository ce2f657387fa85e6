// Warp scheduler plug-ins: each sub-core picks at most one ready warp per cycle.
// Warps are identified by their slot in the sub-core (0..63).
//
// The sub-core asks through pick_first(): the scheduler tests candidate slots
// in its priority order and stops at the first ready one, so a sub-core with
// many ready warps tests one or two per cycle instead of all of them. A
// scheduler that only knows how to choose from a full mask of ready slots
// implements pick() and inherits a pick_first() that tests every candidate.
#pragma once
#include <bit>
#include <cstdint>
#include <memory>
#include <string>

#include "common/plugin.h"

namespace ws::timing {

// Whether the warp in a slot can issue this cycle (may record why not).
class ReadyTest {
 public:
  virtual bool operator()(uint32_t slot) = 0;

 protected:
  ~ReadyTest() = default;
};

class WarpScheduler {
 public:
  virtual ~WarpScheduler() = default;
  // A warp entered slot `slot`; `age` grows with dispatch order (older = smaller).
  virtual void on_warp_added(uint32_t slot, uint64_t age) = 0;
  // The slot to issue from among `ready` (non-zero), and remember the choice.
  virtual uint32_t pick(uint64_t ready) = 0;
  // The slot pick() would choose among the ready ones of `candidates`, and
  // remember it; -1 when none is ready (then every candidate was tested).
  // Must choose exactly as pick() over the full ready mask would.
  virtual int pick_first(uint64_t candidates, ReadyTest& ready) {
    uint64_t mask = 0;
    for (uint64_t m = candidates; m; m &= m - 1) {
      auto slot = static_cast<uint32_t>(std::countr_zero(m));
      if (ready(slot)) mask |= uint64_t{1} << slot;
    }
    return mask ? static_cast<int>(pick(mask)) : -1;
  }
};

struct SchedulerArgs {
  uint32_t slots = 16;
};

using SchedulerRegistry = PluginRegistry<WarpScheduler, const SchedulerArgs&>;
using SchedulerRegistrar = PluginRegistrar<WarpScheduler, const SchedulerArgs&>;

}  // namespace ws::timing
