// Instruction fetch in the abstract model: when each code line reaches a
// sub-core's L0 and the SM's L1 instruction cache, as arrival times. A miss
// reads the line from the L2 through the MemoryModel (counted there, as the
// detailed fetch unit's reads are); a sub-core that moves to a new line
// prefetches the next l1i.prefetch_lines lines. Capacities are not modelled:
// a line once fetched stays (kernels whose code outgrows the L0 or L1I are
// timed optimistically).
#pragma once
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "common/types.h"
#include "config/config.h"

namespace ws::timing::abstract {

class MemoryModel;

class InstFetch {
 public:
  InstFetch(const config::Config& cfg, uint32_t sm, uint32_t subcores, MemoryModel& mem);
  void begin_kernel(Addr code_base) { code_base_ = code_base; }
  // When the instruction at `pc` can issue on sub-core `s`, asked at `now`.
  Cycle fetch(uint32_t s, uint64_t pc, Cycle now);

 private:
  Cycle from_l1(uint32_t s, Addr line, Cycle now);

  uint32_t sm_;
  MemoryModel& mem_;
  bool perfect_;
  bool warm_start_;  // l1i.warm_start
  Cycle l1_latency_, fill_latency_;
  uint32_t prefetch_lines_;
  Addr code_base_ = 0;
  std::unordered_map<Addr, Cycle> l1_;               // line -> cycle it is in the L1I
  std::vector<std::unordered_map<Addr, Cycle>> l0_;  // per sub-core: line -> cycle it is in the L0
  std::vector<Addr> last_line_;                      // per sub-core: the line fetched last
};

}  // namespace ws::timing::abstract
