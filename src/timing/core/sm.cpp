#include "timing/core/sm.h"

#include <algorithm>
#include <bit>

#include <fmt/format.h>

#include "common/error.h"

namespace ws::timing {

namespace {
const config::Param<int64_t> kSubcores{"core.subcores", 4, "", "sub-cores (warp schedulers) per SM", {1, 16}};
const config::Param<int64_t> kMaxWarps{"core.max_warps", 64, "warps", "resident warps per SM", {1, 256}};
const config::Param<std::string> kScheduler{"core.scheduler", "gto", "", "warp scheduler plug-in (lrr, gto)"};
// Barriers (docs/architecture.md, "Barriers"): measured on the H100 by
// ubench/clocks, a barrier costs about 13 + 2 x warps cycles, and two CTAs'
// barriers on one SM share the 2 cycles per arrival.
const config::Param<int64_t> kBarrierArrival{
    "core.barrier.arrival_cycles", 0, "cycles",
    "cycles the SM's barrier unit spends on each warp arriving at a CTA barrier (all the SM's CTAs share it)", {0, 64}};
const config::Param<int64_t> kBarrierRelease{
    "core.barrier.release_cycles", 0, "cycles",
    "cycles from the barrier unit taking a barrier's last arrival until its warps may issue again", {0, 1000}};
// ptxas puts at least 4 cycles between one warp's consecutive LD/ST-unit
// instructions (LDG, STG, LDS, STS, ATOM...) in the stall counts of its
// sm_75, sm_80 and sm_90 code (docs/architecture.md, "Memory issue
// spacing"); the warp does not issue before its stall count runs out.
const config::Param<int64_t> kLsuIssueInterval{
    "core.lsu_issue_interval", 1, "cycles",
    "cycles from one warp's global, local or shared memory instruction (or atomic) to its next one: the stall count "
    "ptxas gives such an instruction when another follows (1: back to back)",
    {1, 64}};
// ptxas's stall counts (scripts/sass-operand-latency.py): an LD/ST-unit
// instruction (LDG, STG, LDS, STS, ATOMS, RED, SHFL...) reads a fixed-latency
// instruction's result 8 cycles after it issued on sm_75 and 5 on sm_80 and
// sm_90, against 4 (or 5 across pipes) for an ALU reader.
const config::Param<int64_t> kLsuOperandLatency{
    "core.lsu_operand_latency", 0, "cycles",
    "cycles from a fixed-latency instruction's issue until an LD/ST-unit instruction (a global, local or shared "
    "access, an atomic, a shuffle) may read its result: ptxas's stall count for such a pair (0: the unit's latency, "
    "as for any reader)",
    {0, 64}};
// ptxas's stall counts (scripts/sass-operand-latency.py): a fixed-latency
// result is read 4 cycles after its producer issued within its pipe (FMA:
// FFMA, IMAD...; ALU: IADD3, LOP3, ISETP...) and 5 from the other pipe.
const config::Param<int64_t> kCrossPipeCycles{
    "core.cross_pipe_cycles", 0, "cycles",
    "cycles more than the unit's latency an ALU-pipe instruction waits for a result of the FMA pipe, and the other "
    "way round (the ISA tables' [fma_pipe] list; units sp and int)",
    {0, 16}};
const config::Param<int64_t> kLdcIssueInterval{
    "core.ldc_issue_interval", 1, "cycles",
    "cycles from one warp's constant-bank load (LDC: a kernel parameter, ld.const) to its next one: the stall count "
    "ptxas puts between two LDCs (1: back to back)",
    {1, 64}};
// ptxas's stall counts on sm_75 to sm_90 (docs/architecture.md, "Branches"):
// a branch (BRA, EXIT...) issues at least 12 (sm_75) or 13 cycles after the
// ISETP that sets its predicate, and the warp's next instruction at least 5
// cycles after the branch.
const config::Param<int64_t> kBranchPredicateLatency{
    "core.branch_predicate_latency", 0, "cycles",
    "cycles from an instruction that sets a predicate (ISETP, FSETP, PLOP3...) to a branch that may test it (BRA, "
    "EXIT...; the ISA tables' [branch_predicate] lists); 0: no wait",
    {0, 64}};
const config::Param<int64_t> kBranchResolve{
    "core.branch_resolve_cycles", 1, "cycles",
    "cycles from a branch's issue (a branch- or exit-kind instruction) to its warp's next issue (1: the next cycle)",
    {1, 64}};
}  // namespace

Sm::Sm(const config::Config& cfg, stats::Scope scope, const ClockDomain& core, uint16_t id)
    : clock_(core),
      id_(id),
      l1_(std::make_unique<L1D>(cfg, scope.sub("l1d"), core, id)),
      ldst_(cfg, scope.sub("ldst"), core, *l1_, id),
      fetch_(cfg, scope, core, id, static_cast<uint32_t>(kSubcores.get(cfg))),
      unit_specs_(read_unit_specs(cfg)),
      fence_(FenceLatencies::read(cfg)),
      barrier_arrival_cycles_(static_cast<Cycle>(kBarrierArrival.get(cfg))),
      barrier_release_cycles_(static_cast<Cycle>(kBarrierRelease.get(cfg))),
      lsu_issue_interval_(static_cast<Cycle>(kLsuIssueInterval.get(cfg))),
      ldc_issue_interval_(static_cast<Cycle>(kLdcIssueInterval.get(cfg))),
      lsu_operand_latency_(static_cast<Cycle>(kLsuOperandLatency.get(cfg))),
      cross_pipe_cycles_(static_cast<uint8_t>(kCrossPipeCycles.get(cfg))),
      branch_predicate_latency_(static_cast<Cycle>(kBranchPredicateLatency.get(cfg))),
      branch_resolve_cycles_(static_cast<Cycle>(kBranchResolve.get(cfg))),
      warp_insts_(scope.counter("warp_insts", "warp instructions issued")),
      thread_insts_(scope.counter("thread_insts", "thread instructions (active lanes) issued")),
      ctas_done_(scope.counter("ctas", "CTAs completed")),
      active_cycles_(scope.counter("active_cycles", "cycles with at least one resident CTA")),
      warp_cycles_(scope.counter("warp_cycles", "resident warps summed over cycles (occupancy integral)")),
      bank_conflict_cycles_(scope.counter("regfile.bank_conflict_cycles",
                                          "operand-read cycles beyond the first lost to an instruction's own register-bank conflicts")),
      operand_wait_cycles_(scope.counter("regfile.operand_wait_cycles",
                                         "cycles instructions waited past issue + 1 for their operands (own conflicts and banks busy with earlier reads)")) {
  uint32_t nsub = static_cast<uint32_t>(kSubcores.get(cfg));
  uint32_t max_warps = static_cast<uint32_t>(kMaxWarps.get(cfg));
  if (max_warps % nsub != 0 || max_warps / nsub > 64)
    throw ConfigError("core.max_warps", "must be a multiple of core.subcores with at most 64 warps per sub-core");
  warps_.resize(max_warps);
  ctas_.resize(max_warps);  // never more CTAs than warps
  // The residency limits (declared with the occupancy rules, timing/gpu/occupancy.cpp).
  max_ctas_ = static_cast<uint32_t>(cfg.get<int64_t>("core.max_ctas"));
  capacity_ = CtaNeeds{max_warps, static_cast<uint32_t>(cfg.get<int64_t>("core.max_threads")),
                       static_cast<uint32_t>(cfg.get<int64_t>("core.registers")), 0};
  std::string sched = kScheduler.get(cfg);
  RegFileSpec regfile = read_regfile_spec(cfg);
  for (uint32_t s = 0; s < nsub; ++s) {
    SubCore sc{SchedulerRegistry::instance().create(kScheduler.name(), sched, SchedulerArgs{max_warps / nsub}),
               UnitPool(unit_specs_), OperandCollector(regfile)};
    subcores_.push_back(std::move(sc));
  }
  init_stalls(cfg, scope);
  for (size_t k = 0; k < unit_specs_.size(); ++k) {
    if (unit_specs_[k].name == "mio") shuffle_unit_ = static_cast<int16_t>(k);
    alu_pipe_unit_.push_back(unit_specs_[k].name == "sp" || unit_specs_[k].name == "int");
  }
  track_events();
  l1_->done().wire_consumer(this);
  l1_->set_client(this);
}

void Sm::begin_kernel(const ir::KernelInfo& info, const std::vector<std::string>& unit_names, uint32_t ctas_per_sm,
                      Addr code_base) {
  own_.unit_of = map_units(info, unit_names);
  own_.code_base = code_base;
  own_.max_ctas_per_sm = ctas_per_sm;
  own_.needs = CtaNeeds{};  // the limit above alone decides
  own_.size_for(size_t{id_} + 1);
  prepare_alone(own_);
}

std::vector<int16_t> Sm::map_units(const ir::KernelInfo& info, const std::vector<std::string>& unit_names) const {
  std::vector<int16_t> unit_of(unit_names.size(), kLdstUnit);
  for (size_t u = 0; u < unit_names.size(); ++u) {
    if (unit_names[u] == "ldst") continue;
    int k = find_unit(unit_specs_, unit_names[u]);
    if (k < 0)
      throw ConfigError("core.units." + unit_names[u],
                        "the opcode table for sm_" + std::to_string(info.binary_version) + " uses unit '" +
                            unit_names[u] + "', which the GPU preset does not declare");
    unit_of[u] = static_cast<int16_t>(k);
  }
  return unit_of;
}

void Sm::prepare_alone(const SmKernel& k) {
  fetch_.begin_kernel(k.code_base);
  ldst_.begin_kernel();
  if (k.shared_kb == 0 && k.l1_kb == 0) return;
  carveout_kb_ = k.shared_kb;
  l1_kb_ = k.l1_kb;
  l1_->set_capacity_bytes(uint64_t{k.l1_kb} * 1024);
}

bool Sm::can_host(const SmKernel& k) const {
  uint32_t ctas = ctas_held();
  if (k.resident[id_] >= k.max_ctas_per_sm || ctas >= max_ctas_) return false;
  const CtaNeeds& n = k.needs;
  const CtaNeeds& r = reserved_needs_;
  if (used_.warps + r.warps + n.warps > capacity_.warps || used_.threads + r.threads + n.threads > capacity_.threads ||
      used_.registers + r.registers + n.registers > capacity_.registers)
    return false;
  // An empty SM takes the kernel's own carve-out (which holds one CTA).
  return ctas == 0 ||
         uint64_t{used_.shared_bytes} + r.shared_bytes + n.shared_bytes <= uint64_t{carveout_kb_} * 1024;
}

// The driver reconfigures an idle SM for the kernel that arrives.
void Sm::take_carveout(const SmKernel& k) {
  if ((k.shared_kb == carveout_kb_ && k.l1_kb == l1_kb_) || (k.shared_kb == 0 && k.l1_kb == 0)) return;
  carveout_kb_ = k.shared_kb;
  l1_kb_ = k.l1_kb;
  l1_->set_capacity_bytes(uint64_t{k.l1_kb} * 1024);
}

// The carve-out of a kernel arriving at an empty SM is set at once, so that
// later reservations are judged against it.
void Sm::reserve(Cycle at, std::unique_ptr<ir::CtaSource> cta, SmKernel& k) {
  if (ctas_held() == 0) take_carveout(k);
  ++k.resident[id_];
  reserved_needs_ += k.needs;
  reserved_.push_back(Reserved{at, std::move(cta), &k});
  wake();
}

void Sm::launch_reserved(Cycle now) {
  for (; reserved_next_ < reserved_.size() && reserved_[reserved_next_].at <= now; ++reserved_next_) {
    Reserved& r = reserved_[reserved_next_];
    reserved_needs_ -= r.kernel->needs;
    start_cta(std::move(r.source), *r.kernel);
  }
  if (reserved_next_ == reserved_.size()) {
    reserved_.clear();
    reserved_next_ = 0;
  }
}

// Residency between two events is constant, so cycles the SM was not ticked
// (activity gating) are accounted in one step.
void Sm::account_residency(Cycle now) {
  if (now <= last_account_) return;
  if (live_ctas_ > 0) active_cycles_.inc(now - last_account_);
  warp_cycles_.inc(uint64_t{live_warps_} * (now - last_account_));
  last_account_ = now;
}

void Sm::launch(std::unique_ptr<ir::CtaSource> source, SmKernel& k) {
  ++k.resident[id_];
  start_cta(std::move(source), k);
}

void Sm::start_cta(std::unique_ptr<ir::CtaSource> source, SmKernel& k) {
  wake();
  account_residency(clock_.now());
  if (live_ctas_ == 0) take_carveout(k);
  auto cta_it = std::find_if(ctas_.begin(), ctas_.end(), [](const CtaSlot& c) { return !c.live; });
  CtaSlot& cta = *cta_it;
  uint32_t cta_index = static_cast<uint32_t>(cta_it - ctas_.begin());
  cta.live = true;
  cta.num_warps = source->num_warps();
  cta.warps_done = cta.warps_at_barrier = 0;
  cta.last_arrival = 0;
  cta.warp_slots.clear();
  cta.source = std::move(source);
  cta.kernel = &k;
  for (uint32_t slot = 0, n = 0; n < cta.num_warps && slot < warps_.size(); ++slot) {
    if (warps_[slot].live) continue;
    Warp& w = warps_[slot];
    w.live = true;
    w.at_barrier = false;
    w.fetch_at_release = false;
    w.cta_slot = cta_index;
    w.warp_in_cta = n++;
    w.unit_of = k.unit_of.data();
    w.code_base = k.code_base;
    w.pending_loads = 0;
    w.busy_until = 0;
    w.shared_done = 0;
    w.lsu_next = w.ldc_next = 0;
    w.branch_ready = w.pred_ready = 0;
    w.wake_at = 0;
    w.scoreboard.clear();
    w.stall_from = clock_.now();
    w.queue_full_mark = ldst_.full_cycles(clock_.now());
    w.mio_full_mark = ldst_.mio_full_cycles(clock_.now());
    w.barrier_open = 0;
    w.dep = RegDep{};
    fetch(w, slot, clock_.now());
    cta.warp_slots.push_back(slot);
    ++live_warps_;
    SubCore& sc = subcores_[subcore_of(slot)];
    sc.collector.forget_warp(slot);
    sc.live |= uint64_t{1} << local_of(slot);
    sc.next_scan = 0;
    sc.scheduler->on_warp_added(local_of(slot), warp_age_++);
  }
  if (cta.warp_slots.size() != cta.num_warps) throw Error("internal: CTA launched without enough warp slots");
  ++live_ctas_;
  used_ += k.needs;
  next_tick_ = clock_.tick_of(clock_.now());
}

bool Sm::can_issue(const SubCore& sc, Warp& w, Cycle now, Cycle& wake) const {
  const ir::WarpInst& in = w.inst;
  Cycle held = std::max({w.busy_until, w.fetch_ready, w.branch_ready, in.tests_branch_pred ? w.pred_ready : 0,
                         spaced_access(in) ? w.lsu_next : 0, constant_access(in) ? w.ldc_next : 0});
  if (held > now) {
    wake = held;
    return false;
  }
  if (!w.regs_ready(in, now, wake, RegReader{lsu_reader(w), pipe_of(w)})) return false;
  bool reads_regs = in.kind != ir::OpKind::Barrier && in.kind != ir::OpKind::MemBar;
  if (reads_regs && sc.collector.enabled() && !sc.collector.has_unit(now, wake)) return false;
  switch (in.kind) {
    case ir::OpKind::Load:
    case ir::OpKind::Store:
    case ir::OpKind::Atomic:
      return true;
    case ir::OpKind::Barrier:
    case ir::OpKind::MemBar:
      return true;
    default: {
      int16_t kind = w.unit_of[in.unit];
      if (kind == kLdstUnit) return true;  // e.g. LDC without addresses: fixed latency
      if (sc.units.free_pipe(static_cast<uint32_t>(kind), now) >= 0) return true;
      // The pipeline is needed once the operands are read: a busy one may
      // have freed by then.
      wake = sc.units.next_free(static_cast<uint32_t>(kind));
      if (sc.collector.enabled()) {
        Cycle start = sc.collector.plan(in, static_cast<uint32_t>(&w - warps_.data()), now, w.src_banks).dispatch - 1;
        if (start >= wake) return true;
        wake = std::max(now + 1, wake - (start - now));  // a guess: the probe then checks again
      }
      return false;
    }
  }
}

// Tests one warp for issue on behalf of the scheduler; a warp that cannot
// issue records when it may (or sleeps until an event wakes it).
class Sm::ReadyProbe final : public ReadyTest {
 public:
  ReadyProbe(Sm& sm, uint32_t s, Cycle now) : sm_(sm), s_(s), now_(now) {}
  Cycle sub_wake = kPending;  // earliest wake of the warps found not ready

