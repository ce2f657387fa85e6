// Per-warp and per-CTA state held by an SM.
#pragma once
#include <array>
#include <cstdint>
#include <memory>
#include <vector>

#include "common/types.h"
#include "ir/source.h"
#include "timing/core/scoreboard.h"
#include "timing/core/sm_kernel.h"

namespace ws::timing {


struct Warp {
  bool live = false;
  bool at_barrier = false;
  bool fetch_at_release = false;  // `inst` is the barrier it waits at; the next is fetched when it opens
  Cycle barrier_issued = 0;       // when that barrier issued
  uint32_t cta_slot = 0;
  uint32_t warp_in_cta = 0;
  // Its kernel's unit map and code (copied from the SmKernel: read per issue).
  const int16_t* unit_of = nullptr;
  Addr code_base = 0;
  uint32_t pending_loads = 0;    // memory instructions outstanding: loads' results, stores draining
  Cycle busy_until = 0;          // a fence holds the warp until this cycle
  Cycle shared_done = 0;         // its shared-memory stores and reductions are performed by then (exit waits)
  Cycle lsu_next = 0;            // its next LD/ST-unit access may not issue before this (core.lsu_issue_interval)
  Cycle ldc_next = 0;            // nor its next constant load before this (core.ldc_issue_interval)
  Cycle branch_ready = 0;        // its last branch resolves: nothing issues before (core.branch_resolve_cycles)
  Cycle pred_ready = 0;          // a branch testing a predicate issues no earlier (core.branch_predicate_latency)
  // Lower bound on the next cycle the warp could issue (kPending: a memory
  // reply must come first). Lets the scheduler skip sleeping warps cheaply.
  Cycle wake_at = 0;
  Cycle fetch_ready = 0;  // when `inst` has been fetched (instruction cache)
  // Next instruction to issue, copied out of the trace storage at fetch: the
  // scheduler probes it on many cycles, and the warp's own line stays warm
  // where the trace buffers do not. Meaningless once the stream has ended
  // (the sub-core's `ended` mask; the warp then finishes as soon as its
  // outstanding loads have returned).
  ir::WarpInst inst;
  uint64_t src_banks = 0;  // the OperandCollector's raw_counts(inst), when the model is on
  Scoreboard scoreboard;
  // Stall attribution (stall_reasons.h): the first cycle not yet attributed
  // (the launch cycle, then the cycle after each issue), when the barrier
  // the warp last waited at opened, and the write `inst` waited for last.
  Cycle stall_from = 0;
  Cycle barrier_open = 0;
  Cycle queue_full_mark = 0;  // the LD/ST unit's full_cycles() at that first cycle
  Cycle mio_full_mark = 0;    // and its mio_full_cycles()
  RegDep dep;

  // Sources (true dependences) and destinations (output dependences)
  // written; an LD/ST-unit instruction's sources also past their lsu_extra.
  bool regs_ready(const ir::WarpInst& i, Cycle now, Cycle& wake, RegReader reader = {}) {
    wake = scoreboard.ready_at(i.src.data(), i.n_src, i.dst.data(), i.n_dst, now, dep, reader);
    return wake <= now;
  }
  // `lsu_extra`: the cycles after `ready` an LD/ST-unit instruction waits
  // more to read them (core.lsu_operand_latency); `pipe`, `cross`: the
  // pipe they forward from and what a reader in the other one waits more.
  void write_dsts(const ir::WarpInst& i, Cycle ready, RegSource source, uint8_t lsu_extra = 0,
                  uint8_t pipe = kNoPipe, uint8_t cross = 0) {
    for (int k = 0; k < i.n_dst; ++k) scoreboard.set(i.dst[k], ready, source, i.write_barrier, lsu_extra, pipe, cross);
  }
};

struct CtaSlot {
  bool live = false;
  std::unique_ptr<ir::CtaSource> source;
  uint32_t num_warps = 0;
  uint32_t warps_done = 0;
  uint32_t warps_at_barrier = 0;
  Cycle last_arrival = 0;            // when the barrier unit took the open barrier's latest arrival
  SmKernel* kernel = nullptr;        // whose CTA it is
  std::vector<uint32_t> warp_slots;  // SM warp slot of each warp of the CTA
};

}  // namespace ws::timing
