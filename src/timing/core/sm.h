// A streaming multiprocessor: sub-cores (each with its own warp scheduler and
// execution pipelines), a shared LD/ST unit with the L1D and shared memory,
// CTA slots and barriers. A warp's next instruction comes from its CtaSource
// once the FetchUnit has its line.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "config/config.h"
#include "ir/source.h"
#include "stats/stats.h"
#include "timing/core/exec_units.h"
#include "timing/core/fence.h"
#include "timing/core/fetch_unit.h"
#include "timing/core/ldst_unit.h"
#include "timing/core/operand_collector.h"
#include "timing/core/sm_kernel.h"
#include "timing/core/stall_reasons.h"
#include "timing/core/warp.h"
#include "timing/core/warp_scheduler.h"
#include "timing/engine/clocked.h"
#include "timing/mem/l1d.h"

namespace ws::timing {

class Sm : public Clocked {
 public:
  Sm(const config::Config& cfg, stats::Scope scope, const ClockDomain& core, uint16_t id);

  L1D& l1() { return *l1_; }
  FetchUnit& fetch_unit() { return fetch_; }
  ConstCache& const_cache() { return ldst_.const_cache(); }
  uint16_t id() const { return id_; }
  uint32_t max_warps() const { return static_cast<uint32_t>(warps_.size()); }

  // Prepares for a kernel that runs alone: maps its unit names onto this
  // SM's pipelines; its instructions are fetched from `code_base` + PC; at
  // most `ctas_per_sm` of its CTAs are resident. launch(cta) then runs them.
  void begin_kernel(const ir::KernelInfo& info, const std::vector<std::string>& unit_names, uint32_t ctas_per_sm,
                    Addr code_base = 0);
  bool can_launch() const { return can_host(own_); }
  void launch(std::unique_ptr<ir::CtaSource> cta) { launch(std::move(cta), own_); }

  // Kernels that may share the SM (the GPU owns their contexts).
  // The pipeline of each unit name (throws ConfigError for a unit the preset lacks).
  std::vector<int16_t> map_units(const ir::KernelInfo& info, const std::vector<std::string>& unit_names) const;
  // A kernel starts with the SM to itself: fresh instruction-fetch and
  // constant-cache state, and its L1/shared carve-out.
  void prepare_alone(const SmKernel& k);
  // One more CTA of `k` fits beside the resident ones: CTA slots, warps,
  // threads, registers and shared memory within the carve-out in force (set
  // by the first CTA on an empty SM), and the kernel's own occupancy limit.
  bool can_host(const SmKernel& k) const;
  void launch(std::unique_ptr<ir::CtaSource> cta, SmKernel& k);
  // With the SMs in several partitions (docs/parallel.md) the dispatcher
  // runs between windows: it reserves the room of a CTA (can_host counts
  // it) that the SM launches itself at core cycle `at`, in the window to come.
  void reserve(Cycle at, std::unique_ptr<ir::CtaSource> cta, SmKernel& k);
  // Keeps finished CTAs' sources (their storage may be shared with other
  // SMs' CTAs) until release_finished(), called between windows, instead of
  // freeing them from the SM's own thread.
  void keep_finished() { keep_finished_ = true; }
  void release_finished() { finished_.clear(); }
  uint32_t live_ctas() const { return live_ctas_; }
  // Running totals (all kernels): warp instructions issued, CTAs finished.
  uint64_t warp_insts() const { return warp_insts_.value(); }
  uint64_t ctas_done() const { return ctas_done_.value(); }
  // No access waits in the LD/ST unit for the L1.
  bool memory_idle() const { return !ldst_.busy(); }

  void tick() override;
  Tick next_event() const override;
  std::string waiting_for() const override;

