// One L2 slice (L2 clock), one per memory sub-partition: sectored, write-back,
// write-allocate with per-sector write-validate, line requests looked up once,
// one MSHR per line in flight with merging, atomics performed here.
//
// Latency with QV100 defaults (core = interconnect = L2 clock, 1132 MHz), as
// measured by the MemSystem test: L2 hit round trip = L1 miss hand-off (1) +
// request crossbar (icnt.latency 25) + L2 pipeline (l2.latency 160, the ROP
// latency) + reply crossbar (25) + port hand-offs (1) = 212 core cycles. A
// closed-row DRAM miss adds l2.dram_latency (100 L2 cycles to the channel) +
// tRCD 12 + CL 12 + 1 burst (25 DRAM cycles at 850 MHz ~= 33 core cycles) + clock
// crossings = 347 core cycles.
#pragma once
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <vector>

#include "common/flat_map.h"
#include "common/small_vec.h"
#include "config/config.h"
#include "stats/stats.h"
#include "timing/engine/clocked.h"
#include "timing/engine/port.h"
#include "timing/mem/index_hash.h"
#include "timing/mem/mem_request.h"
#include "timing/mem/sector_cache.h"
#include "timing/noc/link.h"

namespace ws::timing {

// Which slice owns an address: an IndexHash plug-in (`l2.slice_hash`: linear,
// xor, ipoly) over the 128 B line number of the full 64-bit address. Slice s
// sits in memory channel s / slices_per_channel.
class L2AddressMap {
 public:
  explicit L2AddressMap(const config::Config& cfg);
  uint32_t slice_of(Addr a) const { return hash_->map(a / kLineBytes); }
  uint32_t num_slices() const { return slices_; }
  uint32_t slices_per_channel() const { return per_channel_; }
  uint32_t channel_of_slice(uint32_t slice) const { return slice / per_channel_; }
  uint32_t channel_of(Addr a) const { return channel_of_slice(slice_of(a)); }

 private:
  uint32_t slices_, per_channel_;
  std::unique_ptr<IndexHash> hash_;
};

class L2Slice : public Clocked {
 public:
  L2Slice(const config::Config& cfg, stats::Scope scope, const ClockDomain& l2clk, uint16_t slice_id);

  Port<MemRequest>& from_icnt() { return from_icnt_; }
  Port<MemRequest>& from_dram() { return from_dram_; }
  void connect_reply(Port<MemRequest>* to_reply_icnt) {
    to_reply_ = to_reply_icnt;
    reply_wired_ = to_reply_->wire_producer(this);
  }
  void connect_dram(Port<MemRequest>* to_dram) {
    to_dram_ = to_dram;
    dram_wired_ = to_dram_->wire_producer(this);
  }
  // Functional warm-up (host-to-device copy): the sectors of [addr, addr+bytes)
  // owned by this slice become valid and clean. No timing, no stats.
  void warm(Addr addr, uint64_t bytes);
  const L2AddressMap& address_map() const { return map_; }
  uint16_t id() const { return id_; }

  void tick() override;
  Tick next_event() const override;
  // Holds requests or replies not yet passed on (the kernel is not over).
  bool busy() const;
  std::string waiting_for() const override;

 private:
  bool load_code(Addr addr);
  // A request waiting for sectors of a line in flight from DRAM: it is
  // answered, with all its sectors, when the last of them (`pending`) is in.
  struct Waiter {
    MemRequest req;
    uint8_t pending = 0;
  };
  // One line's fetches in flight. Reads and atomics waiting for them; a
  // second one (a merge) is rare and spills, so an entry stays small.
  struct Mshr {
    uint8_t fetching = 0;  // sectors asked of DRAM, not yet back
    SmallVec<Waiter, 1> waiters;
  };
  struct Staged {
    Tick ready;
    MemRequest req;
  };

  bool process(MemRequest& r);
  bool process_read(MemRequest& r);
  bool process_write(const MemRequest& r);
  uint8_t miss(const MemRequest& r, uint8_t want);
  void fill(const MemRequest& reply);
  CacheLine& line_for(Addr sector, Retention r = Retention::Normal);
  void write_back(const EvictedLine& victim);
  // Queues a request to DRAM for `sectors` of the line at line_addr.
  void send_dram(Addr line_addr, uint8_t sectors, uint32_t byte_mask, AccessType type);
  void reply(MemRequest r);
  bool dram_room(size_t n) const { return dram_q_sectors_ + n <= dram_queue_cap_; }
  void drain();
  void note_head(bool done);
  // Whether waiting for a pop of `out` to make room is safe (it wakes us,
  // once told that we wait).
  bool blocked(Port<MemRequest>* out, bool wired, Tick now) const {
    if (!wired || out->can_push(now)) return false;
    out->wait_for_room(this);
    return true;
  }

  const ClockDomain& clk_;
  uint16_t id_;
  L2AddressMap map_;
  uint32_t latency_, dram_latency_, mshr_cap_, max_merge_, atomic_ops_per_clk_, dram_queue_cap_, pipeline_cap_;
  // The atomic unit is busy until cycle atomic_free_ops_ / atomic_ops_per_clk_
  // (counted in operations, so that a sector of one operation takes part of a cycle).
  uint64_t atomic_free_ops_ = 0;
  // The stalled head is an atomic that waited for the unit: next_event wakes
  // the slice when the unit frees (kept, not derived, because the unit may
  // be free by the time next_event asks while the head has not retried).
  bool waits_for_atomics_ = false;
  bool code_loaded_ = false;       // l2.code_loaded
  FlatMap<uint8_t> loaded_code_;   // code lines installed once (module load)
  SectorCache tags_;
  Port<MemRequest> from_icnt_, from_dram_;
  Port<MemRequest>* to_reply_ = nullptr;
  FlitLink reply_link_;  // the wire into the reply crossbar: a reply holds it one cycle per flit
  Port<MemRequest>* to_dram_ = nullptr;
  std::deque<Staged> pipeline_;  // requests in the fixed-latency ROP pipeline
  // Lines with fetches in flight: line address -> slot in mshr_pool_ (slots
  // are reused, so waiting lists allocate nothing in steady state).
  // l2.mshr_entries bounds the sectors in flight.
  FlatMap<uint32_t> mshrs_;
  uint32_t sectors_in_flight_ = 0;
  std::vector<Mshr> mshr_pool_;
  std::vector<uint32_t> free_mshrs_;
  std::deque<MemRequest> reply_q_, dram_q_;
  uint32_t dram_q_sectors_ = 0;  // the sectors dram_q_'s requests name (l2.dram_queue counts these)
  Cycle dram_wire_free_ = 0;     // the wire towards DRAM is busy until this cycle
  // The pipeline head failed to find MSHR or DRAM-queue room. Only a fill or
  // a send towards DRAM can change that, so it is retried once either has
  // happened since (counted by fills_ and dram_sends_), not polled.
  bool stalled_ = false;
  Cycle stall_since_ = 0;
  uint64_t fills_ = 0, dram_sends_ = 0;
  uint64_t stall_fills_ = 0, stall_sends_ = 0;
  bool reply_wired_ = false, dram_wired_ = false;  // pops of the output wake us

  stats::Counter &reads_, &read_hits_, &read_misses_, &writes_, &write_hits_, &write_misses_;
  stats::Counter &atomics_, &dram_reads_, &dram_writes_, &mshr_merges_, &stall_cycles_;
};

}  // namespace ws::timing