  bool operator()(uint32_t local) override {
    SubCore& sc = sm_.subcores_[s_];
    Warp& w = sm_.warps_[local * sm_.subcores_.size() + s_];
    if (w.at_barrier) return false;
    if (w.wake_at > now_) {
      if (w.wake_at < kPending) sub_wake = std::min(sub_wake, w.wake_at);
      return false;
    }
    Cycle w_wake = kPending;
    if (sm_.can_issue(sc, w, now_, w_wake)) return true;
    w.wake_at = w_wake;
    if (w_wake == kPending) sc.sleeping |= uint64_t{1} << local;
    else sub_wake = std::min(sub_wake, w_wake);
    return false;
  }

 private:
  Sm& sm_;
  uint32_t s_;
  Cycle now_;
};

// Warps whose stream ended finish once every result is written.
void Sm::retire_ended(uint32_t s, uint64_t ended, Cycle now, Cycle& sub_wake) {
  SubCore& sc = subcores_[s];
  uint32_t nsub = static_cast<uint32_t>(subcores_.size());
  for (uint64_t m = ended; m; m &= m - 1) {
    uint32_t local = static_cast<uint32_t>(std::countr_zero(m));
    uint32_t slot = local * nsub + s;
    Warp& w = warps_[slot];
    if (w.at_barrier) continue;
    if (w.pending_loads > 0) {
      sc.sleeping |= uint64_t{1} << local;
    } else if (Cycle done = std::max(w.scoreboard.all_done(now), w.shared_done); done > now) {
      w.wake_at = done;
      sub_wake = std::min(sub_wake, done);
    } else {
      finish_warp(slot);
    }
  }
}

// The warps awake when the scan starts are its candidates; the scheduler tests
// them in priority order until one can issue.
bool Sm::issue_subcore(uint32_t s, Cycle now, Cycle& wake) {
  SubCore& sc = subcores_[s];
  if (now < sc.next_scan) {
    if (sc.next_scan < kPending) wake = std::min(wake, sc.next_scan);
    return false;
  }
  uint64_t awake = sc.live & ~sc.sleeping;
  ReadyProbe probe(*this, s, now);
  uint64_t ended = awake & sc.ended;  // (retiring clears their bits)
  if (ended) retire_ended(s, ended, now, probe.sub_wake);
  // A retiring warp may have opened a barrier that warps of this sub-core
  // wait at: they are not among this scan's candidates, so scan again next cycle.
  if (sc.live & ~sc.sleeping & ~awake) probe.sub_wake = std::min(probe.sub_wake, now + 1);
  uint64_t candidates = awake & ~ended;
  // A full LD/ST queue holds every local/global instruction (not shared or
  // constant ones): those warps are not tested, and the sub-core rescans
  // once the queue has room.
  if ((candidates & sc.lg_next) && !ldst_.can_accept()) {
    candidates &= ~sc.lg_next;
    sc.ldst_blocked = ldst_waiters_ = true;
  }
  // A full MIO queue holds shared-memory instructions until the next one's
  // turn in the shared-memory pipe comes.
  if ((candidates & sc.mio_next) && !ldst_.mio_can_accept()) {
    candidates &= ~sc.mio_next;
    probe.sub_wake = std::min(probe.sub_wake, ldst_.mio_room_at());
  }
  int local = sc.scheduler->pick_first(candidates, probe);
  if (local < 0) {
    sc.next_scan = probe.sub_wake;
    wake = std::min(wake, probe.sub_wake);
    return false;
  }
  uint32_t slot = static_cast<uint32_t>(local) * static_cast<uint32_t>(subcores_.size()) + s;
  if (warps_[slot].inst.uses_mio_queue())
    first_subcore_ = (s + 1) % static_cast<uint32_t>(subcores_.size());
  issue(sc, slot, now);
  sc.next_scan = now + 1;
  return true;
}

void Sm::issue(SubCore& sc, uint32_t slot, Cycle now) {
  Warp& w = warps_[slot];
  const ir::WarpInst& in = w.inst;
  warp_insts_.inc();
  thread_insts_.inc(in.active_count());
  SmKernel& k = *ctas_[w.cta_slot].kernel;
  SmWork& kw = k.work[id_];
  ++kw.warp_insts;
  kw.thread_insts += in.active_count();
  if (stall_reasons_) attribute_stalls(sc, w, k, now);
  if (in.sets_branch_pred) w.pred_ready = now + branch_predicate_latency_;
  if (in.kind == ir::OpKind::Branch || in.kind == ir::OpKind::Exit) w.branch_ready = now + branch_resolve_cycles_;
  switch (in.kind) {
    case ir::OpKind::Load:
    case ir::OpKind::Store:
    case ir::OpKind::Atomic:
      // Their reads occupy the banks and a collector unit; the LD/ST unit
      // still takes them now (a cycle or two against its own latencies).
      collect_operands(sc, slot, now);
      if (spaced_access(in)) w.lsu_next = now + lsu_issue_interval_;
      if (constant_access(in)) w.ldc_next = now + ldc_issue_interval_;
      ldst_.issue(w, slot, in, now);
      break;
    case ir::OpKind::MemBar:
      w.busy_until = now + fence_.hold(in);
      break;
    case ir::OpKind::Barrier:
      if (in.active_mask) {
        // The next instruction is asked for when the barrier opens: an
        // execution-driven source then computes it (a %clock read) at
        // that time, not before the other warps have arrived.
        w.fetch_at_release = true;
        w.barrier_issued = now;
        arrive_at_barrier(ctas_[w.cta_slot], w);
        return;
      }
      break;
    default: {
      Cycle dispatch = collect_operands(sc, slot, now);
      int16_t kind = w.unit_of[in.unit];
      if (kind == kLdstUnit) {
        ldst_.issue(w, slot, in, now);
        break;
      }
      // The pipeline starts the instruction once its operands are read.
      int pipe = sc.units.free_pipe(static_cast<uint32_t>(kind), dispatch);
      Cycle done = sc.units.issue(static_cast<uint32_t>(kind), pipe, dispatch, in.tensor_work);
      // A fixed-latency result: an LD/ST-unit reader takes it lsu_operand_latency after issue at the earliest.
      RegSource source = unit_source_[static_cast<size_t>(kind)];
      Cycle lsu_ready = now + lsu_operand_latency_;
      uint8_t lsu_extra = 0;
      if (source == RegSource::Fixed && lsu_ready > done)
        lsu_extra = static_cast<uint8_t>(std::min<Cycle>(255, lsu_ready - done));
      w.write_dsts(in, done, source, lsu_extra, pipe_of(w), cross_pipe_cycles_);
    }
  }
  next_inst(w, now);
}

// The cycle the instruction enters its pipeline: `now` unless register-bank
// conflicts (its own or earlier instructions' reads) delay it.
Cycle Sm::collect_operands(SubCore& sc, uint32_t slot, Cycle now) {
  if (!sc.collector.enabled()) return now;
  const Warp& w = warps_[slot];
  OperandCollector::Collected c = sc.collector.collect(w.inst, slot, now, w.src_banks);
  if (c.dispatch > now + 1) {
    bank_conflict_cycles_.inc(c.conflicts);
    operand_wait_cycles_.inc(c.dispatch - (now + 1));
  }
  return c.dispatch - 1;
}

void Sm::next_inst(Warp& w, Cycle now) { fetch(w, static_cast<uint32_t>(&w - warps_.data()), now); }

// The warp's next instruction from its CTA's stream; a warp whose stream has
// ended is marked so that scans retire it.
void Sm::fetch(Warp& w, uint32_t slot, Cycle now) {
  SubCore& sc = subcores_[subcore_of(slot)];
  uint64_t bit = uint64_t{1} << local_of(slot);
  sc.lg_next &= ~bit;
  sc.mio_next &= ~bit;
  if (!ctas_[w.cta_slot].source->next_into(w.warp_in_cta, w.inst)) {
    sc.ended |= bit;
    return;
  }
  // The coalescer reads the lane addresses at issue, cycles from now: start
  // bringing them into the host's caches (32 x 8 B, four lines).
  if (w.inst.addrs)
    for (int line = 0; line < 4; ++line) __builtin_prefetch(reinterpret_cast<const char*>(w.inst.addrs) + 64 * line);
  w.fetch_ready = fetch_.fetch_at(subcore_of(slot), slot, w.code_base + w.inst.pc, now);
  if (sc.collector.enabled()) w.src_banks = sc.collector.raw_counts(w.inst);
  if (w.inst.uses_lg_queue()) sc.lg_next |= bit;
  if (w.inst.uses_mio_queue()) sc.mio_next |= bit;
}

void Sm::arrive_at_barrier(CtaSlot& cta, Warp& w) {
  w.at_barrier = true;
  ++cta.warps_at_barrier;
  Cycle now = clock_.now();
  barrier_unit_free_ = std::max(barrier_unit_free_, now) + barrier_arrival_cycles_;
  cta.last_arrival = barrier_unit_free_;
  set_sleeping(static_cast<uint32_t>(&w - warps_.data()), true);
  release_barrier_if_complete(cta);
}

void Sm::release_barrier_if_complete(CtaSlot& cta) {
  if (cta.warps_at_barrier == 0 || cta.warps_at_barrier < cta.num_warps - cta.warps_done) return;
  cta.warps_at_barrier = 0;
  refetch_.clear();
  // Its warps go on once the unit has taken the last arrival and released them.
  Cycle open = std::max(clock_.now(), cta.last_arrival) + barrier_release_cycles_;
  for (uint32_t slot : cta.warp_slots) {
    Warp& w = warps_[slot];
    w.at_barrier = false;
    w.barrier_open = open;
    w.busy_until = std::max(w.busy_until, open);
    set_sleeping(slot, false);
    if (w.fetch_at_release) refetch_.push_back({w.barrier_issued, slot});
    w.fetch_at_release = false;
  }
  // Each fetch is looked up as of when its barrier issued (an instruction
  // buffer fills while the warp waits), in that order: a line found in the
  // L0/L1I counts from then; one still to be read from the L2 is sent now.
  std::sort(refetch_.begin(), refetch_.end());
  for (auto [issued, slot] : refetch_) fetch(warps_[slot], slot, issued);
}

void Sm::finish_warp(uint32_t slot) {
  Warp& w = warps_[slot];
  if (stall_reasons_) attribute_drain(w, *ctas_[w.cta_slot].kernel, clock_.now());
  w.live = false;
  --live_warps_;
  subcores_[subcore_of(slot)].live &= ~(uint64_t{1} << local_of(slot));
  subcores_[subcore_of(slot)].ended &= ~(uint64_t{1} << local_of(slot));
  set_sleeping(slot, false);
  CtaSlot& cta = ctas_[w.cta_slot];
  if (++cta.warps_done < cta.num_warps) {
    release_barrier_if_complete(cta);
    return;
  }
  cta.live = false;
  if (keep_finished_) finished_.push_back(std::move(cta.source));
  cta.source.reset();  // frees the CTA's instructions
  --live_ctas_;
  ctas_done_.inc();
  SmKernel& k = *cta.kernel;
  --k.resident[id_];
  ++k.work[id_].ctas_done;
  used_ -= k.needs;
}

void Sm::tick() {
  Cycle now = clock_.now();
  if (reserved_next_ < reserved_.size()) launch_reserved(now);
  account_residency(now);
  ldst_.tick(now, warps_);
  ldst_.mio_advance(now);
  for (uint32_t slot : ldst_.woken()) set_sleeping(slot, false);
  ldst_.woken().clear();
  take_fetched_lines(now);
  if (ldst_waiters_ && ldst_.can_accept()) wake_ldst_waiters();
  bool issued = false;
  Cycle wake = kPending;
  // The sub-cores scan in turn from the one after the last to take room in
  // the MIO queue (round-robin arbitration of that room): a fixed order gave
  // sub-core 0 every slot a full queue opened, and starved the others. (The
  // same turn for the LG queue's room made the H100 suite's cycle error
  // worse, 6.00 -> 6.36%: docs/validation-h100.md.)
  auto nsub = static_cast<uint32_t>(subcores_.size());
  uint32_t first = first_subcore_;
  for (uint32_t i = 0; i < nsub; ++i) issued |= issue_subcore((first + i) % nsub, now, wake);
  // A sub-core woken after its own scan in this tick (a warp of a later
  // sub-core retired and so opened a barrier its warps wait at) scans next
  // cycle; nothing else would tick the SM for it.
  for (const SubCore& sc : subcores_)
    if (sc.next_scan == 0 && (sc.live & ~sc.sleeping)) wake = std::min(wake, now + 1);
  if (issued) {
    next_tick_ = clock_.tick_of(now + 1);
  } else if (live_ctas_ == 0 || wake == kPending) {
    next_tick_ = kNever;  // woken by a launch or by an L1 completion
  } else {
    next_tick_ = clock_.tick_of(std::max(wake, now + 1));
  }
}

// Warps whose instruction line has arrived may issue from its ready cycle.
void Sm::take_fetched_lines(Cycle now) {
  fetch_.tick(now);
  for (const FetchUnit::Wake& f : fetch_.woken()) {
    Warp& w = warps_[f.slot];
    w.fetch_ready = f.ready;
    w.wake_at = 0;
    if (!w.at_barrier) set_sleeping(f.slot, false);
  }
  fetch_.woken().clear();
}

void Sm::set_sleeping(uint32_t slot, bool asleep) {
  SubCore& sc = subcores_[subcore_of(slot)];
  uint64_t bit = uint64_t{1} << local_of(slot);
  sc.sleeping = asleep ? sc.sleeping | bit : sc.sleeping & ~bit;
  if (!asleep) sc.next_scan = 0;
}

void Sm::wake_ldst_waiters() {
  for (SubCore& sc : subcores_) {
    if (sc.ldst_blocked) sc.next_scan = 0;
    sc.ldst_blocked = false;
  }
  ldst_waiters_ = false;
}

// Counts the live warps by what holds them.
std::string Sm::waiting_for() const {
  if (live_warps_ == 0) return {};
  uint32_t barrier = 0, loads = 0, fetch = 0, other = 0;
  Cycle now = clock_.now();
  for (const Warp& w : warps_) {
    if (!w.live) continue;
    if (w.at_barrier) ++barrier;
    else if (w.pending_loads > 0) ++loads;
    else if (w.fetch_ready > now) ++fetch;
    else ++other;
  }
  return fmt::format("{} live warps in {} CTAs: {} at a barrier, {} for memory replies, {} for instruction lines, "
                     "{} otherwise; LD/ST queue {}",
                     live_warps_, live_ctas_, barrier, loads, fetch, other, ldst_.busy() ? "holds work" : "empty");
}

Tick Sm::next_event() const {
  Tick t = std::min({next_tick_, ldst_.next_completion(clock_.now_tick()), fetch_.next_event(clock_.now_tick())});
  if (reserved_next_ < reserved_.size()) t = std::min(t, clock_.tick_of(reserved_[reserved_next_].at));
  if (ldst_.busy() && !l1_->stalled()) t = std::min(t, clock_.now_tick());  // as soon as possible
  return t;
}

}  // namespace ws::timing
