#include "timing/abstract/abstract_sm.h"

#include <algorithm>
#include <bit>
#include <cmath>

#include "common/error.h"
#include "config/param.h"
#include "timing/abstract/memory_model.h"
#include "timing/mem/mem_request.h"

namespace ws::timing::abstract {

namespace {
const config::Param<int64_t> kBlockMax{"abstract.block_max", 64, "instructions",
                                       "longest block the abstract model takes as one event (1: one event per "
                                       "instruction)",
                                       {1, 1024}};

// A block ends after control flow, a barrier or fence, or a memory access
// (whose lane addresses the source keeps only until the warp's next read).
bool ends_block(const ir::WarpInst& in) { return in.kind != ir::OpKind::Alu; }
}  // namespace

AbstractSm::AbstractSm(const config::Config& cfg, stats::Scope scope, uint32_t id, MemoryModel& mem,
                       BlockTable& blocks)
    : id_(id),
      mem_(mem),
      ifetch_(cfg, id, static_cast<uint32_t>(cfg.get<int64_t>("core.subcores")), mem),
      blocks_(blocks),
      block_max_(static_cast<uint32_t>(kBlockMax.get(cfg))),
      scratch_(block_max_),
      scratch_units_(block_max_),
      unit_specs_(read_unit_specs(cfg)),
      scheduler_name_(cfg.get<std::string>("core.scheduler")),
      max_warps_(static_cast<uint32_t>(cfg.get<int64_t>("core.max_warps"))),
      const_latency_(static_cast<Cycle>(cfg.get<int64_t>("core.const_latency"))),
      store_drain_(static_cast<Cycle>(cfg.get<int64_t>("core.store_drain_latency"))),
      fence_(FenceLatencies::read(cfg)),
      barrier_arrival_cycles_(static_cast<Cycle>(cfg.get<int64_t>("core.barrier.arrival_cycles"))),
      barrier_release_cycles_(static_cast<Cycle>(cfg.get<int64_t>("core.barrier.release_cycles"))),
      warp_insts_(scope.counter("warp_insts", "warp instructions issued")),
      thread_insts_(scope.counter("thread_insts", "thread instructions (active lanes) issued")),
      ctas_done_(scope.counter("ctas", "CTAs completed")),
      active_cycles_(scope.counter("active_cycles", "cycles with at least one resident CTA")),
      warp_cycles_(scope.counter("warp_cycles", "resident warps summed over cycles (occupancy integral)")) {
  auto n = static_cast<uint32_t>(cfg.get<int64_t>("core.subcores"));
  if (max_warps_ % n != 0 || max_warps_ / n > 64)
    throw ConfigError("core.max_warps", "must be a multiple of core.subcores, at most 64 per sub-core");
  SchedulerArgs args{max_warps_ / n};
  RegFileSpec regfile = read_regfile_spec(cfg);
  collector_units_ = std::max<uint32_t>(1, regfile.units);
  for (uint32_t s = 0; s < n; ++s)
    subcores_.push_back(SubCore{SchedulerRegistry::instance().create("core.scheduler", scheduler_name_, args),
                                UnitPool(unit_specs_), 0, 0, {}, std::vector<FluidQueue>(unit_specs_.size()),
                                OperandCollector(regfile)});
  warps_.resize(max_warps_);
}

AbstractSm::~AbstractSm() = default;

void AbstractSm::begin_kernel(const std::vector<std::string>& unit_names, uint32_t ctas_per_sm, Addr code_base) {
  ctas_per_sm_ = ctas_per_sm;
  ifetch_.begin_kernel(code_base);
  ctas_.clear();
  ctas_.resize(ctas_per_sm);
  unit_of_.assign(unit_names.size(), kLdstUnit);
  for (size_t u = 0; u < unit_names.size(); ++u) {
    if (unit_names[u] == "ldst") continue;
    int k = find_unit(unit_specs_, unit_names[u]);
    if (k < 0)
      throw ConfigError("core.units." + unit_names[u], "the kernel uses execution unit '" + unit_names[u] +
                                                           "', which the GPU preset does not declare");
    unit_of_[u] = static_cast<int16_t>(k);
  }
}

void AbstractSm::account(Cycle now) {
  if (now <= accounted_) return;
  if (live_ctas_ > 0) active_cycles_.inc(now - accounted_);
  warp_cycles_.inc(uint64_t{live_warps_} * (now - accounted_));
  accounted_ = now;
}

void AbstractSm::launch(std::unique_ptr<ir::CtaSource> source, Cycle now) {
  account(now);
  auto slot_it = std::find_if(ctas_.begin(), ctas_.end(), [](const Cta& c) { return !c.source; });
  if (slot_it == ctas_.end()) throw Error("internal: abstract SM launched a CTA without a free slot");
  Cta& cta = *slot_it;
  cta = Cta{std::move(source), {}, 0, 0};
  uint32_t n = cta.source->num_warps();
  for (uint32_t slot = 0; slot < max_warps_ && cta.slots.size() < n; ++slot) {
    Warp& w = warps_[slot];
    if (w.live) continue;
    w.live = true;
    w.ended = w.at_barrier = false;
    w.stores_done = 0;
    w.cta = static_cast<uint32_t>(slot_it - ctas_.begin());
    w.in_cta = static_cast<uint32_t>(cta.slots.size());
    w.regs.clear();
    w.line = ~Addr{0};
    cta.slots.push_back(slot);
    SubCore& sc = subcores_[subcore_of(slot)];
    sc.live |= uint64_t{1} << local_of(slot);
    sc.scheduler->on_warp_added(local_of(slot), age_++);
    sc.collector.forget_warp(slot);
    next_block(w, now);
    mark(slot);
  }
  if (cta.slots.size() != n) throw Error("internal: abstract SM launched a CTA without enough warp slots");
  ++live_ctas_;
  live_warps_ += n;
}

// The warp's next block. A one-instruction block waits for its operands (and
// earlier writes of its destinations) as the scoreboard says; a longer one
// goes through take_body().
void AbstractSm::next_block(Warp& w, Cycle now, Cycle floor) {
  Cta& cta = ctas_[w.cta];
  uint32_t n = 0;
  while (n < block_max_ && cta.source->next_into(w.in_cta, scratch_[n]))
    if (ends_block(scratch_[n++])) break;
  if (n == 0) {
    w.ended = true;
    w.ready = std::max({now, floor, w.regs.all_done(now), w.stores_done});
    return;
  }
  Cycle t0 = std::max(now, floor);
  if (n > 1) return take_body(w, n, t0);
  w.inst = scratch_[0];
  const ir::WarpInst& in = w.inst;
  w.ready = std::max(t0, w.regs.ready_at(in.src.data(), in.n_src, in.dst.data(), in.n_dst, now));
  w.ready = std::max(w.ready, line_ready(w, in.pc, now));
}

// When the code line of `pc` is in the warp's sub-core (now when it is the
// line the warp read last).
Cycle AbstractSm::line_ready(Warp& w, uint64_t pc, Cycle now) {
  Addr line = pc / kLineBytes;  // (the code base is line-aligned)
  if (line == w.line) return now;
  w.line = line;
  return ifetch_.fetch(subcore_of(static_cast<uint32_t>(&w - warps_.data())), pc, now);
}

// The block's entry gives each instruction's offset from the block's start
// with its operands ready; the start is the earliest that every operand from
// outside the block and every code line allows (the whole block moves, a
// simplification), then later by the sub-core's backlog: the body's issue
// slots and unit time queue behind what other warps' bodies booked, and the
// block's last instruction issues no earlier than that queue drains.
void AbstractSm::take_body(Warp& w, uint32_t n, Cycle t0) {
  Cycle now = t0;
  uint64_t key = kBlockHashSeed;
  for (uint32_t i = 0; i < n; ++i) {
    scratch_units_[i] = unit_of_[scratch_[i].unit];
    key = mix_inst(key, scratch_[i], scratch_units_[i]);
  }
  const BlockTiming& b = blocks_.get(key, scratch_.data(), scratch_units_.data(), n);
  for (const RegAt& r : b.needs)
    if (Cycle at = w.regs.ready_at(&r.reg, 1, now); at > t0 + r.at) t0 = at - r.at;
  // The block's code lines are asked for now, in time order with every other
  // request to the memory model (asking at each line's later issue time made
  // early askers wait for fills booked ahead of them).
  for (uint32_t i = 0; i < n; ++i)
    if (Cycle at = line_ready(w, scratch_[i].pc, now); at > t0 + b.issue[i]) t0 = at - b.issue[i];
  uint64_t lanes = 0;
  for (uint32_t i = 0; i + 1 < n; ++i) lanes += scratch_[i].active_count();
  warp_insts_.inc(n - 1);
  thread_insts_.inc(lanes);
  SubCore& sc = subcores_[subcore_of(static_cast<uint32_t>(&w - warps_.data()))];
  Cycle base = t0 + b.last();
  auto start = static_cast<double>(t0);
  // With the register-bank model the body's operand reads also hold the
  // sub-core's collector units (an instruction at a time in each).
  double slots = std::max<double>(n - 1, static_cast<double>(b.collect) / collector_units_);
  double end = std::max(static_cast<double>(base), sc.issue_slots.book(start, slots));
  for (const UnitDemand& d : b.demand)
    end = std::max(end, sc.unit_time[d.kind].book(start, static_cast<double>(d.busy) / unit_specs_[d.kind].count));
  Cycle shift = static_cast<Cycle>(std::ceil(end)) - base;
  for (const RegAt& r : b.writes) w.regs.set(r.reg, t0 + shift + r.at);
  w.inst = scratch_[n - 1];
  w.ready = base + shift;
}

double AbstractSm::FluidQueue::book(double at, double len) {
  if (at >= free) {
    from = at;
    return free = at + len;
  }
  if (at >= from) return free += len;
  if (at + len > from) {  // overlaps the interval: one longer interval
    free += at + len - from;
    from = at;
  }
  return at + len;
}

Cycle AbstractSm::issue_time(const SubCore& sc, const Warp& w) const {
  if (w.ended) return w.ready;
  if (w.inst.kind == ir::OpKind::Barrier || w.inst.kind == ir::OpKind::MemBar) return w.ready;
  // Every other instruction needs a collector unit for its operand reads.
  Cycle t = sc.collector.enabled() ? std::max(w.ready, sc.collector.unit_free()) : w.ready;
  if (w.inst.is_memory()) return std::max(t, w.inst.uses_lg_queue() ? ldst_free_ : mio_free_);
  int16_t kind = unit_of_[w.inst.unit];
  if (kind == kLdstUnit) return t;
  // Its pipelines may also be taken by what bodies booked on the unit kind.
  auto k = static_cast<uint32_t>(kind);
  return std::max({t, sc.units.next_free(k), static_cast<Cycle>(std::ceil(sc.unit_time[k].free))});
}

// Books the instruction's operand reads; the cycle it enters its pipeline
// (`now` without bank conflicts: the unit latencies include one read cycle).
Cycle AbstractSm::collect(SubCore& sc, const Warp& w, Cycle now) {
  if (!sc.collector.enabled()) return now;
  Cycle dispatch = sc.collector.collect(w.inst, static_cast<uint32_t>(&w - warps_.data()), now).dispatch - 1;
  if (dispatch > now) sc.issue_slots.book(static_cast<double>(now + 1), static_cast<double>(dispatch - now) / collector_units_);
  return dispatch;
}

class AbstractSm::Probe final : public ReadyTest {
 public:
  Probe(const AbstractSm& sm, uint32_t s, Cycle now) : sm_(sm), s_(s), now_(now) {}
  bool operator()(uint32_t local) override {
    return sm_.issue_time(sm_.subcores_[s_], sm_.warp(s_, local)) <= now_;
  }

