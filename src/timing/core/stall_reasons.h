// Issue-stall reasons of the detailed model, named as Nsight Compute's
// warp states (smsp__average_warps_issue_stalled_<reason>_per_issue_active).
//
// The SM does not look at every warp every cycle (sleeping warps and idle
// cycles are skipped), so a warp's cycles are attributed when it issues: the
// cycles since its previous issue each go to the first reason, in priority
// order, that still held the warp then. Every resident cycle of a warp lands
// in exactly one reason: the counts add up to the occupancy integral.
#pragma once
#include <algorithm>
#include <array>
#include <cstdint>

#include "common/types.h"

namespace ws::timing {

enum class Stall : uint8_t {
  Barrier,           // at a CTA barrier until it opened
  Membar,            // a memory fence had not completed
  BranchResolving,   // its last branch had not resolved (core.branch_resolve_cycles)
  NoInstruction,     // the instruction line had not arrived
  LongScoreboard,    // an operand waited for an L1TEX load (global, local, texture)
  ShortScoreboard,   // ... for a variable-latency MIO result (shared memory, constants, SFU)
  Wait,              // ... for a fixed-latency pipeline's result
  LgThrottle,        // a global/local access waited for room in the LD/ST unit's LG queue
  MioThrottle,       // a shared-memory access waited for room in the MIO queue (core.mio_queue)
  MathPipeThrottle,  // the instruction's pipeline was busy
  NotSelected,       // ready, another warp issued (operand-collector waits too)
  Drain,             // after the last instruction, until the warp's writes completed
  Selected,          // the issue cycle itself
  kCount
};
inline constexpr size_t kStallReasons = static_cast<size_t>(Stall::kCount);

// The stall's name in stats (stall.<name>) and in ncu's metric names.
inline constexpr std::array<const char*, kStallReasons> kStallNames = {
    "barrier",      "membar",       "branch_resolving",   "no_instruction", "long_scoreboard", "short_scoreboard",
    "wait",         "lg_throttle",  "mio_throttle",       "math_pipe_throttle", "not_selected", "drain",
    "selected"};

using StallCounts = std::array<uint64_t, kStallReasons>;

// What produced a register's pending value: a scoreboard wait on it is
// charged to the matching reason. Stored beside each scoreboard entry.
enum class RegSource : uint8_t { Fixed, Mio, L1tex };
inline Stall stall_of(RegSource s) {
  return s == RegSource::L1tex ? Stall::LongScoreboard : s == RegSource::Mio ? Stall::ShortScoreboard : Stall::Wait;
}

// One condition that held a warp: `reason` applies to the cycles in
// [since, until). A shared resource (a pipeline, the LD/ST queue) held only
// since `since`: a ready warp not issued before then was not selected. Of
// [since, until), `free` cycles were not held (a pipeline that took other
// warps' instructions on those cycles, free at the start of each): a warp
// waiting then was not selected either. Where the warp's wait covers only
// part of the span, it gets that share of them.
struct StallCause {
  Stall reason;
  Cycle until;
  Cycle since = 0;
  Cycle free = 0;
};

// Attributes cycles from `from` on, up to `now`, to `causes` in priority
// order, calling add(reason, cycles): cause k gets [max(from, since_k, until
// of causes before k), min(now, until_k)), cycles before its `since` are
// NotSelected. Returns the first cycle left unattributed. O(causes),
// whatever the length of the wait.
template <size_t N, class Add>
inline Cycle attribute_causes(Cycle from, Cycle now, const std::array<StallCause, N>& causes, Add&& add) {
  for (const StallCause& c : causes) {
    Cycle to = std::min(now, c.until);
    if (to <= from) continue;
    if (c.since > from) {
      Cycle start = std::min(c.since, to);
      add(Stall::NotSelected, start - from);
      from = start;
    }
    if (to > from) {
      Cycle span = c.until - c.since, free = c.free && span ? c.free * (to - from) / span : 0;
      if (free) add(Stall::NotSelected, free);
      if (to - from > free) add(c.reason, to - from - free);
      from = to;
    }
  }
  return from;
}

// One cause with neither `since` nor `free` (a warp's own wait): the
// cycles [from, min(now, until)) to `reason`; returns where attribution
// goes on. attribute_causes for one such cause, without building it.
template <class Add>
inline Cycle attribute_wait_until(Cycle from, Cycle now, Stall reason, Cycle until, Add&& add) {
  Cycle to = std::min(now, until);
  if (to <= from) return from;
  add(reason, to - from);
  return to;
}

// An issue at `now`: the cycles [from, now) to `causes`, those no cause
// covers NotSelected, then the issue cycle itself (Selected).
template <size_t N, class Add>
inline void attribute_issue(Cycle from, Cycle now, const std::array<StallCause, N>& causes, Add&& add) {
  from = attribute_causes(from, now, causes, add);
  if (now > from) add(Stall::NotSelected, now - from);
  add(Stall::Selected, 1);
}

}  // namespace ws::timing
