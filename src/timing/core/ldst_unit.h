// The SM's load/store unit: shared memory (with bank conflicts), constant
// cache, and the path to the L1D for global/local/texture accesses through
// the sub-warp coalescer. Results are written into the warps' scoreboards;
// loads that wait for memory (L1D or constant-cache misses) release them when
// they complete, and a store holds its warp's exit until it has drained
// (core.store_drain_latency).
#pragma once
#include <algorithm>
#include <cstdint>
#include <deque>
#include <optional>
#include <vector>

#include "config/config.h"
#include "ir/warp_inst.h"
#include "stats/stats.h"
#include "timing/core/coalescer.h"
#include "timing/core/const_cache.h"
#include "timing/core/warp.h"
#include "timing/engine/clocked.h"
#include "timing/mem/l1d.h"

namespace ws::timing {

class LdstUnit {
 public:
  LdstUnit(const config::Config& cfg, stats::Scope scope, const ClockDomain& clock, L1D& l1, uint16_t sm_id = 0);

  // Whether a memory instruction can be accepted this cycle.
  bool can_accept() const { return queue_.size() < queue_limit_; }
  // Cycles the access queue has been full (memory instructions held back)
  // from the start up to `now`: the difference between two calls is how long
  // it was full in between (stall attribution).
  Cycle full_cycles(Cycle now) const { return full_total_ + (full_since_ ? now - *full_since_ : 0); }
  // The MIO queue (core.mio_queue): shared-memory instructions issued whose
  // turn in the shared-memory pipe has not come. While it holds the limit,
  // no shared-memory instruction issues; room opens at mio_room_at().
  // mio_advance(now) lets those whose turn came leave (call it each tick
  // before issue); mio_full_cycles() as full_cycles() for this queue.
  bool mio_can_accept() const { return mio_limit_ == 0 || mio_waiting_.size() < mio_limit_; }
  Cycle mio_room_at() const { return mio_waiting_.empty() ? 0 : mio_waiting_.front(); }
  void mio_advance(Cycle now);
  Cycle mio_full_cycles(Cycle now) const {
    return mio_full_total_ + (mio_full_since_ ? now - *mio_full_since_ : 0);
  }
  // Issues a memory (or fence) instruction of `warp`; sets its scoreboard.
  void issue(Warp& warp, uint32_t warp_slot, const ir::WarpInst& inst, Cycle now);
  // Sends queued accesses to the L1 and retires completed loads (from the
  // L1 and the constant cache).
  void tick(Cycle now, std::vector<Warp>& warps);
  bool busy() const { return !queue_.empty(); }
  // A new kernel: the constant cache starts empty.
  void begin_kernel() { const_cache_.flush(); }
  // Warp slots whose loads completed since the last call (to wake them).
  std::vector<uint32_t>& woken() { return woken_; }
  // Earliest time a queued L1 completion becomes visible, the constant
  // cache has work or a store has drained.
  Tick next_completion(Tick now) const {
    Tick t = std::min(l1_.done().next_ready(), const_cache_.next_event(now));
    return drains_.empty() ? t : std::min(t, clock_.tick_of(drains_.front().ready));
  }
  ConstCache& const_cache() { return const_cache_; }

 private:
  struct Pending {  // one in-flight load/atomic instruction
    uint32_t warp_slot = 0;
    uint32_t remaining = 0;
    uint8_t n_dst = 0;
    bool holds_warp = true;  // counted in its warp's pending_loads (not a reduction; a draining store is)
    std::array<uint16_t, ir::kMaxDst> dst{};
  };
  static constexpr uint32_t kNoStore = ~0u;
  struct Queued {
    L1Access access;
    bool ends_inst = false;  // the instruction's last access: the next one waits for the next cycle
    uint32_t store = kNoStore;  // a store's last access: its pending token (drain)
  };
  struct StoreDrain {  // a store whose last access the L1 took; its warp may exit at `ready`
    Cycle ready;
    uint32_t token;
  };
  uint32_t alloc_pending(uint32_t warp_slot, const ir::WarpInst& inst);
  void issue_shared(Warp& warp, const ir::WarpInst& inst, Cycle now);
  void issue_const(Warp& warp, uint32_t warp_slot, const ir::WarpInst& inst, Cycle now);
  void issue_l1(Warp& warp, uint32_t warp_slot, const ir::WarpInst& inst, Cycle now);
  uint32_t alloc_access_token(uint32_t owner);
  void complete(uint32_t access_token, Cycle now, std::vector<Warp>& warps);
  void finish(uint32_t token, Cycle ready, std::vector<Warp>& warps);

  const ClockDomain& clock_;
  L1D& l1_;
  SubWarpCoalescer coalescer_;
  std::vector<LineAccess> scratch_;
  ir::LaneAddrs lanes_{};  // strided lane addresses, expanded
  std::deque<Queued> queue_;
  size_t queue_limit_;
  Cycle store_drain_;            // core.store_drain_latency
  std::deque<StoreDrain> drains_;  // in order of `ready` (one latency for all)
  std::vector<Pending> pending_;
  std::vector<uint32_t> free_tokens_;
  std::vector<uint32_t> woken_;
  std::vector<uint32_t> access_owner_;  // L1 access token -> pending instruction
  std::vector<uint32_t> free_access_tokens_;
  uint32_t shared_latency_;
  ConstCache const_cache_;
  uint32_t shared_banks_;
  bool shared_pair_packing_;  // shared.pair_packing
  Cycle shared_free_ = 0;  // the shared-memory pipe is busy until this cycle
  size_t mio_limit_;                    // core.mio_queue (0: unbounded)
  std::deque<Cycle> mio_waiting_;       // start cycles in the pipe, in order, of those not started
  std::optional<Cycle> mio_full_since_;  // the MIO queue has been full since then
  Cycle mio_full_total_ = 0;
  std::optional<Cycle> full_since_;  // the access queue has been full since then
  Cycle full_total_ = 0;  // full cycles of the spans that ended
  stats::Counter &shared_accesses_, &shared_wavefronts_, &shared_bank_conflicts_, &global_accesses_, &const_accesses_, &queue_full_cycles_;
};

}  // namespace ws::timing