 private:
  const AbstractSm& sm_;
  uint32_t s_;
  Cycle now_;
};

Cycle AbstractSm::next_time(uint32_t s) const {
  const SubCore& sc = subcores_[s];
  Cycle best = kNoEvent;
  for (uint64_t m = sc.live; m; m &= m - 1) {
    const Warp& w = warp(s, static_cast<uint32_t>(std::countr_zero(m)));
    if (!w.at_barrier) best = std::min(best, issue_time(sc, w));
  }
  return best == kNoEvent ? best : std::max(best, sc.next_issue);
}

void AbstractSm::step(uint32_t s, Cycle now) {
  SubCore& sc = subcores_[s];
  if (now < sc.next_issue) return;
  uint64_t candidates = 0;
  for (uint64_t m = sc.live; m; m &= m - 1) {
    auto local = static_cast<uint32_t>(std::countr_zero(m));
    Warp& w = warp(s, local);
    if (w.at_barrier) continue;
    if (w.ended) {
      if (w.ready <= now) retire(local * subcores() + s, now);
      continue;
    }
    candidates |= uint64_t{1} << local;
  }
  Probe probe(*this, s, now);
  int local = candidates ? sc.scheduler->pick_first(candidates, probe) : -1;
  if (local < 0) return;
  issue(sc, warp(s, static_cast<uint32_t>(local)), now);
  sc.next_issue = now + 1;
  sc.issue_slots.book(static_cast<double>(now), 1);
}

void AbstractSm::issue(SubCore& sc, Warp& w, Cycle now) {
  const ir::WarpInst& in = w.inst;
  warp_insts_.inc();
  thread_insts_.inc(in.active_count());
  Cycle done = now;
  switch (in.kind) {
    case ir::OpKind::Load:
    case ir::OpKind::Store:
    case ir::OpKind::Atomic: {
      collect(sc, w, now);
      MemTiming t = mem_.access(id_, in, now);
      (in.uses_lg_queue() ? ldst_free_ : mio_free_) = now + t.ldst_cycles;
      done = in.kind == ir::OpKind::Store ? now : t.done;
      // The L1 takes the store the next cycle (as the detailed LD/ST unit's queue does when empty).
      if (in.kind == ir::OpKind::Store && store_drain_ > 0 && in.active_mask)
        w.stores_done = std::max(w.stores_done, now + 1 + store_drain_);
      break;
    }
    case ir::OpKind::MemBar:
      done = now + fence_.hold(in);
      break;
    case ir::OpKind::Barrier:
      if (in.active_mask) return arrive_at_barrier(w, now);
      break;
    default: {
      Cycle dispatch = collect(sc, w, now);
      int16_t kind = unit_of_[in.unit];
      if (kind == kLdstUnit) {
        done = now + const_latency_;
        break;
      }
      auto k = static_cast<uint32_t>(kind);
      done = sc.units.issue(k, sc.units.free_pipe(k, dispatch), dispatch, in.tensor_work);
      // Bodies book the unit kind as a fluid queue: they see this pipeline time.
      sc.unit_time[k].book(static_cast<double>(dispatch),
                           static_cast<double>(sc.units.occupancy(k, in.tensor_work)) / unit_specs_[k].count);
    }
  }
  for (int d = 0; d < in.n_dst; ++d) w.regs.set(in.dst[d], done);
  next_block(w, now + 1, in.kind == ir::OpKind::MemBar ? done : 0);
}

void AbstractSm::arrive_at_barrier(Warp& w, Cycle now) {
  w.at_barrier = true;
  Cta& cta = ctas_[w.cta];
  ++cta.at_barrier;
  barrier_unit_free_ = std::max(barrier_unit_free_, now) + barrier_arrival_cycles_;
  cta.last_arrival = barrier_unit_free_;
  if (cta.at_barrier >= cta.slots.size() - cta.warps_done) release_barrier(cta, now);
}

// The last warp arrived: all continue once the barrier unit has taken it
// and released them (the next cycle without a unit). The next instruction
// is read only now (an execution-driven source computes it at the barrier).
void AbstractSm::release_barrier(Cta& cta, Cycle now) {
  cta.at_barrier = 0;
  Cycle open = std::max(now, cta.last_arrival) + barrier_release_cycles_;
  for (uint32_t slot : cta.slots) {
    Warp& w = warps_[slot];
    if (!w.at_barrier) continue;
    w.at_barrier = false;
    next_block(w, std::max(now + 1, open));
    mark(slot);
  }
}

void AbstractSm::retire(uint32_t slot, Cycle now) {
  account(now);
  Warp& w = warps_[slot];
  w.live = false;
  subcores_[subcore_of(slot)].live &= ~(uint64_t{1} << local_of(slot));
  --live_warps_;
  Cta& cta = ctas_[w.cta];
  ++cta.warps_done;
  if (cta.warps_done == cta.slots.size()) {
    cta.source.reset();
    --live_ctas_;
    ctas_done_.inc();
    freed_ = true;
    return;
  }
  // A warp that ends may be the one its CTA's barrier waited for.
  if (cta.at_barrier > 0 && cta.at_barrier >= cta.slots.size() - cta.warps_done) release_barrier(cta, now);
}

}  // namespace ws::timing::abstract
