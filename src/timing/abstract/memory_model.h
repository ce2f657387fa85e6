// The abstract model's memory system: tag-only sectored L1s and L2 slices
// (the detailed model's SectorCache, with its replacement and set-index
// plug-ins) for hits and misses by address, and times computed at issue
// instead of simulated: fixed latencies from the preset plus, per SM port,
// L2 slice and DRAM channel, a next-free time that each transfer advances by
// its sectors over that resource's bandwidth (a queue drained at a fixed
// rate). Nothing here is ticked.
#pragma once
#include <array>
#include <cstdint>
#include <memory>
#include <unordered_map>
#include <vector>

#include "config/config.h"
#include "ir/warp_inst.h"
#include "stats/stats.h"
#include "timing/abstract/calendar.h"
#include "timing/abstract/dram_model.h"
#include "timing/core/coalescer.h"
#include "timing/mem/atomic_ops.h"
#include "timing/mem/l1_data_array.h"
#include "timing/mem/l2_slice.h"
#include "timing/mem/sector_cache.h"

namespace ws::timing::abstract {

// What the LD/ST unit learns when it takes a memory instruction.
struct MemTiming {
  Cycle done = 0;             // its destination registers are written (loads, atomics)
  uint32_t ldst_cycles = 1;   // cycles it occupies the SM's LD/ST unit
};

// A cache's tags with, per sector, the cycle its data arrives (a sector
// still being filled is a miss that waits for that fill, not a hit).
class TimedTags {
 public:
  explicit TimedTags(const SectorCacheShape& shape);
  SectorCache& tags() { return tags_; }
  Cycle& ready(const CacheLine& line, uint32_t s) { return ready_[size_t{tags_.index_of(line)} * kSectorsPerLine + s]; }
  // Requests waiting for the sector's fill, the one that started it included.
  uint8_t& waiting(const CacheLine& line, uint32_t s) {
    return waiting_[size_t{tags_.index_of(line)} * kSectorsPerLine + s];
  }
  void resize_ways(uint32_t ways);

 private:
  SectorCache tags_;
  std::vector<Cycle> ready_;
  std::vector<uint8_t> waiting_;
};

class MemoryModel {
 public:
  MemoryModel(const config::Config& cfg, stats::Registry& reg, uint32_t n_sms);
  ~MemoryModel();

  // A kernel's L1 capacity (the occupancy calculation's carve-out); empties the L1s.
  void set_l1_bytes(uint64_t bytes);
  // A load, store or atomic of SM `sm` taken by its LD/ST unit at `now`.
  MemTiming access(uint32_t sm, const ir::WarpInst& in, Cycle now);
  // An instruction-cache miss: the whole line from the L2; when it is back.
  // With l2.code_loaded a code line's first read finds it there (the module
  // load wrote it), as in the detailed slice.
  Cycle inst_read(uint32_t sm, Addr line, Cycle now) {
    if (code_loaded_ && loaded_code_.try_emplace(line, 1).second) warm(line, line + kLineBytes);
    return l2_read(sm, line, 0xF, now, 0, false);
  }
  // A host copy leaves its lines valid in the L2.
  void warm(Addr begin, Addr end);
  // When the last store or atomic was performed at the L2 (a kernel ends after them).
  Cycle stores_landed() const { return stores_landed_; }
  uint64_t l2_bytes() const { return l2_bytes_; }

 private:
  struct SmCounters;
  struct SliceCounters;
  struct Port {
    double free = 0;  // core cycles, fractional: a sector may take 1.33 of them
  };

  MemTiming shared_access(const ir::WarpInst& in, Cycle now) const;
  Cycle global_load(uint32_t sm, const LineAccess& a, Cycle& at, bool use_l1);
  void global_store(uint32_t sm, const LineAccess& a, Cycle now, bool use_l1);
  // `lanes`: the operations and passes of the access's sectors (atomic_ops.h);
  // the requests they make are added to `requests`.
  Cycle atomic(uint32_t sm, const LineAccess& a, const AtomicLanes& lanes, Cycle& at, uint32_t& requests);
  Cycle miss_room(uint32_t sm, uint32_t n, Cycle at);
  // A request for the sectors `mask` of a line reaching its L2 slice from
  // SM `sm` at `now`; returns when the data is back at the SM. An atomic
  // (`atomic_ops` > 0) also waits for the slice's atomic unit.
  // `l1_request`: from the L1 (its places upstream of the crossbar count), not the instruction cache.
  // `atomic_requests`: the messages an atomic's passes make (at least one per sector).
  Cycle l2_read(uint32_t sm, Addr line, uint8_t mask, Cycle now, uint32_t atomic_ops = 0, bool l1_request = true,
                uint32_t atomic_requests = 0);
  Cycle to_slice(uint32_t sm, uint32_t slice, uint32_t flits, uint32_t messages, Cycle now, bool sm_waits);
  Cycle from_slice(uint32_t slice, uint32_t sm, uint32_t sectors, Cycle data_ready);
  Cycle dram_read(uint32_t slice, Addr line, uint32_t sectors, Cycle now);
  void dram_write(uint32_t slice, Addr line, uint32_t sectors, Cycle now);
  CacheLine& l2_allocate(uint32_t slice, Addr line, Cycle now);

  L2AddressMap map_;
  std::vector<std::unique_ptr<TimedTags>> l1_, l2_;
  // Crossbar ports (SM side: requests out, replies in; slice side: replies
  // out) and slice pipelines.
  std::vector<Port> req_port_, reply_port_, slice_out_, slice_atomics_;
  std::vector<Calendar> slice_port_;  // the slices' pipelines
  DramModel dram_;
  std::vector<SmCounters> sm_counters_;
  std::vector<SliceCounters> slice_counters_;
  uint64_t l1_max_bytes_, l2_bytes_;
  uint32_t l1_sets_;
  bool cache_global_, write_allocate_, code_loaded_;
  Cycle bank_latency_;  // l1c.bank_latency
  std::unordered_map<Addr, uint8_t> loaded_code_;  // code lines installed once (module load)
  // Latencies and per-sector service times, in core cycles.
  double l1_latency_, shared_latency_, icnt_latency_, l2_latency_;
  double slice_request_, atomic_op_;  // atomic_op_: one lane operation in a slice's atomic unit
  uint32_t atomic_request_cycles_;  // l1d.atomic_request_cycles
  uint32_t flit_bytes_, header_bytes_, tag_lookups_, upstream_cap_, shared_banks_, bank_bytes_, max_merge_;
  bool shared_pair_packing_;  // shared.pair_packing
  std::vector<Cycle> l1_cursor_;  // per SM: when its L1 looks up the next access
  // Per SM: when each of its read requests still upstream of the crossbar leaves.
  std::vector<std::vector<double>> upstream_;
  double slice_queue_;  // l2.input_queue
  // The detailed L1's data array, to count a cached read's cycles in it.
  L1DataArray l1_data_;
  Cycle l1_data_cycle_ = 0;  // a tag-stage cycle of its own for each group of lines counted
  uint32_t l1_data_cycles(const std::vector<LineAccess>& lines);
  // The LD/ST unit's coalescer, as in the detailed model: one access per
  // line per sub-warp of 8 lanes (consecutive sub-warps on a line share one).
  SubWarpCoalescer coalescer_;
  std::vector<LineAccess> lines_;  // scratch: the current instruction's accesses
  Cycle stores_landed_ = 0;
};

}  // namespace ws::timing::abstract
