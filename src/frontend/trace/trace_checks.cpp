#include "frontend/trace/trace_checks.h"

#include <cstdio>

namespace ws::frontend {

std::string dim_text(const Dim3& d) {
  return "(" + std::to_string(d.x) + "," + std::to_string(d.y) + "," + std::to_string(d.z) + ")";
}

// A block id the grid does not have, or one read before, contradicts the
// header: a truncated or spliced trace.
std::string BlockLedger::add(Dim3 b, Dim3 g) {
  if (b.x >= g.x || b.y >= g.y || b.z >= g.z) return "block " + dim_text(b) + " is outside the grid " + dim_text(g);
  uint64_t linear = b.x + uint64_t{g.x} * (b.y + uint64_t{g.y} * b.z);
  if (linear < below_ || !ahead_.insert(linear).second) return "block " + dim_text(b) + " listed twice";
  // Traces list blocks in order: the set holds only those read out of order.
  for (auto it = ahead_.find(below_); it != ahead_.end(); it = ahead_.find(below_)) {
    ahead_.erase(it);
    ++below_;
  }
  return {};
}

std::string mask_error(uint32_t mask, uint32_t lanes, uint64_t threads, uint32_t w) {
  auto hex = [](uint32_t v) {
    char buf[16];
    std::snprintf(buf, sizeof buf, "0x%08x", v);
    return std::string(buf);
  };
  return "active mask " + hex(mask) + " has lanes beyond the block's " + std::to_string(threads) + " threads (warp " +
         std::to_string(w) + " has lanes " + hex(lanes) + ")";
}

}  // namespace ws::frontend
