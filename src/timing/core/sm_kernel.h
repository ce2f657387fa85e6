// What an SM needs to know of a kernel whose CTAs it holds. Kernels on
// different streams may share an SM, so each resident CTA points at its
// kernel's context instead of the SM being set up for one kernel at a time.
#pragma once
#include <cstdint>
#include <vector>

#include "common/types.h"
#include "timing/core/stall_reasons.h"

namespace ws::timing {

// SM resources one CTA holds while resident (its CTA slot is implied).
struct CtaNeeds {
  uint32_t warps = 0, threads = 0, registers = 0, shared_bytes = 0;
  CtaNeeds& operator+=(const CtaNeeds& o) {
    warps += o.warps;
    threads += o.threads;
    registers += o.registers;
    shared_bytes += o.shared_bytes;
    return *this;
  }
  CtaNeeds& operator-=(const CtaNeeds& o) {
    warps -= o.warps;
    threads -= o.threads;
    registers -= o.registers;
    shared_bytes -= o.shared_bytes;
    return *this;
  }
};

// Work of one kernel only: the SM counters add up the work of all kernels
// that ran at the same time.
struct SmWork {
  uint64_t warp_insts = 0, thread_insts = 0, ctas_done = 0;
  StallCounts stalls{};  // warp cycles by issue-stall reason (stats.stall_reasons)
  SmWork& operator+=(const SmWork& o) {
    warp_insts += o.warp_insts;
    thread_insts += o.thread_insts;
    ctas_done += o.ctas_done;
    for (size_t i = 0; i < stalls.size(); ++i) stalls[i] += o.stalls[i];
    return *this;
  }
};

struct SmKernel {
  uint32_t id = 0;                 // the launch's kernel id
  std::vector<int16_t> unit_of;    // kernel unit id -> SM pipeline (Sm::map_units)
  Addr code_base = 0;              // instructions are fetched from code_base + PC
  CtaNeeds needs;
  uint32_t max_ctas_per_sm = 0;    // the occupancy limit of the kernel alone
  uint32_t shared_kb = 0, l1_kb = 0;  // carve-out it asks for (0, 0: leave the SM's as it is)
  // Per SM (indexed by SM id): its CTAs resident there (or reserved for a
  // launch to come), and the work it did for this kernel. Each SM writes
  // only its own entry, so SMs simulated on different threads
  // (docs/parallel.md) share nothing here.
  std::vector<uint16_t> resident;
  std::vector<SmWork> work;
  void size_for(size_t sms) {
    resident.assign(sms, 0);
    work.assign(sms, SmWork{});
  }
  // This kernel's work on all SMs, in SM order.
  SmWork total() const {
    SmWork t;
    for (const SmWork& w : work) t += w;
    return t;
  }
  uint64_t ctas_done() const {
    uint64_t n = 0;
    for (const SmWork& w : work) n += w.ctas_done;
    return n;
  }
};

}  // namespace ws::timing
