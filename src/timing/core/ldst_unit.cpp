#include "timing/core/ldst_unit.h"

#include <algorithm>

#include "timing/mem/atomic_ops.h"
#include "timing/mem/shared_mem.h"

namespace ws::timing {

namespace {
const config::Param<int64_t> kQueue{"core.ldst_queue", 32, "accesses",
                                    "L1 accesses the LD/ST unit buffers before it stops accepting local/global "
                                    "instructions (the LG queue; shared and constant ones do not wait for it)",
                                    {1, 4096}};
// 64 until ubench/mio_queue measures the depth: unbounded, a warp's shared
// stores and atomics ran ahead of the pipe, so a clock read after them came
// early (66 shared atomics per clock per SM, twice the pipe's rate); 64
// keeps the H100 correlation where unbounded had it (docs/validation.md).
const config::Param<int64_t> kMioQueue{
    "core.mio_queue", 64, "instructions",
    "shared-memory instructions the SM's MIO queue holds waiting for the shared-memory pipe before it stops "
    "accepting them (ncu's mio_throttle); 0: unbounded (they wait in the pipe, as short_scoreboard)",
    {0, 4096}};
const config::Param<int64_t> kStoreDrain{
    "core.store_drain_latency", 0, "cycles",
    "a warp that stored exits this many cycles after the L1's tag stage took its last store's last access, not "
    "before (its data read out of the register file and written: ncu's drain stall); 0: stores never hold their "
    "warp",
    {0, 100000}};
// A load spends one cycle in the access queue before the L1's tag stage takes
// it (tick() runs before the cycle's issue) and one on the L1's done port
// before its warp sees the data: both are inside the measured load-to-use
// latency that l1d.latency states.
constexpr uint32_t kL1ClientCycles = 2;
}  // namespace

LdstUnit::LdstUnit(const config::Config& cfg, stats::Scope scope, const ClockDomain& clock, L1D& l1, uint16_t sm_id)
    : clock_(clock),
      l1_(l1),
      queue_limit_(static_cast<size_t>(kQueue.get(cfg))),
      store_drain_(static_cast<Cycle>(kStoreDrain.get(cfg))),
      shared_latency_(static_cast<uint32_t>(cfg.get<int64_t>("shared.latency"))),
      const_cache_(cfg, scope.sub("l1c"), clock, sm_id),
      shared_banks_(static_cast<uint32_t>(cfg.get<int64_t>("shared.banks"))),
      shared_pair_packing_(cfg.get<bool>("shared.pair_packing")),
      mio_limit_(static_cast<size_t>(kMioQueue.get(cfg))),
      shared_accesses_(scope.counter("shared_accesses", "warp shared-memory instructions")),
      shared_wavefronts_(scope.counter("shared_wavefronts", "shared-memory cycles incl. bank conflicts")),
      shared_bank_conflicts_(scope.counter("shared_bank_conflicts",
                                           "shared-memory cycles beyond what a conflict-free access takes")),
      global_accesses_(scope.counter("l1_accesses", "coalesced line accesses sent to the L1D")),
      const_accesses_(scope.counter("const_accesses", "warp constant-memory loads")),
      queue_full_cycles_(scope.counter("queue_full_cycles",
                                       "cycles the L1 access queue was full, holding back memory instructions")) {
  l1_.set_client_cycles(kL1ClientCycles);
}

uint32_t LdstUnit::alloc_pending(uint32_t warp_slot, const ir::WarpInst& inst) {
  uint32_t token;
  if (free_tokens_.empty()) {
    token = static_cast<uint32_t>(pending_.size());
    pending_.emplace_back();
  } else {
    token = free_tokens_.back();
    free_tokens_.pop_back();
  }
  Pending& p = pending_[token];
  p.warp_slot = warp_slot;
  p.remaining = 0;
  p.n_dst = inst.n_dst;
  p.holds_warp = true;
  p.dst = inst.dst;
  return token;
}

void LdstUnit::issue(Warp& warp, uint32_t warp_slot, const ir::WarpInst& inst, Cycle now) {
  if (inst.kind == ir::OpKind::MemBar) return;  // fences are timed by the SM as a fixed latency
  switch (inst.space) {
    case ir::MemSpace::Shared:
      issue_shared(warp, inst, now);
      break;
    case ir::MemSpace::Const:
    case ir::MemSpace::None:  // an address-less LD/ST-unit op: constant-cache timing
      issue_const(warp, warp_slot, inst, now);
      break;
    default:
      issue_l1(warp, warp_slot, inst, now);
      break;
  }
}

void LdstUnit::issue_shared(Warp& warp, const ir::WarpInst& inst, Cycle now) {
  const Addr* addrs = ir::lane_addrs(inst, lanes_);
  uint32_t waves =
      inst.active_mask && addrs ? shared_access_cycles(addrs, inst.active_mask, inst.access_bytes, shared_banks_, 4,
                                                       shared_pair_packing_ && inst.kind == ir::OpKind::Load)
                                : 1;
  waves = std::max(waves, 1u);
  uint32_t free_of_conflicts =
      inst.active_mask && addrs ? shared_conflict_free_cycles(inst.active_mask, inst.access_bytes, shared_banks_) : 1;
  Cycle start = std::max(now, shared_free_);
  shared_free_ = start + waves;
  if (mio_limit_ > 0 && start > now) {
    mio_waiting_.push_back(start);
    if (!mio_can_accept() && !mio_full_since_) mio_full_since_ = now;
  }
  shared_accesses_.inc();
  shared_wavefronts_.inc(waves);
  shared_bank_conflicts_.inc(waves - std::min(waves, free_of_conflicts));
  warp.write_dsts(inst, start + waves - 1 + shared_latency_, RegSource::Mio);
  // A store (or a reduction) writes no register, but its warp ends only
  // once the pipe has performed it.
  if (inst.n_dst == 0) warp.shared_done = std::max(warp.shared_done, start + waves);
}

// A load whose lines all hit knows its ready cycle now; one that waits for
// the L2 completes through the constant cache's done() list, as an L1 miss does.
void LdstUnit::issue_const(Warp& warp, uint32_t warp_slot, const ir::WarpInst& inst, Cycle now) {
  const_accesses_.inc();
  uint32_t token = alloc_pending(warp_slot, inst);
  Cycle ready = const_cache_.load(ir::lane_addrs(inst, lanes_), inst.active_mask, now, token);
  if (ready != ConstCache::kWaiting) {
    free_tokens_.push_back(token);
    warp.write_dsts(inst, ready, RegSource::Mio);
    return;
  }
  pending_[token].remaining = 1;
  ++warp.pending_loads;
  warp.write_dsts(inst, kPending, RegSource::Mio);
}

void LdstUnit::issue_l1(Warp& warp, uint32_t warp_slot, const ir::WarpInst& inst, Cycle now) {
  scratch_.clear();
  const Addr* addrs = ir::lane_addrs(inst, lanes_);
  if (inst.active_mask && addrs) coalescer_.coalesce(addrs, inst.active_mask, inst.access_bytes, scratch_);
  AccessType type = inst.kind == ir::OpKind::Load    ? AccessType::Read
                    : inst.kind == ir::OpKind::Store ? AccessType::Write
                                                     : AccessType::Atomic;
  bool waits = type != AccessType::Write;
  uint32_t token = 0;
  if (waits) {
    token = alloc_pending(warp_slot, inst);
    pending_[token].remaining = static_cast<uint32_t>(scratch_.size());
  }
  // A store holds its warp (not its issue) until the L1 has taken it and the drain latency passed.
  uint32_t store = kNoStore;
  if (!waits && store_drain_ > 0 && !scratch_.empty()) {
    store = alloc_pending(warp_slot, inst);
    pending_[store].n_dst = 0;
    pending_[store].remaining = 1;
    ++warp.pending_loads;
  }
  // Texture fetches take the read-only path (cached in L1 like ld.global.nc).
  ir::CacheOp op = inst.space == ir::MemSpace::Tex && inst.cache_op == ir::CacheOp::Default ? ir::CacheOp::NonCoherent
                                                                                           : inst.cache_op;
  for (const LineAccess& a : scratch_) {
    L1Access acc{};
    acc.cache_op = op;
    acc.line_addr = a.line_addr;
    acc.sector_mask = a.sector_mask;
    acc.byte_masks = a.byte_masks;
    acc.type = type;
    acc.local = inst.space == ir::MemSpace::Local;
    acc.token = waits ? alloc_access_token(token) : 0;
    if (type == AccessType::Atomic) {
      AtomicLanes lanes = atomic_lanes(addrs, inst.active_mask, a.line_addr, a.lanes);
      acc.thread_ops = lanes.ops;
      acc.atomic_passes = lanes.passes;
    }
    bool last = &a == &scratch_.back();
    queue_.push_back(Queued{acc, last, last ? store : kNoStore});
  }
  global_accesses_.inc(scratch_.size());
  if (!full_since_ && !can_accept()) full_since_ = now;
  if (!waits) return;
  if (scratch_.empty()) {  // fully predicated off: nothing to wait for
    free_tokens_.push_back(token);
    warp.write_dsts(inst, now + 1, RegSource::L1tex);
    return;
  }
  // A reduction (an atomic without a result: RED) does not hold its warp;
  // it is still performed, and the kernel ends after it.
  pending_[token].holds_warp = inst.n_dst > 0 || type != AccessType::Atomic;
  if (!pending_[token].holds_warp) return;
  ++warp.pending_loads;
  warp.write_dsts(inst, kPending, RegSource::L1tex);
}

void LdstUnit::mio_advance(Cycle now) {
  while (!mio_waiting_.empty() && mio_waiting_.front() <= now) {
    Cycle started = mio_waiting_.front();
    mio_waiting_.pop_front();
    if (mio_full_since_ && mio_can_accept()) {
      mio_full_total_ += started - std::min(started, *mio_full_since_);
      mio_full_since_.reset();
    }
  }
}

uint32_t LdstUnit::alloc_access_token(uint32_t owner) {
  // Each L1 access needs its own token; it maps back to its instruction.
  uint32_t t;
  if (free_access_tokens_.empty()) {
    t = static_cast<uint32_t>(access_owner_.size());
    access_owner_.push_back(owner);
  } else {
    t = free_access_tokens_.back();
    free_access_tokens_.pop_back();
    access_owner_[t] = owner;
  }
  return t;
}

void LdstUnit::complete(uint32_t access_token, Cycle now, std::vector<Warp>& warps) {
  uint32_t token = access_owner_[access_token];
  free_access_tokens_.push_back(access_token);
  if (--pending_[token].remaining > 0) return;
  finish(token, now, warps);
}

// The instruction's destinations are written at `ready`; its warp is woken.
void LdstUnit::finish(uint32_t token, Cycle ready, std::vector<Warp>& warps) {
  Pending& p = pending_[token];
  if (!p.holds_warp) {  // its warp may be gone
    free_tokens_.push_back(token);
    return;
  }
  Warp& w = warps[p.warp_slot];
  for (int k = 0; k < p.n_dst; ++k) w.scoreboard.set(p.dst[k], ready);
  --w.pending_loads;
  w.wake_at = 0;
  woken_.push_back(p.warp_slot);
  free_tokens_.push_back(token);
}

void LdstUnit::tick(Cycle now, std::vector<Warp>& warps) {
  Port<uint32_t>& done = l1_.done();
  Tick t = clock_.now_tick();
  while (done.ready(t)) {
    complete(done.front(), now, warps);
    done.pop();
  }
  const_cache_.tick(now);
  for (const ConstCache::Done& d : const_cache_.done()) finish(d.token, d.ready, warps);
  const_cache_.done().clear();
  while (!drains_.empty() && drains_.front().ready <= now) {
    finish(drains_.front().token, now, warps);
    drains_.pop_front();
  }
  // The tag stage takes lines of one instruction per cycle.
  while (!queue_.empty() && l1_.can_accept()) {
    bool ends = queue_.front().ends_inst;
    l1_.accept(queue_.front().access);
    if (queue_.front().store != kNoStore) drains_.push_back(StoreDrain{now + store_drain_, queue_.front().store});
    queue_.pop_front();
    if (ends) break;
  }
  if (full_since_ && can_accept()) {
    queue_full_cycles_.inc(now - *full_since_);
    full_total_ += now - *full_since_;
    full_since_.reset();
  }
}

}  // namespace ws::timing
