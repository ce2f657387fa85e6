#include "timing/gpu/occupancy.h"

#include <algorithm>

#include "common/error.h"

namespace ws::timing {

namespace {
const config::Param<int64_t> kMaxCtas{"core.max_ctas", 32, "CTAs", "resident CTAs per SM", {1, 256}};
const config::Param<int64_t> kMaxThreads{"core.max_threads", 2048, "threads", "resident threads per SM", {32, 8192}};
const config::Param<int64_t> kRegisters{"core.registers", 65536, "registers", "32-bit registers per SM", {1024, 1 << 20}};
const config::Param<int64_t> kRegGranularity{"core.reg_alloc_granularity", 256, "registers",
                                             "per-warp register allocation unit", {1, 4096}};
const config::Param<int64_t> kUnified{"core.unified_l1_shared_kb", 128, "KB", "unified L1 + shared memory per SM",
                                      {1, 4096}};
const config::Param<std::vector<int64_t>> kCarveout{
    "core.shared_carveout_kb", {0, 8, 16, 32, 64, 96}, "KB", "shared-memory sizes the driver may choose", {0, 4096}};

uint32_t round_up(uint32_t v, uint32_t g) { return (v + g - 1) / g * g; }
}  // namespace

SmLimits SmLimits::from(const config::Config& cfg) {
  SmLimits s;
  s.max_ctas = static_cast<uint32_t>(kMaxCtas.get(cfg));
  s.max_warps = static_cast<uint32_t>(cfg.get<int64_t>("core.max_warps"));
  s.max_threads = static_cast<uint32_t>(kMaxThreads.get(cfg));
  s.registers = static_cast<uint32_t>(kRegisters.get(cfg));
  s.reg_granularity = static_cast<uint32_t>(kRegGranularity.get(cfg));
  s.unified_kb = static_cast<uint32_t>(kUnified.get(cfg));
  s.carveout_kb = kCarveout.get(cfg);
  std::sort(s.carveout_kb.begin(), s.carveout_kb.end());
  if (s.carveout_kb.empty()) throw ConfigError(kCarveout.name(), "needs at least one option");
  if (s.carveout_kb.back() > s.unified_kb)
    throw ConfigError(kCarveout.name(), "an option exceeds core.unified_l1_shared_kb");
  return s;
}

CtaNeeds cta_needs(const SmLimits& sm, const ir::KernelInfo& k) {
  uint32_t warps = k.warps_per_cta();
  return CtaNeeds{warps, static_cast<uint32_t>(k.block.count()),
                  round_up(std::max(k.nregs, 1u) * 32, sm.reg_granularity) * warps, k.shmem_bytes};
}

Occupancy plan_occupancy(const SmLimits& sm, const ir::KernelInfo& k) {
  CtaNeeds needs = cta_needs(sm, k);
  uint32_t warps = needs.warps, threads = needs.threads, regs = needs.registers;
  // Limits other than shared memory decide how many CTAs the carve-out must hold.
  struct Lim {
    uint32_t n;
    const char* what;
  } lims[] = {{sm.max_ctas, "ctas"},
              {warps ? sm.max_warps / warps : 0, "warps"},
              {threads ? sm.max_threads / threads : 0, "threads"},
              {regs ? sm.registers / regs : sm.max_ctas, "registers"}};
  Occupancy occ{~0u, 0, 0, ""};
  for (const Lim& l : lims)
    if (l.n < occ.ctas_per_sm) occ.ctas_per_sm = l.n, occ.limiter = l.what;
  if (occ.ctas_per_sm == 0)
    throw InputError(k.name, 0, occ.limiter,
                     "one CTA (" + std::to_string(threads) + " threads, " + std::to_string(k.nregs) +
                         " registers/thread) does not fit on an SM");
  uint64_t want = uint64_t{k.shmem_bytes} * occ.ctas_per_sm;
  occ.shared_kb = static_cast<uint32_t>(sm.carveout_kb.back());
  for (int64_t opt : sm.carveout_kb)
    if (uint64_t(opt) * 1024 >= want) {
      occ.shared_kb = static_cast<uint32_t>(opt);
      break;
    }
  if (k.shmem_bytes > 0) {
    uint32_t by_shared = occ.shared_kb * 1024 / k.shmem_bytes;
    if (by_shared == 0)
      throw InputError(k.name, 0, "shmem",
                       std::to_string(k.shmem_bytes) + " B of shared memory per CTA exceeds the largest carve-out (" +
                           std::to_string(occ.shared_kb) + " KB)");
    if (by_shared < occ.ctas_per_sm) occ.ctas_per_sm = by_shared, occ.limiter = "shared memory";
  }
  occ.l1_kb = sm.unified_kb - occ.shared_kb;
  return occ;
}

}  // namespace ws::timing
