// One DRAM channel (DRAM clock): banks in bank groups with open-row state,
// timing from a DramTimingTracker table, one command per cycle (or one row
// and one column command with a dual command bus), a request queue kept per
// bank with a write-drain watermark (optionally a separate write queue), and
// a scheduler plug-in. All-bank refresh (dram.tREFI > 0) takes priority over
// requests once due; per-bank refresh holds only the bank it refreshes.
// Stats add queue occupancy, stalled cycles by cause and R/W turnarounds.
//
// Address mapping (channel-local): the line number loses the bits that chose
// the L2 slice (log2 of all slices) and gains the sub-partition (the request's
// src_slice % slices_per_channel) as its lowest bit; from there, low to high:
// lines within a row | bank | row. Optional XOR bank hashing folds low row bits
// into the bank so that row-strided streams spread over banks.
// A request names one or more sectors of a line (a line fetch or a group of
// written-back sectors): it is one queue entry, with one arrival number,
// that issues one column command per sector (one burst each) and leaves the
// queue after its last; queue capacities and the write-drain watermarks
// count sectors. A read's reply, naming all its sectors, goes back to the
// slice named by MemRequest::src_slice CL + burst cycles after its last read
// command; writes need no reply.
#pragma once
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "common/bit_set.h"
#include "config/config.h"
#include "stats/stats.h"
#include "timing/dram/dram_address_map.h"
#include "timing/dram/dram_bank_views.h"
#include "timing/dram/dram_scheduler.h"
#include "timing/dram/dram_timing.h"
#include "timing/engine/clocked.h"
#include "timing/engine/port.h"
#include "timing/mem/mem_request.h"

namespace ws::timing {

struct DramCommandRecord {
  Cycle at;
  DramCmd cmd;
  uint32_t bank;
  uint64_t row;
};

class DramChannel : public Clocked {
 public:
  DramChannel(const config::Config& cfg, stats::Scope scope, const ClockDomain& dram_clk, uint32_t channel_id);

  Port<MemRequest>& from_l2() { return from_l2_; }
  // Where read replies for slice `slice_id` go (its DRAM-reply port).
  void connect_reply(uint16_t slice_id, Port<MemRequest>* to_slice);
  DramLocation locate(const MemRequest& r) const;
  const DramTimingParams& timing() const { return timing_; }
  // Test/trace hook: keep every issued command.
  void record_commands(bool on) { record_ = on; }
  const std::vector<DramCommandRecord>& command_log() const { return log_; }

  // Counters up to time `at` (see dram_channel.cpp), for a reader.
  void settle_counters(Tick at);

  void tick() override;
  Tick next_event() const override;
  std::string waiting_for() const override;

 private:
  // What the scheduler and the command issue need of a queued request, kept
  // in its bank's queue so that they read one short array; the request
  // itself waits in pool_ and is read again only to reply to a read.
  struct Queued {
    uint64_t row;
    uint64_t age;    // arrival number
    uint32_t slot;    // in pool_
    bool write;
    bool activated;   // its next column command follows its own activate (not a row hit)
    uint8_t sectors;  // sectors of its line still to read or write (bit s: sector s)
  };
  struct Bank {
    bool open = false;
    uint64_t row = 0;
    std::vector<Queued> queue;  // its requests, oldest first
    int32_t oldest = -1, hit = -1;  // summary for the scheduler (pool slots)
    DramBankViews::Summary sum;     // their next commands and arrival numbers
  };

  bool has_room(const MemRequest& r) const;
  void enqueue_arrivals();
  void deliver_replies();
  // (draining, reads waiting) as the queues now stand.
  std::pair<bool, bool> drain_mode() const;
  void update_drain_mode();
  bool eligible(bool write) const { return draining_ ? write : (!write || !reads_waiting_); }
  // The command a request for `row` needs next at bank `b`.
  DramCmd next_cmd(const Bank& b, uint64_t row, bool write) const {
    if (!b.open) return DramCmd::Act;
    if (b.row != row) return DramCmd::Pre;
    return write ? DramCmd::Wr : DramCmd::Rd;
  }
  void refresh(uint32_t b);  // recomputes a bank's scheduler summary
  bool service_refresh();
  bool service_bank_refresh();
  uint32_t pick_refresh_bank() const;
  void refresh_views();
  // Brings the scheduler's views (views_) up to date for this cycle, and no_hit_.
  void build_views(bool row_bus_taken);
  Cycle first_issue() const;
  void skip_idle_cycle(Cycle now);
  uint32_t issue_dual(bool row_bus_taken);  // commands issued
  void account(Cycle now);
  void count_span(Cycle now);
  void issue(uint32_t bank, bool hit);
  void record(DramCmd cmd, uint32_t bank, uint64_t row, Cycle at);

  const ClockDomain& clk_;
  uint32_t id_;
  DramTimingParams timing_;
  DramTimingTracker tracker_;
  std::unique_ptr<DramScheduler> scheduler_;
  uint32_t queue_cap_, write_queue_cap_, write_high_, write_low_;
  uint32_t total_slices_, per_channel_;
  // log2(total_slices_) when it is a power of two (then so is per_channel_):
  // locate() shifts and masks instead of dividing. -1 otherwise.
  int32_t slice_shift_;
  DramAddressMap map_;
  bool dual_bus_;
  Port<MemRequest> from_l2_;
  Cycle next_issue_ = 0;  // no queued command can issue before this cycle
  Cycle next_ref_ = 0;    // when the next refresh is due (tREFI > 0)
  int32_t ref_bank_ = -1;  // per-bank refresh: the bank being refreshed (-1: none chosen yet)
  Cycle ref_wake_ = 0;     // per-bank refresh: when its next PRE/REF may issue
  std::vector<uint8_t> ref_owed_;  // per-bank refresh: banks not yet refreshed this round
  uint32_t ref_owed_count_ = 0;
  Cycle accounted_ = 0;    // stats: cycles up to here are accounted for
  bool col_issued_ = false;  // a column command issued in the last tick
  bool ref_blocked_ = false;  // the last tick was given to an all-bank refresh
  bool no_hit_ = false;       // the last tick found no queued request hitting an open row
  Cycle ref_until_ = 0;       // all-bank refresh: no ACT before this cycle (REF + tRFC)
  bool last_col_write_ = false;  // the last column command was a write
  Cycle last_cmd_ = 0;    // cycle of the last command issued
  std::vector<Port<MemRequest>*> reply_to_;  // by slice id
  std::vector<MemRequest> pool_;              // queued requests, by slot
  std::vector<uint32_t> free_slots_;
  std::vector<Bank> banks_;
  BitSet dirty_;  // banks whose summary needs recomputing
  bool retime_ = false;  // a command issued since the views' ready cycles were read
  // Read data on its way back, ready CL + burst after the read command: a
  // port used as an unbounded delay line (its ring buffer beats a deque).
  Port<MemRequest> replies_{SIZE_MAX};
  uint32_t queued_ = 0, queued_writes_ = 0;  // sectors
  uint64_t next_age_ = 0;
  bool draining_ = false, reads_waiting_ = false;
  bool record_ = false;
  std::vector<DramCommandRecord> log_;
  DramBankViews views_;  // banks with an eligible request, bar one held for its refresh

  stats::Counter &reads_, &writes_, &activates_, &precharges_, &row_hits_, &busy_cycles_, &refreshes_;
  stats::Counter &read_queue_cycles_, &write_queue_cycles_, &stalled_cycles_, &refresh_stall_cycles_, &row_stall_cycles_,
      &turnarounds_;
};

}  // namespace ws::timing