 private:
  static constexpr int16_t kLdstUnit = -1;
  struct SubCore {
    std::unique_ptr<WarpScheduler> scheduler;
    UnitPool units;
    OperandCollector collector;
    uint64_t live = 0;      // local slots holding live warps
    uint64_t sleeping = 0;  // live warps that only an event can wake (memory reply, barrier)
    uint64_t ended = 0;     // live warps whose instruction stream has ended
    uint64_t lg_next = 0;  // live warps whose next instruction waits for the LD/ST unit's LG queue
    uint64_t mio_next = 0;  // live warps whose next instruction waits for the MIO queue (shared memory)
    bool ldst_blocked = false;  // a scan left out LG warps because the LD/ST queue was full
    // No warp can issue before this cycle unless woken by an event (a load
    // completion, a barrier release, a launch): lets idle scans be skipped.
    Cycle next_scan = 0;
  };

  class ReadyProbe;
  bool issue_subcore(uint32_t s, Cycle now, Cycle& wake);
  void retire_ended(uint32_t s, uint64_t ended, Cycle now, Cycle& sub_wake);
  bool can_issue(const SubCore& sc, Warp& w, Cycle now, Cycle& wake) const;
  void issue(SubCore& sc, uint32_t slot, Cycle now);
  Cycle collect_operands(SubCore& sc, uint32_t slot, Cycle now);
  void arrive_at_barrier(CtaSlot& cta, Warp& w);
  void release_barrier_if_complete(CtaSlot& cta);
  void finish_warp(uint32_t slot);
  void start_cta(std::unique_ptr<ir::CtaSource> source, SmKernel& k);
  void take_carveout(const SmKernel& k);
  void launch_reserved(Cycle now);
  // CTAs resident or reserved.
  uint32_t ctas_held() const { return live_ctas_ + static_cast<uint32_t>(reserved_.size() - reserved_next_); }
  void wake_ldst_waiters();
  void account_residency(Cycle now);
  void next_inst(Warp& w, Cycle now);
  void fetch(Warp& w, uint32_t slot, Cycle now);
  uint32_t subcore_of(uint32_t slot) const { return slot % static_cast<uint32_t>(subcores_.size()); }
  uint32_t local_of(uint32_t slot) const { return slot / static_cast<uint32_t>(subcores_.size()); }
  void set_sleeping(uint32_t slot, bool asleep);
  void take_fetched_lines(Cycle now);
  // Stall attribution (stall_reasons.cpp).
  void init_stalls(const config::Config& cfg, stats::Scope scope);
  // As `w` issues at `now` (before the issue changes any state): its cycles
  // since its previous issue, then the issue cycle. Inline: most issues
  // follow the warp's previous one at once.
  void attribute_stalls(const SubCore& sc, Warp& w, SmKernel& k, Cycle now) {
    if (now > w.stall_from) attribute_wait(sc, w, k, now);
    add_stall(k, Stall::Selected, 1);
    w.stall_from = now + 1;
    w.queue_full_mark = ldst_.full_cycles(now + 1);
    w.mio_full_mark = ldst_.mio_full_cycles(now + 1);
    w.barrier_open = 0;
    w.dep = RegDep{};
  }
  void attribute_wait(const SubCore& sc, const Warp& w, SmKernel& k, Cycle now);
  void attribute_drain(const Warp& w, SmKernel& k, Cycle now);
  Cycle attribute_throttle(const SubCore& sc, const Warp& w, SmKernel& k, Cycle from, Cycle now);
  void add_stall(SmKernel& k, Stall r, Cycle n) {
    k.work[id_].stalls[static_cast<size_t>(r)] += n;
    stall_counters_[static_cast<size_t>(r)]->inc(n);
  }

