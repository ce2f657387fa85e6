// Hand-made warp instructions for the abstract model's tests.
#pragma once
#include <cstdint>

#include "core/fake_insts.h"
#include "ir/warp_inst.h"

namespace ws::timing::abstract::fake {

// A full-warp instruction on unit 0 writing `dst`, reading `src` if given.
inline ir::WarpInst sp(uint16_t dst, int src = -1) { return timing::fake::alu(0, dst, src); }

}  // namespace ws::timing::abstract::fake
