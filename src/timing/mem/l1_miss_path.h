// The L1D's way out to the interconnect ("the miss path"): what leaves the
// L1 in one message per cycle. Read misses and atomics, which hold MSHRs and
// wait for replies, queue apart from write-through store data, which needs
// no reply and no MSHR (write-through stores reach the L2 one by one on
// Volta and later; docs/memory-system.md). An arbiter, chosen by name with
// l1d.miss_path_arbiter, decides which queue sends next:
//   fifo         one queue for both (bounded by l1d.miss_queue): a read miss
//                waits behind every store sector queued before it
//   round-robin  read requests (l1d.miss_queue) and store sectors
//                (l1d.write_buffer) alternate when both wait
// Either way a read of a sector whose store is still queued leaves after it,
// so the L2 sees the store first (same-address order).
#pragma once
#include <cstdint>
#include <deque>

#include "common/flat_map.h"
#include "config/config.h"
#include "timing/mem/mem_request.h"

namespace ws::timing {

class L1MissPath {
 public:
  explicit L1MissPath(const config::Config& cfg);

  // Room for `n` more read requests (or atomics).
  bool read_room(uint32_t n = 1) const;
  // Store sectors that may be queued now (a message may carry several).
  uint32_t write_room() const;
  // Queues a message; writes go to the write buffer (fifo: the one queue).
  // Room is the caller's to check: evicted dirty lines are pushed past it.
  void push(const MemRequest& r);
  bool empty() const { return reads_.empty() && writes_.empty(); }
  // The message the arbiter sends next, and its removal.
  const MemRequest& front() const { return take_write() ? writes_.front() : reads_.front(); }
  void pop();
  size_t reads_queued() const { return reads_.size(); }
  size_t writes_queued() const { return writes_.size(); }

 private:
  bool take_write() const;
  bool write_pending(const MemRequest& r) const;

  bool fifo_;
  uint32_t read_limit_, write_limit_;
  std::deque<MemRequest> reads_;   // fifo: every message
  std::deque<MemRequest> writes_;  // round-robin: stores
  uint32_t write_sectors_ = 0;     // their sectors
  FlatMap<uint32_t> writes_of_sector_;  // queued store sectors per sector address (order check)
  bool last_was_write_ = true;     // round-robin: reads go first on a tie
};

}  // namespace ws::timing
