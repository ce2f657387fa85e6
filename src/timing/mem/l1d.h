// L1 data cache of one SM (core clock): sectored, streaming (misses in flight
// are bounded by MSHRs, not by allocated lines), write-through stores (see
// l1d.write_policy), atomics performed at L2. The tag stage looks up
// l1d.tag_lookups lines of one warp instruction per cycle; read hits then
// take their data from a banked array (L1DataArray) and wait for bank
// conflicts.
#pragma once
#include <array>
#include <cstdint>
#include <deque>
#include <optional>
#include <queue>
#include <vector>

#include "common/flat_map.h"
#include "common/small_vec.h"
#include "config/config.h"
#include "stats/stats.h"
#include "timing/engine/clocked.h"
#include "timing/engine/port.h"
#include "timing/mem/l1_data_array.h"
#include "timing/mem/l1_miss_path.h"
#include "timing/mem/mem_request.h"
#include "timing/mem/sector_cache.h"
#include "timing/noc/link.h"

namespace ws::timing {

// One coalesced request from the LD/ST unit: sectors of one 128 B line.
struct L1Access {
  Addr line_addr = 0;                     // 128 B aligned
  uint8_t sector_mask = 0;                // bit s = sector s of the line
  std::array<uint32_t, 4> byte_masks{};  // per sector, bytes written (stores/atomics) or read (loads; 0 = all)
  std::array<uint8_t, 4> thread_ops{};   // atomics: per sector, the lanes' operations (same-word ones each count)
  std::array<uint8_t, 4> atomic_passes{};  // atomics: per sector, requests to make (one lane per address each)
  AccessType type = AccessType::Read;
  bool local = false;  // local memory (l1d.local_write_policy applies to its stores)
  ir::CacheOp cache_op = ir::CacheOp::Default;  // the instruction's cache operator
  uint32_t token = 0;  // returned through done() when every sector of a Read/Atomic is available
};

// What a read asks of the L1, from its cache operator (docs/memory-system.md).
struct L1ReadPlan {
  bool use_l1 = true;       // a valid L1 copy may serve it
  bool allocate = true;     // the fill is installed in the L1
  bool invalidate = false;  // a present copy is stale: dropped (volatile)
  bool drop_after = false;  // last use of a local line: dropped once read, never written back
  Retention retention = Retention::Normal;
};

struct L1WritePolicy {
  const char* name;
  bool allocate_on_miss;  // a store miss installs the fully written sectors
  bool evict_on_hit;      // a store hit invalidates the sector
};

class L1D : public Clocked {
 public:
  L1D(const config::Config& cfg, stats::Scope scope, const ClockDomain& core, uint16_t sm_id);

  // Tag-stage room: up to l1d.tag_lookups accesses per cycle (the caller
  // gives one warp instruction's accesses per cycle), none stalled on MSHRs,
  // and a new cycle's lookups wait for the data array's earlier wavefronts.
  bool can_accept() const;
  // An access waits for resources: no new one is accepted until it is issued.
  bool stalled() const { return stalled_.has_value(); }
  // Starts the current cycle's access; sectors that find no MSHR wait inside.
  void accept(const L1Access& access);
  // Tokens of completed loads/atomics, visible at their completion time.
  Port<uint32_t>& done() { return done_; }
  void connect(Port<MemRequest>* to_icnt) {
    to_icnt_ = to_icnt;
    to_icnt_->wire_producer(this);  // next_event() asks whether it can push
  }
  // The SM whose next event depends on this cache's state (stalled(), done()):
  // woken after every tick of the cache.
  void set_client(Clocked* sm) { client_ = sm; }
  // l1d.latency is load-to-use as a dependent chase measures it, issue to
  // dependent issue; the client's own cycles around the cache (hand-over to
  // the tag stage, delivery back to its scoreboard) are part of it, so a hit
  // spends that much less here. Misses keep their full path.
  void set_client_cycles(uint32_t cycles) { hit_latency_ = latency_ > cycles ? latency_ - cycles : 1; }
  Port<MemRequest>& from_icnt() { return from_icnt_; }
  // Carve-out: the L1 share of the unified array, set before a kernel starts
  // (drops every line). Sets stay fixed; ways follow the size.
  void set_capacity_bytes(uint64_t bytes);
  uint64_t capacity_bytes() const { return tags_.capacity_bytes(); }
  uint32_t mshrs_in_use() const { return mshr_count_ - static_cast<uint32_t>(free_mshrs_.size()); }

  void tick() override;
  Tick next_event() const override;
  std::string waiting_for() const override;

 private:
  struct Mshr {
    Addr sector = 0;
    AccessType type = AccessType::Read;
    bool allocate = true;  // some waiter wants the fill kept in the L1
    Retention retention = Retention::Normal;  // evict-first only if every waiter streams
    SmallVec<uint32_t, 3> tokens;  // accesses waiting for this sector
  };
  // One read (or atomic) request on its way to L2: the MSHR of each sector
  // it carries. Its index is the request's tag; replies may bring its
  // sectors back in several groups.
  struct LineRequest {
    std::array<uint32_t, kSectorsPerLine> slot{};
    uint32_t left = 0;  // sectors not yet back
  };
  struct Pending {
    uint32_t misses_left = 0;  // sectors still to arrive from L2
    bool open = true;          // the access still has sectors to issue
    bool live = false;         // an access holds this token
    Tick hit_ready = 0;        // when the hit sectors are available
  };
  struct Completion {
    Tick at;
    uint64_t seq;
    uint32_t token;
    bool operator>(const Completion& o) const { return at != o.at ? at > o.at : seq > o.seq; }
  };

