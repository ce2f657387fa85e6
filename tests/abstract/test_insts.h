// Hand-made warp instructions for the abstract model's tests.
#pragma once
#include <cstdint>

#include "ir/warp_inst.h"

namespace ws::timing::abstract::fake {

// A full-warp instruction on unit 0 writing `dst`, reading `src` if given.
inline ir::WarpInst sp(uint16_t dst, int src = -1) {
  ir::WarpInst i;
  i.active_mask = 0xffffffff;
  i.n_dst = 1;
  i.dst[0] = dst;
  if (src >= 0) {
    i.n_src = 1;
    i.src[0] = static_cast<uint16_t>(src);
  }
  return i;
}

}  // namespace ws::timing::abstract::fake
