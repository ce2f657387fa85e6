// One SM of the abstract model. Each warp knows the cycle its next
// instruction's operands are ready (a register scoreboard filled with result
// times that are all known at issue: unit latencies from the preset's unit
// table, memory times from the MemoryModel); each sub-core issues at most one
// instruction a cycle, picked by the same scheduler plug-in the detailed core
// uses, among warps whose operands are ready and whose pipeline is free
// (busy-until times per pipeline, per sub-core; one LD/ST unit per SM). The
// SM is stepped only at the cycles something can issue: the caller keeps the
// event queue.
//
// Warps advance a block at a time (block_table.h): the instructions before a
// block's last are taken at once, timed by the block's pre-characterised
// entry, shifted for its operands' and code lines' arrival and for the
// sub-core's backlog of issue slots and unit time (fluid queues); only the
// block's last instruction is an event, issued as above.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "config/config.h"
#include "ir/source.h"
#include "stats/stats.h"
#include "timing/abstract/block_table.h"
#include "timing/abstract/inst_fetch.h"
#include "timing/core/exec_units.h"
#include "timing/core/operand_collector.h"
#include "timing/core/fence.h"
#include "timing/core/scoreboard.h"
#include "timing/core/warp_scheduler.h"

namespace ws::timing::abstract {

class MemoryModel;

inline constexpr Cycle kNoEvent = ~Cycle{0};

class AbstractSm {
 public:
  AbstractSm(const config::Config& cfg, stats::Scope scope, uint32_t id, MemoryModel& mem, BlockTable& blocks);
  ~AbstractSm();

  uint32_t subcores() const { return static_cast<uint32_t>(subcores_.size()); }
  void begin_kernel(const std::vector<std::string>& unit_names, uint32_t ctas_per_sm, Addr code_base);
  bool can_launch() const { return live_ctas_ < ctas_per_sm_; }
  uint32_t live_ctas() const { return live_ctas_; }
  // Places a CTA's warps at cycle `now`; their first instructions are read now.
  void launch(std::unique_ptr<ir::CtaSource> cta, Cycle now);
  // Sub-core `s` at cycle `now`: retires finished warps and issues at most
  // one instruction.
  void step(uint32_t s, Cycle now);
  // The next cycle at which sub-core `s` may do something (kNoEvent: not
  // before another event changes it).
  Cycle next_time(uint32_t s) const;
  // Sub-cores whose next_time may have moved since the last call (a barrier
  // opened, a CTA arrived), and whether a CTA slot freed up; both cleared.
  uint64_t take_changed() { return std::exchange(changed_, 0); }
  bool take_freed() { return std::exchange(freed_, false); }
  // Brings the residency counters up to `now` (at a kernel's end).
  void account(Cycle now);

 private:
  struct Warp {
    Scoreboard regs;
    ir::WarpInst inst;  // the current block's last instruction, the next to issue
    Cycle ready = 0;    // operands of `inst` ready (and `inst` fetched); the warp issued before this
    Addr line = ~Addr{0};  // the code line of the last fetch (the next from it is free)
    uint32_t cta = 0, in_cta = 0;
    Cycle stores_done = 0;  // its stores drained (core.store_drain_latency): it exits no earlier
    bool live = false, ended = false, at_barrier = false;
  };
  struct Cta {
    std::unique_ptr<ir::CtaSource> source;
    std::vector<uint32_t> slots;
    uint32_t warps_done = 0, at_barrier = 0;
    Cycle last_arrival = 0;  // when the barrier unit took the open barrier's latest arrival
  };
  // Work booked on a resource as one busy interval [from, free): a body's
  // slots or unit time are booked when its block is read, which may be ahead
  // of other warps' earlier work; work that arrives before the interval takes
  // the gap (and pushes the interval's end by what overlaps it) instead of
  // queueing behind work booked for later.
  struct FluidQueue {
    double from = 0, free = 0;
    double book(double at, double len);  // returns when this work is done
  };
  struct SubCore {
    std::unique_ptr<WarpScheduler> scheduler;
    UnitPool units;
    uint64_t live = 0;  // local slots holding a warp
    Cycle next_issue = 0;
    // Fluid queues of the blocks' bodies: when the issue slots and each unit
    // kind's pipelines (unit-table order) have worked off what was booked.
    FluidQueue issue_slots;
    std::vector<FluidQueue> unit_time;
    // Register banks and operand collection of the instructions the dynamic
    // model issues (the bodies' reads are in their characterisation).
    OperandCollector collector;
  };
  class Probe;

  uint32_t subcore_of(uint32_t slot) const { return slot % subcores(); }
  uint32_t local_of(uint32_t slot) const { return slot / subcores(); }
  Warp& warp(uint32_t s, uint32_t local) { return warps_[local * subcores() + s]; }
  const Warp& warp(uint32_t s, uint32_t local) const { return warps_[local * subcores() + s]; }
  // When `w`'s next instruction could issue, its pipeline considered.
  Cycle issue_time(const SubCore& sc, const Warp& w) const;
  Cycle collect(SubCore& sc, const Warp& w, Cycle now);
  void issue(SubCore& sc, Warp& w, Cycle now);
  // Reads the warp's next block at `now` (not issuing before `floor`) and
  // takes its body; `inst` and `ready` then describe its last instruction.
  void next_block(Warp& w, Cycle now, Cycle floor = 0);
  void take_body(Warp& w, uint32_t n, Cycle t0);
  Cycle line_ready(Warp& w, uint64_t pc, Cycle now);
  void arrive_at_barrier(Warp& w, Cycle now);
  void release_barrier(Cta& cta, Cycle now);
  void retire(uint32_t slot, Cycle now);
  void mark(uint32_t slot) { changed_ |= uint64_t{1} << subcore_of(slot); }

  uint32_t id_;
  MemoryModel& mem_;
  InstFetch ifetch_;
  BlockTable& blocks_;
  uint32_t block_max_;
  std::vector<ir::WarpInst> scratch_;  // the block being read
  std::vector<int16_t> scratch_units_;
  std::vector<UnitSpec> unit_specs_;
  std::vector<int16_t> unit_of_;  // kernel unit index -> unit_specs_ index (-1: the LD/ST unit)
  std::vector<Warp> warps_;
  std::vector<SubCore> subcores_;
  std::vector<Cta> ctas_;
  std::string scheduler_name_;
  uint32_t max_warps_;
  uint32_t ctas_per_sm_ = 0, live_ctas_ = 0, live_warps_ = 0;
  uint64_t age_ = 0;
  // The LD/ST unit takes local/global accesses (the LG queue) and shared and
  // constant ones (the MIO queue) apart: neither waits behind the other.
  Cycle ldst_free_ = 0, mio_free_ = 0, const_latency_, store_drain_;
  uint32_t collector_units_ = 1;  // core.collector.units
  FenceLatencies fence_;
  // The SM's barrier unit, as in the detailed model (core.barrier.*).
  Cycle barrier_arrival_cycles_ = 0, barrier_release_cycles_ = 0, barrier_unit_free_ = 0;
  Cycle accounted_ = 0;  // residency counters cover cycles before this
  uint64_t changed_ = 0;
  bool freed_ = false;
  stats::Counter &warp_insts_, &thread_insts_, &ctas_done_, &active_cycles_, &warp_cycles_;
};

}  // namespace ws::timing::abstract
