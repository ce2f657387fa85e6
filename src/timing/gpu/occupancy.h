// How many CTAs of a kernel fit on one SM, and the L1/shared carve-out the
// driver would choose for it.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "config/config.h"
#include "ir/source.h"
#include "timing/core/sm_kernel.h"

namespace ws::timing {

struct SmLimits {
  uint32_t max_ctas = 32, max_warps = 64, max_threads = 2048, registers = 65536;
  uint32_t reg_granularity = 256;       // registers are allocated per warp in these units
  uint32_t unified_kb = 128;            // L1 + shared memory array
  std::vector<int64_t> carveout_kb;     // shared-memory sizes the driver can choose
  static SmLimits from(const config::Config& cfg);
};

struct Occupancy {
  uint32_t ctas_per_sm = 0;
  uint32_t shared_kb = 0;  // chosen carve-out
  uint32_t l1_kb = 0;      // the rest of the unified array
  std::string limiter;     // "ctas", "warps", "threads", "registers" or "shared memory"
};

// Throws InputError naming the kernel when one CTA cannot fit on an SM.
Occupancy plan_occupancy(const SmLimits& sm, const ir::KernelInfo& k);
// What one CTA of the kernel holds while resident, by the same rules
// (registers allocated per warp in reg_alloc_granularity units).
CtaNeeds cta_needs(const SmLimits& sm, const ir::KernelInfo& k);

}  // namespace ws::timing
