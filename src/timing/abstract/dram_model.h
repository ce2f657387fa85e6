// The abstract model's DRAM: per channel a data bus, and per bank the open
// row as a tag (no command queue, no per-cycle scheduling). Each request
// reaching a channel is a row hit or a row miss from its own address (the
// detailed channel's address map), and its time follows from the preset's
// timing (dram.*): a miss pays precharge and activate (tRAS, tRP, tRC, tRCD,
// the channel's tRRD and tFAW), column commands in one bank are tCCDL apart,
// refresh takes each bank (or the whole channel) away for tRFCpb (tRFC)
// every tREFI, and writes wait and drain in batches between the watermarks
// (dram.write_high / write_low) as the detailed controller drains them, each
// batch paying the bus's read-to-write and write-to-read turnarounds.
//
// The data bus is a fluid queue: a request takes its bursts from the bus's
// next-free time or its arrival, whichever is later, and its data is ready
// once both the bus slot and its bank's column command allow. A bank that is
// late (a row miss) therefore delays its own request but not the others:
// the detailed scheduler (FR-FCFS) serves other banks' row hits meanwhile.
// Times are in DRAM cycles inside, core cycles at the interface.
#pragma once
#include <array>
#include <cstdint>
#include <vector>

#include "common/types.h"
#include "config/config.h"
#include "stats/stats.h"
#include "timing/dram/dram_address_map.h"
#include "timing/dram/dram_timing.h"
#include "timing/mem/mem_request.h"

namespace ws::timing::abstract {

class DramModel {
 public:
  // `slices`: L2 slices in all; `per_channel`: slices per channel.
  DramModel(const config::Config& cfg, stats::Registry& reg, uint32_t slices, uint32_t per_channel);

  // A read of `sectors` sectors of the line at `line` for slice `slice`,
  // reaching its channel at `at` (core cycles): when its data is back at the slice.
  double read(uint32_t slice, Addr line, uint32_t sectors, double at);
  // A write-back of `sectors` sectors, reaching the channel at `at`. It waits
  // in the channel's write queue until a batch drains (or goes at once when
  // the channel is idle); nothing waits for it.
  void write(uint32_t slice, Addr line, uint32_t sectors, double at);
  // Where a line lives: (channel, bank, row).
  struct Place {
    uint32_t channel, bank;
    uint64_t row;
  };
  Place locate(uint32_t slice, Addr line) const;

 private:
  struct Bank {
    bool open = false;
    uint64_t row = 0;
    double act = -1e18;     // its last ACT
    double col_free = 0;    // earliest next column command
    double pre_free = 0;    // earliest PRE (tRAS, tRTP, write recovery)
    int64_t refresh_round = -1;  // the last refresh window it has been through
  };
  struct Pending {
    uint32_t bank;
    uint64_t row;
    uint32_t sectors;
  };
  struct Channel {
    std::vector<Bank> banks;
    double bus_free = 0;        // data bus: next free cycle
    double act_free = 0;        // next ACT by tRRD / the ACT's command-bus cycles
    std::array<double, 4> acts{-1e18, -1e18, -1e18, -1e18};  // last four ACTs (tFAW), oldest at acts_next
    uint32_t acts_next = 0;
    double refresh_phase = 0;   // first refresh (staggered per channel, as the detailed channels)
    bool last_write = false;    // direction of the last column command
    double reads_done = 0;      // when the last read's data leaves the bus
    double reads_from = 0;      // no read data before (the write-to-read turnaround)
    std::vector<Pending> writes;  // waiting for a drain, oldest first
    uint32_t queued_writes = 0;   // their sectors
    stats::Counter *reads, *writes_ctr, *row_hits, *activates;
  };

  // Bank `b` ready for a column command for `row` at or after `t`: opens
  // the row if needed. Returns the first column command's cycle.
  double column(Channel& c, uint32_t b, uint64_t row, double t, uint32_t sectors, bool write);
  double activate(Channel& c, Bank& k, double t);
  double after_refresh(const Channel& c, uint32_t b, Bank& k, double t) const;
  double bus(Channel& c, double from, uint32_t sectors);
  void drain(Channel& c, size_t n, double t);

  DramTimingParams p_;
  DramAddressMap map_;
  std::vector<Channel> channels_;
  uint32_t slices_, per_channel_;
  uint32_t write_high_, write_low_;
  double per_dram_;   // core cycles per DRAM cycle
  double path_;       // l2.dram_latency, DRAM cycles
  double refresh_len_, refresh_every_;  // a bank's (or the channel's) refresh window and its spacing
};

}  // namespace ws::timing::abstract
