#include "timing/mem/shared_mem.h"

#include <algorithm>
#include <vector>

namespace ws::timing {
namespace {

const config::Param<int64_t> kLatency{"shared.latency", 20, "cycles", "shared-memory latency, no conflicts (QV100)",
                                      {1, 4096}};
const config::Param<int64_t> kBanks{"shared.banks", 32, "banks", "shared-memory banks", {1, 1024}};
const config::Param<int64_t> kBankBytes{"shared.bank_bytes", 4, "bytes", "width of one bank", {1, 64}};
const config::Param<bool> kPairPacking{
    "shared.pair_packing", true, "",
    "a 64/128-bit shared load whose active lanes read what their pair partner reads (lane n and n^1 alike, or n "
    "and n^2; every lane alike included) returns its registers packed, in half the wavefronts: NVIDIA's statement "
    "for compute capability 7.0-7.5 (docs/memory-system.md)"};

// Wavefronts for lanes [first, first + count): the most distinct words any
// single bank has to deliver.
uint32_t group_wavefronts(const Addr* addrs, uint32_t mask, uint32_t first, uint32_t count, uint32_t words_per_lane,
                          uint32_t banks, uint32_t bank_bytes) {
  std::vector<std::vector<uint64_t>> words(banks);
  for (uint32_t lane = first; lane < first + count && lane < 32; ++lane) {
    if (!(mask >> lane & 1)) continue;
    uint64_t w0 = addrs[lane] / bank_bytes;
    for (uint64_t w = w0; w < w0 + words_per_lane; ++w) {
      auto& bank = words[w % banks];
      if (std::find(bank.begin(), bank.end(), w) == bank.end()) bank.push_back(w);
    }
  }
  size_t worst = 0;
  for (const auto& b : words) worst = std::max(worst, b.size());
  return static_cast<uint32_t>(worst);
}

}  // namespace

namespace {
// Lanes per group: as many as move one full row of banks.
uint32_t lanes_per_group(uint32_t bytes_per_lane, uint32_t banks, uint32_t bank_bytes) {
  uint32_t words_per_lane = std::max(1u, (bytes_per_lane + bank_bytes - 1) / bank_bytes);
  return std::max(1u, banks / words_per_lane);
}
}  // namespace

// Whether every active lane reads what its partner lane ^ `x` reads (where both are active).
bool partners_alike(const Addr* addrs, uint32_t mask, uint32_t x) {
  for (uint32_t lane = 0; lane < 32; ++lane)
    if ((mask >> lane & 1) && (mask >> (lane ^ x) & 1) && addrs[lane] != addrs[lane ^ x]) return false;
  return true;
}

uint32_t shared_access_cycles(const Addr* lane_addrs, uint32_t active_mask, uint32_t bytes_per_lane, uint32_t banks,
                              uint32_t bank_bytes, bool pair_packing) {
  uint32_t words_per_lane = std::max(1u, (bytes_per_lane + bank_bytes - 1) / bank_bytes);
  uint32_t group = lanes_per_group(bytes_per_lane, banks, bank_bytes);
  // Paired lanes' registers share the return path: a group of twice the lanes.
  if (pair_packing && group < 32 &&
      (partners_alike(lane_addrs, active_mask, 1) || partners_alike(lane_addrs, active_mask, 2)))
    group *= 2;
  uint32_t total = 0;
  for (uint32_t first = 0; first < 32; first += group)
    total += group_wavefronts(lane_addrs, active_mask, first, group, words_per_lane, banks, bank_bytes);
  return total;
}

uint32_t shared_conflict_free_cycles(uint32_t active_mask, uint32_t bytes_per_lane, uint32_t banks,
                                     uint32_t bank_bytes) {
  uint32_t group = lanes_per_group(bytes_per_lane, banks, bank_bytes);
  uint64_t lanes = group >= 32 ? 0xffffffffull : (1ull << group) - 1;
  uint32_t groups = 0;
  for (uint32_t first = 0; first < 32; first += group) groups += (active_mask >> first & lanes) != 0;
  return std::max(groups, 1u);
}

SharedMemParams shared_mem_params(const config::Config& cfg) {
  return SharedMemParams{static_cast<uint32_t>(kLatency.get(cfg)), static_cast<uint32_t>(kBanks.get(cfg)),
                         static_cast<uint32_t>(kBankBytes.get(cfg))};
}

}  // namespace ws::timing
