// Warp scheduler plug-ins: each sub-core picks at most one ready warp per cycle.
// Warps are identified by their slot in the sub-core (0..63); the sub-core
// passes a bit mask of the slots that could issue this cycle.
#pragma once
#include <cstdint>
#include <memory>
#include <string>

#include "common/plugin.h"

namespace ws::timing {

class WarpScheduler {
 public:
  virtual ~WarpScheduler() = default;
  // A warp entered slot `slot`; `age` grows with dispatch order (older = smaller).
  virtual void on_warp_added(uint32_t slot, uint64_t age) = 0;
  // The slot to issue from among `ready` (non-zero), and remember the choice.
  virtual uint32_t pick(uint64_t ready) = 0;
};

struct SchedulerArgs {
  uint32_t slots = 16;
};

using SchedulerRegistry = PluginRegistry<WarpScheduler, const SchedulerArgs&>;
using SchedulerRegistrar = PluginRegistrar<WarpScheduler, const SchedulerArgs&>;

}  // namespace ws::timing