  const ClockDomain& clock_;
  uint16_t id_;
  std::unique_ptr<L1D> l1_;
  LdstUnit ldst_;
  FetchUnit fetch_;
  std::vector<SubCore> subcores_;
  std::vector<Warp> warps_;
  std::vector<std::pair<Cycle, uint32_t>> refetch_;  // barrier release: (issued, slot) to fetch for
  std::vector<CtaSlot> ctas_;
  std::vector<UnitSpec> unit_specs_;
  SmKernel own_;  // begin_kernel's kernel
  CtaNeeds capacity_, used_;  // resources of the SM, and those resident CTAs hold
  uint32_t max_ctas_ = 0;
  uint32_t carveout_kb_ = 0, l1_kb_ = 0;  // the shared-memory carve-out in force, and the L1 left
  uint32_t live_ctas_ = 0;
  struct Reserved {
    Cycle at;
    std::unique_ptr<ir::CtaSource> source;
    SmKernel* kernel;
  };
  std::vector<Reserved> reserved_;  // in launch order (cycles never decrease)
  size_t reserved_next_ = 0;        // the first not yet launched
  CtaNeeds reserved_needs_;         // what the CTAs not yet launched will hold
  bool keep_finished_ = false;
  std::vector<std::unique_ptr<ir::CtaSource>> finished_;
  FenceLatencies fence_;
  // The SM's barrier unit: cycles per warp arrival (shared by all its CTAs)
  // and from a barrier's last arrival to its warps' next issue.
  Cycle barrier_arrival_cycles_ = 0, barrier_release_cycles_ = 0;
  Cycle lsu_issue_interval_ = 1, ldc_issue_interval_ = 1;
  Cycle lsu_operand_latency_ = 0;  // core.lsu_operand_latency
  int16_t shuffle_unit_ = -1;      // the "mio" unit's kind (shuffles read their operands as the LD/ST unit does)
  uint8_t cross_pipe_cycles_ = 0;  // core.cross_pipe_cycles
  std::vector<bool> alu_pipe_unit_;  // per unit kind: sp or int, whose results forward within the ALU/FMA pipes
  // The pipe the warp's instruction executes in, for core.cross_pipe_cycles
  // (kNoPipe when that is off or the instruction is on another unit).
  uint8_t pipe_of(const Warp& w) const {
    if (cross_pipe_cycles_ == 0) return kNoPipe;
    int16_t kind = w.unit_of[w.inst.unit];
    if (kind < 0 || static_cast<size_t>(kind) >= alu_pipe_unit_.size() || !alu_pipe_unit_[kind]) return kNoPipe;
    return w.inst.fma_pipe ? kFmaPipe : kAluPipe;
  }
  // Whether the warp's instruction reads its registers as an LD/ST-unit one
  // (core.lsu_operand_latency): a memory access but a constant load, a shuffle.
  bool lsu_reader(const Warp& w) const {
    if (lsu_operand_latency_ == 0) return false;
    return spaced_access(w.inst) || (shuffle_unit_ >= 0 && w.unit_of[w.inst.unit] == shuffle_unit_);
  }
  Cycle branch_predicate_latency_ = 0, branch_resolve_cycles_ = 1;
  // A memory instruction that core.lsu_issue_interval spaces: any but a
  // constant load (LDC has a path and spacing of its own in ptxas's code).
  static bool spaced_access(const ir::WarpInst& in) { return in.is_memory() && in.space != ir::MemSpace::Const; }
  // A constant load, which core.ldc_issue_interval spaces from the last.
  static bool constant_access(const ir::WarpInst& in) { return in.is_memory() && in.space == ir::MemSpace::Const; }
  Cycle barrier_unit_free_ = 0;
  uint64_t warp_age_ = 0;
  Tick next_tick_ = kNever;
  uint32_t first_subcore_ = 0;  // scans first: the one after the last to take MIO queue room
  Cycle last_account_ = 0;
  uint32_t live_warps_ = 0;
  bool ldst_waiters_ = false;  // some sub-core waits for LD/ST queue room
  stats::Counter &warp_insts_, &thread_insts_, &ctas_done_, &active_cycles_, &warp_cycles_;
  stats::Counter &bank_conflict_cycles_, &operand_wait_cycles_;
  bool stall_reasons_ = false;
  std::vector<RegSource> unit_source_;  // per pipeline kind: what its results count as
  std::array<stats::Counter*, kStallReasons> stall_counters_{};
};

}  // namespace ws::timing
