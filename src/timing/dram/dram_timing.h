// DRAM timing as data: rows {preceding command, following command, scope,
// cycles}, built from the standard's parameters (QV100 HBM2 defaults), plus a
// tracker that answers "earliest cycle command C may issue to bank b".
// Refresh and a dual command bus will add rows/commands, not code paths.
#pragma once
#include <array>
#include <cstdint>
#include <vector>

#include "common/types.h"
#include "config/config.h"

namespace ws::timing {

enum class DramCmd : uint8_t { Act, Pre, Rd, Wr };
inline constexpr size_t kDramCmds = 4;
const char* dram_cmd_name(DramCmd c);

// Where a constraint applies: the same bank, any bank of the same bank group,
// or any bank of the channel.
enum class DramScope : uint8_t { Bank, BankGroup, Channel };

struct DramTimingRow {
  DramCmd preceding;
  DramCmd following;
  DramScope scope;
  uint32_t cycles;
};

struct DramTimingParams {
  uint32_t banks = 16, bank_groups = 4;
  uint32_t tCCD = 1, tCCDL = 2, tRRD = 3, tRCD = 12, tRAS = 28, tRP = 12, tRC = 40;
  uint32_t CL = 12, WL = 2, tWTR = 3, tWR = 10, tRTP = 3;
  uint32_t burst_cycles = 1;  // data-bus cycles one 32 B sector occupies
};
DramTimingParams dram_timing_params(const config::Config& cfg);
std::vector<DramTimingRow> dram_timing_table(const DramTimingParams& p);

// Last issue cycle of every command per bank, bank group and channel.
class DramTimingTracker {
 public:
  DramTimingTracker(std::vector<DramTimingRow> table, uint32_t banks, uint32_t bank_groups);
  Cycle earliest(DramCmd cmd, uint32_t bank) const;
  void issued(DramCmd cmd, uint32_t bank, Cycle at);
  uint32_t group_of(uint32_t bank) const { return bank % groups_; }

 private:
  using Last = std::array<Cycle, kDramCmds>;  // kUnset when never issued
  static constexpr Cycle kUnset = ~Cycle{0};
  const Last& last(DramScope s, uint32_t bank) const;

  std::vector<DramTimingRow> table_;
  uint32_t groups_;
  std::vector<Last> bank_, group_;
  Last channel_;
  // earliest() per bank and command, valid while cache_gen_ matches gen_
  // (every issue can move the constraints of every bank).
  mutable std::vector<Last> cache_;
  mutable std::vector<std::array<uint64_t, kDramCmds>> cache_gen_;
  uint64_t gen_ = 1;
};

}  // namespace ws::timing
