// DRAM timing as data: rows {preceding command, following command, scope,
// cycles}, built from the standard's parameters (QV100 HBM2 defaults), plus a
// tracker that answers "earliest cycle command C may issue to bank b".
// Refresh is one more command (REF, all banks) with its own rows. The
// four-activate window (tFAW) is not a pairwise row: the tracker keeps the
// channel's last four activates and holds a fifth until the first is tFAW old.
#pragma once
#include <algorithm>
#include <array>
#include <cstdint>
#include <utility>
#include <vector>

#include "common/types.h"
#include "config/config.h"

namespace ws::timing {

enum class DramCmd : uint8_t { Act, Pre, Rd, Wr, Ref };
inline constexpr size_t kDramCmds = 5;
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
  // Same-bank-group activate-to-activate and write-to-read (tRRD, tWTR are the
  // different-group figures), the four-activate window, and the row-bus
  // cycles an ACT occupies (HBM sends it over two). 0 = not modelled.
  uint32_t tRRDL = 0, tWTRL = 0, tFAW = 0, act_cycles = 1;
  bool dual_bus = true;          // separate row and column command buses (dram.dual_command_bus)
  uint32_t tREFI = 0, tRFC = 0;  // all-bank refresh interval and duration; 0 = no refresh
  bool per_bank_refresh = false;   // REF refreshes one bank, each bank once per tREFI
  uint32_t tRFCpb = 0;             // single-bank refresh duration
  uint32_t burst_cycles = 1;     // data-bus cycles one 32 B sector occupies
};
DramTimingParams dram_timing_params(const config::Config& cfg);
std::vector<DramTimingRow> dram_timing_table(const DramTimingParams& p);

// The earliest cycle each command may issue to each bank, given the commands
// issued so far and the timing table.
class DramTimingTracker {
 public:
  DramTimingTracker(std::vector<DramTimingRow> table, uint32_t banks, uint32_t bank_groups, uint32_t tFAW = 0);
  Cycle earliest(DramCmd cmd, uint32_t bank) const {
    auto c = static_cast<size_t>(cmd);
    return std::max(bank_[bank][c], channel_[c]);
  }
  void issued(DramCmd cmd, uint32_t bank, Cycle at);
  uint32_t group_of(uint32_t bank) const { return bank % groups_; }

 private:
  void note_activate(Cycle at);

  using Last = std::array<Cycle, kDramCmds>;
  std::vector<DramTimingRow> table_;
  // Rows by preceding command, split by scope: (following command, cycles).
  struct Effects {
    std::vector<std::pair<uint8_t, uint32_t>> bank, group, channel;
  };
  std::array<Effects, kDramCmds> by_preceding_;
  uint32_t groups_;  // banks interleave over groups: bank b is in group b % groups_
  uint32_t faw_;     // four-activate window, 0 = none
  // The channel's last four ACTs (ring; acts_seen_ counts up to four).
  std::array<Cycle, 4> acts_{};
  uint32_t act_next_ = 0, acts_seen_ = 0;
  // Earliest cycle per command imposed on each bank by its own commands and
  // by its group's (a group row is applied to each bank of the group, so
  // earliest() reads two levels, not three), and on the whole channel.
  std::vector<Last> bank_;
  Last channel_{};
};

}  // namespace ws::timing
