// Shared-memory bank conflicts: how many serialized wavefronts one warp-wide
// shared access takes.
//
// Rule: lanes are split by lane index into groups that move at most one full
// row of banks (banks * bank_bytes bytes): 32 lanes for <= 4 B accesses, 16
// for 8 B, 8 for 16 B (as Volta issues 64/128-bit accesses per half/quarter
// warp). Each lane touches ceil(bytes / bank_bytes) consecutive words. Within
// a group, lanes reading the same word share it (broadcast); distinct words in
// one bank serialize. The access costs the sum over groups with active lanes of
// the largest number of distinct words any bank must deliver.
#pragma once
#include <cstdint>

#include "common/types.h"
#include "config/config.h"

namespace ws::timing {

//
// `pair_packing` (shared.pair_packing; loads only): when every active lane
// reads the address its partner lane n^1 reads, or n^2 (all lanes alike
// included), a 64/128-bit load's groups hold twice the lanes: the return
// path (one 32-bit register per lane per cycle) carries the pairs' registers
// packed, so LDS.128 takes 2 wavefronts instead of 4 and LDS.64 one
// (NVIDIA's answer for compute capability 7.0-7.5 on its developer forum,
// "Unexpected shared memory bank conflict", 2019).
uint32_t shared_access_cycles(const Addr* lane_addrs, uint32_t active_mask, uint32_t bytes_per_lane,
                              uint32_t banks = 32, uint32_t bank_bytes = 4, bool pair_packing = false);

// The wavefronts the same access would take without a bank conflict: one per
// lane group with an active lane (at least 1). shared_access_cycles minus
// this is what bank conflicts cost.
uint32_t shared_conflict_free_cycles(uint32_t active_mask, uint32_t bytes_per_lane, uint32_t banks = 32,
                                     uint32_t bank_bytes = 4);

struct SharedMemParams {
  uint32_t latency = 20;  // cycles from issue to data for a conflict-free access
  uint32_t banks = 32;
  uint32_t bank_bytes = 4;
};
SharedMemParams shared_mem_params(const config::Config& cfg);

}  // namespace ws::timing
