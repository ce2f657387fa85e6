// How long a memory fence holds its warp, by scope (the MemBar's `space`:
// Shared = CTA, Global or None = GPU, System = system). A GPU- or
// system-scope fence waits for the memory system to acknowledge ordering;
// a CTA fence only for the SM. Shared by the detailed and abstract SMs.
#pragma once
#include <cstdint>

#include "config/config.h"
#include "ir/warp_inst.h"

namespace ws::timing {

struct FenceLatencies {
  uint32_t cta = 4, gpu = 4, sys = 4;

  static FenceLatencies read(const config::Config& cfg);
  uint32_t of(ir::MemSpace scope) const {
    return scope == ir::MemSpace::Shared ? cta : scope == ir::MemSpace::System ? sys : gpu;
  }
  // How long `fence` holds its warp: a fence every lane skipped (`@P MEMBAR`
  // with P false) only issues.
  uint32_t hold(const ir::WarpInst& fence) const { return fence.active_mask ? of(fence.space) : 1; }
};

}  // namespace ws::timing
