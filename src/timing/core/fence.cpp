#include "timing/core/fence.h"

namespace ws::timing {

namespace {
// ubench/fence measures each (one warp, a loop of fences): an H100 takes
// about 15 cycles for a CTA fence, 675 for a GPU one and 1,300 for a system
// one, with or without a store in flight before it.
const config::Param<int64_t> kGpu{"core.fence_latency", 4, "cycles",
                                  "a GPU-scope memory fence (membar.gl, fence.sc.gpu) holds its warp this long",
                                  {1, 100000}};
const config::Param<int64_t> kCta{"core.fence_cta_latency", 4, "cycles",
                                  "a CTA-scope memory fence (membar.cta) holds its warp this long", {1, 100000}};
const config::Param<int64_t> kSys{"core.fence_sys_latency", 4, "cycles",
                                  "a system-scope memory fence (membar.sys) holds its warp this long", {1, 100000}};
}  // namespace

FenceLatencies FenceLatencies::read(const config::Config& cfg) {
  return FenceLatencies{static_cast<uint32_t>(kCta.get(cfg)), static_cast<uint32_t>(kGpu.get(cfg)),
                        static_cast<uint32_t>(kSys.get(cfg))};
}

}  // namespace ws::timing
