// Reads every instruction of a CTA without timing. Warps take turns of a
// bounded number of instructions, so that a source that executes as it is
// read (exec) sees its warps progress together, as they meet at barriers.
#pragma once
#include <cstdint>
#include <vector>

#include "ir/source.h"

namespace ws::ir {

template <class OnInst>
void read_cta(CtaSource& cta, OnInst&& on_inst, WarpInst& scratch, uint32_t turn = 256) {
  uint32_t warps = cta.num_warps();
  std::vector<bool> done(warps, false);
  uint32_t left = warps;
  while (left > 0) {
    for (uint32_t w = 0; w < warps; ++w) {
      if (done[w]) continue;
      uint32_t n = 0;
      while (n < turn && cta.next_into(w, scratch)) {
        on_inst(scratch);
        ++n;
      }
      if (n < turn) {
        done[w] = true;
        --left;
      }
    }
  }
}

}  // namespace ws::ir
