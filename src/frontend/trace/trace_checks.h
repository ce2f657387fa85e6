// Checks that a kernel's trace agrees with its header, shared by the text
// and binary readers: each thread block inside the grid and listed once,
// each active mask within the block's threads.
#pragma once
#include <cstdint>
#include <string>
#include <unordered_set>

#include "common/types.h"

namespace ws::frontend {

class BlockLedger {
 public:
  // "" if `b` lies in `grid` and was not listed before; else what is wrong.
  std::string add(Dim3 b, Dim3 grid);

 private:
  uint64_t below_ = 0;                  // every block with a smaller linear id was listed
  std::unordered_set<uint64_t> ahead_;  // linear ids listed, above below_
};

// Lanes warp `w` of a block of `threads` threads has: all 32 but in a last,
// partial warp.
inline uint32_t warp_lanes(uint64_t threads, uint32_t w) {
  uint64_t first = uint64_t{w} * 32;
  return threads >= first + 32 ? ~0u : (1u << (threads - first)) - 1;
}

// What is wrong with an active mask that has lanes beyond `lanes`.
std::string mask_error(uint32_t mask, uint32_t lanes, uint64_t threads, uint32_t w);

std::string dim_text(const Dim3& d);

}  // namespace ws::frontend
