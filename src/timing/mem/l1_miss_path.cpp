#include "timing/mem/l1_miss_path.h"

#include "common/error.h"
#include "timing/mem/sector_cache.h"

namespace ws::timing {
namespace {

using config::Param;
const Param<int64_t> kMissQueue{"l1d.miss_queue", 8, "requests",
                                "read requests (one per line access) and atomics waiting to enter the interconnect (with "
                                "l1d.miss_path_arbiter = fifo: store sectors too)",
                                {1, 4096}};
const Param<int64_t> kWriteBuffer{"l1d.write_buffer", 8, "sectors",
                                  "write-through store sectors waiting to enter the interconnect, apart from read "
                                  "misses (l1d.miss_path_arbiter = round-robin)",
                                  {1, 4096}};
const Param<std::string> kArbiter{"l1d.miss_path_arbiter", "round-robin", "",
                                  "what leaves the L1 next: round-robin (read misses and store sectors in separate "
                                  "queues, alternating) or fifo (one queue, in arrival order)"};

bool is_fifo(const config::Config& cfg) {
  std::string name = kArbiter.get(cfg);
  if (name != "fifo" && name != "round-robin")
    throw ConfigError(kArbiter.name(), "unknown choice '" + name + "' (known: round-robin, fifo)");
  return name == "fifo";
}

}  // namespace

L1MissPath::L1MissPath(const config::Config& cfg)
    : fifo_(is_fifo(cfg)),
      read_limit_(static_cast<uint32_t>(kMissQueue.get(cfg))),
      write_limit_(static_cast<uint32_t>(kWriteBuffer.get(cfg))) {}

bool L1MissPath::read_room(uint32_t n) const { return reads_.size() + n <= read_limit_; }

// The one fifo queue counts messages (a store of any sectors takes a slot);
// the write buffer counts sectors.
uint32_t L1MissPath::write_room() const {
  if (fifo_) return reads_.size() < read_limit_ ? kSectorsPerLine : 0;
  return write_limit_ > write_sectors_ ? write_limit_ - write_sectors_ : 0;
}

void L1MissPath::push(const MemRequest& r) {
  if (fifo_ || r.type != AccessType::Write) {
    reads_.push_back(r);
    return;
  }
  writes_.push_back(r);
  write_sectors_ += r.sector_count();
  r.for_each_sector([&](Addr sector) { ++writes_of_sector_[sector]; });
}

// Whether a store to one of the message's sectors is still queued.
bool L1MissPath::write_pending(const MemRequest& r) const {
  if (writes_of_sector_.empty()) return false;
  bool pending = false;
  r.for_each_sector([&](Addr sector) {
    const uint32_t* n = writes_of_sector_.find(sector);
    pending |= n && *n > 0;
  });
  return pending;
}

// Round robin between the queues; a read whose sector still has a store
// queued lets the write buffer go first until that store has left.
bool L1MissPath::take_write() const {
  if (writes_.empty()) return false;
  if (reads_.empty()) return true;
  return last_was_write_ ? write_pending(reads_.front()) : true;
}

void L1MissPath::pop() {
  if (!take_write()) {
    reads_.pop_front();
    last_was_write_ = false;
    return;
  }
  const MemRequest& w = writes_.front();
  write_sectors_ -= w.sector_count();
  w.for_each_sector([&](Addr sector) {
    uint32_t& n = writes_of_sector_[sector];
    if (--n == 0) writes_of_sector_.erase(sector);
  });
  writes_.pop_front();
  last_was_write_ = true;
}

}  // namespace ws::timing
