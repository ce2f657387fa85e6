#include "timing/dram/dram_bank_views.h"

#include <algorithm>

namespace ws::timing {
namespace {

bool is_column(DramCmd c) { return c == DramCmd::Rd || c == DramCmd::Wr; }

}  // namespace

DramBankViews::DramBankViews(uint32_t banks, bool dual_bus)
    : dual_(dual_bus), pos_(banks, kHidden), col_(banks), row_(dual_bus ? banks : 0), cmds_(banks), ready_(banks) {}

void DramBankViews::show(uint32_t bank, const Summary& s, const DramTimingTracker* tracker) {
  uint32_t& pos = pos_[bank];
  if (pos == kHidden) pos = static_cast<uint32_t>(size_++);
  else hits_ -= col_[pos].has_hit;
  hits_ += s.has_hit;
  // Flags stay off until the next update(), as the bank's commands changed.
  DramBankView v{s.oldest_age, s.has_hit ? s.hit_age : 0, static_cast<uint16_t>(bank),
                 is_column(s.oldest_cmd), false, s.has_hit, false};
  col_[pos] = v;
  if (dual_) row_[pos] = v;
  cmds_[pos] = Cmds{s.oldest_cmd, s.hit_cmd};
  if (tracker) ready_[pos] = ready_of(bank, cmds_[pos], s.has_hit, *tracker);
}

void DramBankViews::hide(uint32_t bank) {
  uint32_t pos = pos_[bank];
  if (pos == kHidden) return;
  hits_ -= col_[pos].has_hit;
  size_t last = --size_;
  if (pos != last) {
    col_[pos] = col_[last];
    if (dual_) row_[pos] = row_[last];
    cmds_[pos] = cmds_[last];
    ready_[pos] = ready_[last];
    pos_[col_[pos].bank] = pos;
  }
  pos_[bank] = kHidden;
}

void DramBankViews::retime(const DramTimingTracker& tracker) {
  for (size_t i = 0; i < size_; ++i) ready_[i] = ready_of(col_[i].bank, cmds_[i], col_[i].has_hit, tracker);
}

void DramBankViews::update(Cycle now, bool row_bus_taken, const DramTimingTracker* retime_from) {
  bool any_row = false, any_col = false;
  uint32_t issuable = 0;
  for (size_t i = 0; i < size_; ++i) {
    DramBankView& v = col_[i];
    if (retime_from) ready_[i] = ready_of(v.bank, cmds_[i], v.has_hit, *retime_from);
    bool ready = ready_[i].oldest <= now;
    v.hit_issuable = ready_[i].hit <= now;  // never without a hit (~0)
    bool row_ready = false;
    if (dual_) {
      row_ready = ready && !v.oldest_is_hit && !row_bus_taken;
      row_[i].oldest_issuable = row_ready;
      any_row |= row_ready;
      ready = ready && v.oldest_is_hit;
    }
    v.oldest_issuable = ready;
    any_col |= ready || v.hit_issuable;
    issuable += ready || v.hit_issuable || row_ready;
  }
  any_row_ = any_row;
  any_col_ = any_col;
  issuable_ = issuable;
}

Cycle DramBankViews::earliest_ready() const {
  Cycle first = ~Cycle{0};
  for (size_t i = 0; i < size_; ++i) first = std::min({first, ready_[i].oldest, ready_[i].hit});
  return first;
}

void DramBankViews::block(uint32_t bank) {
  uint32_t pos = pos_[bank];
  if (pos != kHidden) col_[pos].oldest_issuable = col_[pos].hit_issuable = false;
}

}  // namespace ws::timing
