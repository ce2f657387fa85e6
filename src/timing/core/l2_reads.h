// The L2 side of an SM cache whose misses are read from the L2 as real
// traffic (the instruction fetch unit, the constant cache): reads of 32 B
// sectors, one request per 128 B line they touch, queued for the SM's
// request-crossbar input, which the cache shares with the
// L1D, and the reply port its own reply-crossbar output feeds (replies are
// routed there by MemRequest::client).
#pragma once
#include <cstdint>
#include <deque>

#include "timing/engine/clocked.h"
#include "timing/engine/port.h"
#include "timing/mem/mem_request.h"

namespace ws::timing {

class L2Reads {
 public:
  L2Reads(const ClockDomain& clk, uint16_t sm_id, MemClient client, size_t reply_queue)
      : clk_(clk), sm_id_(sm_id), client_(client), from_l2_(reply_queue) {}

  // `owner` is the SM that ticks the cache: it sends into `to_l2` and is
  // woken by replies.
  void connect(Port<MemRequest>* to_l2, Clocked* owner) {
    to_l2_ = to_l2;
    owner_ = owner;
    to_l2_->wire_producer(owner);
    from_l2_.wire_consumer(owner);
  }
  Port<MemRequest>& replies() { return from_l2_; }

  // Queues reads of `sectors` whole sectors from `first` (sector-aligned):
  // a request per line, naming its sectors.
  void read(Addr first, uint32_t sectors) {
    constexpr uint32_t kPerLine = kLineBytes / kSectorBytes;
    for (uint32_t s = 0; s < sectors;) {
      MemRequest r;
      r.addr = first + Addr{s} * kSectorBytes;
      uint8_t mask = 0;
      for (Addr a = r.addr; s < sectors && (a & ~Addr{kLineBytes - 1}) == r.line_addr(); ++s, a += kSectorBytes)
        mask |= static_cast<uint8_t>(1u << ((a / kSectorBytes) % kPerLine));
      r.sectors = mask;
      r.type = AccessType::Read;
      r.src_sm = sm_id_;
      r.client = client_;
      r.issued = clk_.now_tick();
      out_.push_back(r);
    }
    if (owner_) owner_->wake();
  }

  // Passes each sector of the replies visible at `t` to `arrived(sector
  // address)`, then sends one queued read if the crossbar input has room.
  template <class F>
  void tick(Tick t, F&& arrived) {
    while (from_l2_.ready(t)) {
      MemRequest r = from_l2_.front();
      from_l2_.pop();
      r.for_each_sector(arrived);
    }
    if (!out_.empty() && to_l2_ && to_l2_->can_push(t)) {
      to_l2_->push(out_.front(), t);
      out_.pop_front();
    }
  }

  // Earliest time tick() has work (kNever: none).
  Tick next_event(Tick now) const {
    Tick t = from_l2_.next_ready();
    if (!out_.empty() && to_l2_) {
      if (to_l2_->can_push(now)) return now;
      to_l2_->wait_for_room(owner_);  // its pop wakes the SM
    }
    return t;
  }

 private:
  const ClockDomain& clk_;
  uint16_t sm_id_;
  MemClient client_;
  std::deque<MemRequest> out_;
  Port<MemRequest>* to_l2_ = nullptr;
  Port<MemRequest> from_l2_;
  Clocked* owner_ = nullptr;
};

}  // namespace ws::timing
