// Instruction fetch of one SM, as Volta and later build it: a small L0
// instruction cache per sub-core in front of an L1 instruction cache shared by
// the SM, whose misses are read from the L2 through the SM's crossbar port
// (real traffic, the same path as data). Every access to a new line also
// brings the next `l1i.prefetch_lines` lines towards the L0 (sequential
// prefetch), so straight-line code mostly finds its lines fetched.
//
// Instruction addresses are the kernel's code base plus the PC (see
// Gpu::code_base): code of one kernel stays cached across its launches, and
// different kernels never share lines. `l1i.perfect = true` makes every fetch
// hit; `l0i.size_kb = 0` leaves a single level (GPUs before Volta).
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

#include "common/flat_map.h"
#include "common/small_vec.h"
#include "config/config.h"
#include "stats/stats.h"
#include "timing/core/fixed_miss_tags.h"
#include "timing/core/l2_reads.h"
#include "timing/mem/sector_cache.h"

namespace ws::timing {

class FetchUnit {
 public:
  // A warp whose line has arrived: it may issue from `ready` on.
  struct Wake {
    uint32_t slot;
    Cycle ready;
  };
  static constexpr Cycle kWaiting = ~Cycle{0};

  FetchUnit(const config::Config& cfg, stats::Scope scope, const ClockDomain& clk, uint16_t sm_id, uint32_t subcores);

  // `owner` is the SM that ticks this unit: it sends into `to_l2` (shared
  // with the L1D) and is woken by replies in from_l2().
  void connect(Port<MemRequest>* to_l2, Clocked* owner) { l2_.connect(to_l2, owner); }
  Port<MemRequest>& from_l2() { return l2_.replies(); }
  void begin_kernel(Addr code_base) {
    code_base_ = code_base;
    for (WarpLine& w : warp_line_) w.line = ~Addr{0};
    prefetched_to_.assign(prefetched_to_.size(), 0);
    warmed_.clear();
  }

  // Warp `slot` of `subcore` wants the instruction at `pc` at cycle `now`:
  // the cycle it is available, or kWaiting (the line comes from the L2; the
  // warp is then reported by woken()).
  Cycle fetch(uint32_t subcore, uint32_t slot, uint64_t pc, Cycle now) {
    return fetch_at(subcore, slot, code_base_ + pc, now);
  }
  // The same for the instruction at `addr` (a kernel's code base + PC: kernels
  // running together each have their own code_base).
  Cycle fetch_at(uint32_t subcore, uint32_t slot, Addr addr, Cycle now);
  // Sends queued line requests and takes arrived sectors.
  void tick(Cycle now);
  std::vector<Wake>& woken() { return woken_; }
  // Earliest time tick() has work (kNever: none).
  Tick next_event(Tick now) const { return l2_.next_event(now); }

 private:
  static constexpr uint32_t kNoWarp = ~0u;
  struct Waiter {
    uint32_t subcore;
    uint32_t slot;  // kNoWarp: a prefetch into that sub-core's L0
  };
  // The line a warp last found present in its L0 (or, without one, the L1I)
  // and that cache's fill count then: while few fills (under half its ways)
  // have happened since, LRU cannot have evicted the line, so the warp's
  // next fetch from it needs no lookup (the common case, kept cheap).
  struct WarpLine {
    Addr line = ~Addr{0};
    uint64_t fills = 0;
  };
  struct Miss {
    uint8_t sectors_left = kSectorsPerLine;
    SmallVec<Waiter, 4> waiters;
  };

  Cycle from_l1(uint32_t subcore, uint32_t slot, Addr line, Cycle now);
  CacheLine* find_l1(Addr line);
  void prefetch_after(uint32_t subcore, Addr line, Cycle now);
  void fill_l0(uint32_t subcore, Addr line, Cycle ready) {
    l0_[subcore].start_fill(line, ready);
    ++fills_[subcore];
  }
  uint64_t fills_seen(uint32_t subcore) const { return has_l0() ? fills_[subcore] : l1_fills_; }
  bool prefetch(uint32_t subcore, Addr line, Cycle now);
  void request_line(Addr line);
  void sector_arrived(Addr addr, Cycle now);
  void line_arrived(Addr line, Miss& miss, Cycle now);
  bool has_l0() const { return !l0_.empty(); }

  const ClockDomain& clk_;
  bool perfect_;
  bool warm_start_;  // l1i.warm_start
  uint32_t l1_latency_, prefetch_lines_, max_misses_;
  Addr code_base_ = 0;
  std::vector<FixedMissTags> l0_;      // per sub-core; fills timed by the L1I
  std::vector<Addr> last_line_;        // per sub-core: the line of its last fetch
  std::vector<Addr> prefetched_to_;    // per sub-core: the last line its prefetcher asked for
  std::vector<uint64_t> fills_;        // per sub-core: L0 fills started
  uint64_t l1_fills_ = 0;              // lines installed in the L1I
  uint32_t l0_ways_ = 0, l1_ways_ = 0;
  std::vector<WarpLine> warp_line_;    // per warp slot
  SectorCache l1_;                     // present lines only
  FlatMap<Miss> misses_;               // line -> outstanding L2 read
  FlatMap<uint8_t> warmed_;            // l1i.warm_start: lines this launch found there
  L2Reads l2_;
  std::vector<Wake> woken_;
  stats::Counter &accesses_, &l0_misses_, &l1_hits_, &misses_stat_, &merges_, &prefetches_, &sectors_;
};

}  // namespace ws::timing
