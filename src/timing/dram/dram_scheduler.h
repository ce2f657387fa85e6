// DRAM request scheduler plug-ins (`dram.scheduler`: fcfs, frfcfs). The
// channel describes each queued request, oldest first; the scheduler picks
// the one whose next command issues this cycle.
#pragma once
#include <vector>

#include "common/plugin.h"

namespace ws::timing {

struct DramCandidate {
  bool eligible = false;        // allowed by the read/write drain mode
  bool row_hit = false;         // its bank has its row open (next command is a column command)
  bool issuable = false;        // its next command meets every timing constraint now
  bool closes_hit_row = false;  // its next command is a precharge of a row other requests still hit
};

class DramScheduler {
 public:
  virtual ~DramScheduler() = default;
  // Index into `queue` (oldest first), or -1 to issue nothing this cycle.
  virtual int pick(const std::vector<DramCandidate>& queue) const = 0;
};
using DramSchedulerRegistry = PluginRegistry<DramScheduler>;

}  // namespace ws::timing
