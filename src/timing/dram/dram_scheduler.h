// DRAM request scheduler plug-ins (`dram.scheduler`: fcfs, frfcfs). The
// channel summarises each bank for the scheduler (its oldest eligible request
// and its oldest eligible row hit, in arrival order), and the scheduler picks
// the bank, and which of the two, whose next command issues this cycle. Within
// a bank every non-hit request needs the same next command (ACT or PRE), so the
// summary loses nothing a request-by-request scan would see.
#pragma once
#include <cstdint>
#include <vector>

#include "common/plugin.h"

namespace ws::timing {

// Ages first, flags after: 24 bytes, as the channel rebuilds these every cycle.
struct DramBankView {
  uint64_t oldest_age = 0;       // arrival number of the oldest eligible request (smaller is older)
  uint64_t hit_age = 0;          // arrival number of the oldest eligible row hit
  bool has_request = false;      // an eligible request (drain mode allows it) waits for this bank
  bool oldest_is_hit = false;    // its next command is a column command (its row is open)
  bool oldest_issuable = false;  // its next command meets every timing constraint now
  bool has_hit = false;          // an eligible request hits the open row
  bool hit_issuable = false;     // its column command meets every timing constraint now
};

struct DramChoice {
  int bank = -1;     // -1: issue nothing this cycle
  bool hit = false;  // true: the bank's oldest row hit; false: its oldest request
};

class DramScheduler {
 public:
  virtual ~DramScheduler() = default;
  virtual DramChoice pick(const std::vector<DramBankView>& banks) const = 0;
};
using DramSchedulerRegistry = PluginRegistry<DramScheduler>;

}  // namespace ws::timing
