// The scheduler's views of the banks with an eligible request, kept from
// cycle to cycle: a bank's entry is rewritten only when its summary changes
// (a few banks a cycle). Beside each entry sits the cycle from which each of
// its two commands meets every timing constraint, read from the timing
// tracker when the entry is shown and again (retime) only after a command
// has issued, since only commands move those bounds. The issuable flags for
// a cycle are then comparisons with those cycles, and the earliest of them is
// when the channel next has something to issue. Entries are unordered (a
// hidden bank's place goes to the last entry), which no pick can see:
// arrival numbers are unique.
//
// With a dual command bus there are two lists over the same entries: the row
// pick's, where only a next ACT/PRE is issuable, and the column pick's, where
// only RD/WR is.
#pragma once
#include <cstdint>
#include <span>
#include <vector>

#include "timing/dram/dram_scheduler.h"
#include "timing/dram/dram_timing.h"

namespace ws::timing {

class DramBankViews {
 public:
  // A bank's summary: its oldest eligible request, and its oldest eligible
  // row hit if has_hit, with the commands they need next.
  struct Summary {
    uint64_t oldest_age = 0, hit_age = 0;
    DramCmd oldest_cmd = DramCmd::Act, hit_cmd = DramCmd::Act;
    bool has_hit = false;
  };

  DramBankViews(uint32_t banks, bool dual_bus);

  // `tracker` null: the caller retimes every entry before the next use.
  void show(uint32_t bank, const Summary& s, const DramTimingTracker* tracker);
  void hide(uint32_t bank);
  // Reads every entry's ready cycles again (after a command issued).
  void retime(const DramTimingTracker& tracker);
  // Sets every issuable flag for cycle `now` from the ready cycles (read
  // again first, in the same pass, with `retime_from`); a taken row bus
  // leaves no row command issuable.
  void update(Cycle now, bool row_bus_taken, const DramTimingTracker* retime_from = nullptr);
  // Entries with a command issuable at the last update().
  uint32_t issuable() const { return issuable_; }
  // The first cycle at which some shown bank's oldest request or row hit
  // meets its timing constraints (~0 when none is shown).
  Cycle earliest_ready() const;
  // The row pick chose `bank`: nothing more issues there this cycle.
  void block(uint32_t bank);

  std::span<const DramBankView> col() const { return {col_.data(), size_}; }
  std::span<const DramBankView> row() const { return {row_.data(), size_}; }
  bool any_hit() const { return hits_ > 0; }
  bool any_row_issuable() const { return any_row_; }
  bool any_col_issuable() const { return any_col_; }

 private:
  static constexpr uint32_t kHidden = ~0u;
  struct Cmds {
    DramCmd oldest, hit;
  };
  struct Ready {
    Cycle oldest, hit;  // hit: ~0 without a row hit
  };
  Ready ready_of(uint32_t bank, const Cmds& c, bool has_hit, const DramTimingTracker& tracker) const {
    return {tracker.earliest(c.oldest, bank), has_hit ? tracker.earliest(c.hit, bank) : ~Cycle{0}};
  }
  bool dual_;
  size_t size_ = 0;
  uint32_t hits_ = 0;  // shown banks with a row hit
  bool any_row_ = false, any_col_ = false;
  uint32_t issuable_ = 0;
  std::vector<uint32_t> pos_;  // by bank: its entry, or kHidden
  std::vector<DramBankView> col_, row_;
  std::vector<Cmds> cmds_;    // by entry, beside the views
  std::vector<Ready> ready_;  // by entry
};

}  // namespace ws::timing
