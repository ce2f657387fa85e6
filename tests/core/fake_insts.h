// Hand-made warp instructions shared by the timing models' tests.
#pragma once
#include <cstdint>

#include "ir/warp_inst.h"

namespace ws::timing::fake {

// A full-warp instruction on unit `unit` writing `dst`, reading `src` if given.
inline ir::WarpInst alu(uint8_t unit, uint16_t dst, int src = -1) {
  ir::WarpInst i;
  i.active_mask = 0xffffffff;
  i.unit = unit;
  i.n_dst = 1;
  i.dst[0] = dst;
  if (src >= 0) {
    i.n_src = 1;
    i.src[0] = static_cast<uint16_t>(src);
  }
  return i;
}

// A full-warp 4-byte load on the LD/ST unit (unit 2) of `space` writing
// `dst`: lane l reads base + l * stride (stride 0: every lane reads base).
inline ir::WarpInst load(ir::MemSpace space, uint16_t dst, Addr base, int32_t stride) {
  ir::WarpInst i;
  i.active_mask = 0xffffffff;
  i.kind = ir::OpKind::Load;
  i.space = space;
  i.unit = 2;
  i.access_bytes = 4;
  i.strided = true;
  i.base = base;
  i.stride = stride;
  i.n_dst = 1;
  i.dst[0] = dst;
  return i;
}

}  // namespace ws::timing::fake
