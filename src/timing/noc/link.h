// The wire from a sender into an interconnect input: a message of F flits
// (icnt.flit_bytes each, its header plus its data) holds the wire F cycles,
// so a message carrying several sectors leaves no faster than those sectors
// would one by one. Delivery is cut-through: the receiver sees the message
// when its first flit arrives; the crossbar then charges the same flits for
// its own traversal.
#pragma once
#include <cstdint>

#include "config/config.h"
#include "common/types.h"
#include "timing/mem/mem_request.h"

namespace ws::timing {

// How many flits a message is (icnt.flit_bytes, icnt.header_bytes).
class FlitSize {
 public:
  explicit FlitSize(const config::Config& cfg);
  uint32_t flits_of(const MemRequest& m) const { return (header_bytes_ + m.payload_bytes() + flit_bytes_ - 1) / flit_bytes_; }

 private:
  uint32_t flit_bytes_, header_bytes_;
};

class FlitLink {
 public:
  explicit FlitLink(const config::Config& cfg) : size_(cfg) {}
  // Whether a message may start at `now`, and the cycle the wire frees.
  bool free(Cycle now) const { return free_at_ <= now; }
  Cycle free_at() const { return free_at_; }
  void sent(const MemRequest& m, Cycle now) { free_at_ = now + size_.flits_of(m); }

 private:
  FlitSize size_;
  Cycle free_at_ = 0;
};

}  // namespace ws::timing
