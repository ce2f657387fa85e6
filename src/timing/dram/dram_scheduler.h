// DRAM request scheduler plug-ins (`dram.scheduler`: fcfs, frfcfs). The
// channel summarises each bank for the scheduler (its oldest eligible request
// and its oldest eligible row hit, in arrival order), and the scheduler picks
// the bank, and which of the two, whose next command issues this cycle. Within
// a bank every non-hit request needs the same next command (ACT or PRE), so the
// summary loses nothing a request-by-request scan would see.
//
// Only banks with an eligible request are listed, in no particular order (a
// bank held for its refresh is left out): a saturated channel has about half
// its banks empty, and the channel asks twice a cycle with a dual command bus.
// Arrival numbers are unique, so no pick depends on the order of the list.
#pragma once
#include <cstdint>
#include <span>

#include "common/plugin.h"

namespace ws::timing {

// Ages first, flags after: 24 bytes. The channel keeps these across cycles
// (DramBankViews) and sets the issuable flags every cycle.
struct DramBankView {
  uint64_t oldest_age = 0;       // arrival number of the oldest eligible request (smaller is older)
  uint64_t hit_age = 0;          // arrival number of the oldest eligible row hit
  uint16_t bank = 0;             // which bank this is
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
  // `banks`: every bank with an eligible request (see above). Returns one of
  // their `bank` numbers, or -1.
  virtual DramChoice pick(std::span<const DramBankView> banks) const = 0;
};
using DramSchedulerRegistry = PluginRegistry<DramScheduler>;

}  // namespace ws::timing