  void issue_stalled();
  bool issue_atomics(L1Access& a);
  bool issue_reads(L1Access& a);
  bool issue_writes(L1Access& a);
  void write_sector(const L1Access& a, uint32_t s);
  L1ReadPlan read_plan(const L1Access& a) const;
  bool bypasses_on_write(const L1Access& a) const;
  bool read_hit(const L1ReadPlan& plan, CacheLine* line, Addr sector);
  bool read_miss(const L1Access& a, const L1ReadPlan& plan, const CacheLine* line, uint32_t s, uint8_t& fetch,
                 std::array<uint32_t, kSectorsPerLine>& slots);
  uint32_t start_fetch(Addr sector, const L1ReadPlan& plan, uint32_t token);
  void send_request(Addr line_addr, uint8_t sectors, const std::array<uint32_t, kSectorsPerLine>& slots,
                    AccessType type, ir::CacheOp op, uint32_t byte_mask = 0, uint32_t thread_ops = 0);
  void write_back_local(const L1Access& a, uint32_t s);
  CacheLine& install(Addr line_addr, Retention r = Retention::Normal);
  bool issue_atomic(const L1Access& a, Addr sector, uint32_t s, uint32_t ops);
  std::optional<uint32_t> alloc_mshr(Addr sector, AccessType type, uint32_t token);
  void send(Addr sector, uint32_t byte_mask, AccessType type, uint32_t tag, ir::CacheOp op = ir::CacheOp::Default,
            uint32_t thread_ops = 0, uint8_t sectors = 0);
  void handle_fill();
  void fill_sector(uint32_t slot);
  void prefetch_fill(const MemRequest& r) const;
  uint8_t line_fill_sectors(Addr line_addr, const CacheLine* line, Addr missed) const;
  // Why the current access waits (stall counters by cause).
  enum class Wait : uint8_t { MissQueue, MshrFull, MergeLimit, WriteBuffer };
  bool blocked(Wait why);  // records why an access stalls; returns false
  void charge_wait(Cycle now);
  bool queue_has_room() const;
  void finish_if_ready(uint32_t token);
  void complete(uint32_t token, Tick at);

  const ClockDomain& clk_;
  uint16_t sm_id_;
  uint32_t latency_, max_merge_, mshr_count_, tag_lookups_;
  uint32_t atomic_request_cycles_;  // l1d.atomic_request_cycles
  uint32_t hit_latency_;  // latency_ less the client's cycles (set_client_cycles)
  uint64_t max_bytes_;  // l1d.size_kb: the carve-out never grows the L1 beyond it
  const L1WritePolicy& write_policy_;
  bool sectored_;  // false: a read miss fetches the whole line
  bool local_write_back_;  // local stores stay dirty in the L1 until evicted
  bool cache_global_;      // global loads without an operator (or .ca) are cached in the L1
  SectorCache tags_;
  L1DataArray data_;
  Port<uint32_t> done_;
  Port<MemRequest> from_icnt_;
  Port<MemRequest>* to_icnt_ = nullptr;
  Clocked* client_ = nullptr;

  L1MissPath out_;  // read misses, atomics and store data on their way to the interconnect
  FlitLink link_;   // the wire into the crossbar: a message holds it one cycle per flit
  std::vector<Mshr> mshrs_;
  std::vector<uint32_t> free_mshrs_;
  FlatMap<uint32_t> mshr_of_sector_;  // in-flight reads, for merging
  std::vector<LineRequest> requests_;  // by tag; never more than MSHRs in use
  std::vector<uint32_t> free_requests_;
  // By token. Tokens are small integers the LD/ST unit reuses, so a plain
  // array keeps the live ones in a few host cache lines.
  std::vector<Pending> pending_;
  Pending& pending(uint32_t token) {
    if (token >= pending_.size()) pending_.resize(size_t{token} + 1);
    return pending_[token];
  }
  std::priority_queue<Completion, std::vector<Completion>, std::greater<>> completions_;
  uint64_t completion_seq_ = 0;
  std::optional<L1Access> stalled_;
  bool blocked_on_fill_ = false;  // the stalled access waits for an MSHR to free
  Wait waiting_for_ = Wait::MissQueue;
  Cycle last_accept_ = ~Cycle{0};
  Cycle atomic_busy_until_ = 0;  // the tag stage sends an atomic's requests until then
  uint32_t accepted_this_cycle_ = 0;

  stats::Counter &reads_, &read_hits_, &read_misses_, &writes_, &write_hits_, &write_misses_;
  std::optional<Cycle> waiting_since_;  // when the stalled access first had to wait
  stats::Counter &local_writebacks_, &bypass_reads_;
  stats::Counter &atomics_, &mshr_merges_, &mshr_stalls_, &stall_cycles_;
  std::array<stats::Counter*, 4> wait_cycles_;  // by Wait
  stats::Counter& data_wavefronts_;
  stats::Counter& bank_conflicts_;
};

}  // namespace ws::timing
