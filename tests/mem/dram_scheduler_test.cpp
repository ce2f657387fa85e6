#include "timing/dram/dram_scheduler.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>
#include <vector>

#include "timing/dram/dram_bank_views.h"

namespace ws::timing {
namespace {

std::unique_ptr<DramScheduler> make(const char* name) {
  return DramSchedulerRegistry::instance().create("dram.scheduler", name);
}

DramBankView view(uint16_t bank, uint64_t oldest, bool oldest_ok, bool is_hit = false, int64_t hit = -1,
                  bool hit_ok = false) {
  return DramBankView{oldest, hit < 0 ? 0 : uint64_t(hit), bank, is_hit, oldest_ok, hit >= 0, hit_ok};
}

TEST(DramScheduler, FcfsWaitsForTheOldest) {
  auto s = make("fcfs");
  std::vector<DramBankView> v = {view(3, 20, true), view(9, 10, false, false, 15, true)};
  EXPECT_EQ(s->pick(v).bank, -1);  // bank 9 holds the oldest request, not issuable yet
  v[1].oldest_issuable = true;
  DramChoice c = s->pick(v);
  EXPECT_EQ(c.bank, 9);
  EXPECT_FALSE(c.hit);
  EXPECT_EQ(s->pick({}).bank, -1);
}

TEST(DramScheduler, FrFcfsPrefersReadyHitsThenOldestWithoutHits) {
  auto s = make("frfcfs");
  // Bank 1: oldest request (5) needs a PRE but a younger request (30) hits its row.
  // Bank 4: an ACT for request 8. Bank 7: a ready hit for request 40.
  std::vector<DramBankView> v = {view(1, 5, true, false, 30, false), view(4, 8, true), view(7, 40, true, true, 40, true)};
  DramChoice c = s->pick(v);
  EXPECT_EQ(c.bank, 7);
  EXPECT_TRUE(c.hit);
  v[2].hit_issuable = false;
  c = s->pick(v);  // bank 1 is passed over: its PRE would close a row that request 30 hits
  EXPECT_EQ(c.bank, 4);
  EXPECT_FALSE(c.hit);
  v[0].hit_issuable = true;
  EXPECT_EQ(s->pick(v).bank, 1);
  EXPECT_TRUE(s->pick(v).hit);
}

// Plain reading of each policy over every bank, as the channel used to ask:
// the plug-ins must decide the same for any list order.
DramChoice reference(const char* name, const std::vector<DramBankView>& v) {
  const DramBankView* best = nullptr;
  if (std::string(name) == "fcfs") {
    for (const auto& b : v)
      if (!best || b.oldest_age < best->oldest_age) best = &b;
    return best && best->oldest_issuable ? DramChoice{best->bank, false} : DramChoice{};
  }
  for (const auto& b : v)
    if (b.has_hit && b.hit_issuable && (!best || b.hit_age < best->hit_age)) best = &b;
  if (best) return {best->bank, true};
  for (const auto& b : v)
    if (b.oldest_issuable && !b.has_hit && (!best || b.oldest_age < best->oldest_age)) best = &b;
  return best ? DramChoice{best->bank, false} : DramChoice{};
}

TEST(DramScheduler, PicksMatchReferenceInAnyOrder) {
  std::mt19937 rng(11);
  for (const char* name : {"fcfs", "frfcfs"}) {
    auto s = make(name);
    for (int trial = 0; trial < 2000; ++trial) {
      std::vector<uint64_t> ages(32);
      std::iota(ages.begin(), ages.end(), 100);
      std::shuffle(ages.begin(), ages.end(), rng);
      std::vector<DramBankView> v;
      for (uint16_t b = 0; b < 16; ++b) {
        if (rng() % 3 == 0) continue;
        bool has_hit = rng() % 2;
        uint64_t oldest = std::min<uint64_t>(ages[b], has_hit ? ages[16 + b] : ~uint64_t{0});
        v.push_back(view(b, oldest, rng() % 2, has_hit && oldest == ages[16 + b], has_hit ? int64_t(ages[16 + b]) : -1,
                         has_hit && rng() % 2));
      }
      DramChoice want = reference(name, v);
      std::shuffle(v.begin(), v.end(), rng);
      DramChoice got = s->pick(v);
      ASSERT_EQ(got.bank, want.bank) << name << " trial " << trial;
      if (want.bank >= 0) {
        ASSERT_EQ(got.hit, want.hit);
      }
    }
  }
}

// A table with one same-bank row and one channel row, so readiness is easy to
// predict: ACT -> RD 5 cycles at the bank, RD -> RD 2 cycles anywhere.
DramTimingTracker small_tracker() {
  std::vector<DramTimingRow> rows = {{DramCmd::Act, DramCmd::Rd, DramScope::Bank, 5},
                                     {DramCmd::Rd, DramCmd::Rd, DramScope::Channel, 2}};
  return DramTimingTracker(rows, 4, 2);
}

std::vector<uint16_t> banks_of(std::span<const DramBankView> v) {
  std::vector<uint16_t> out;
  for (const auto& b : v) out.push_back(b.bank);
  std::sort(out.begin(), out.end());
  return out;
}

TEST(DramBankViews, ShowHideKeepsOneEntryPerBank) {
  DramTimingTracker t = small_tracker();
  DramBankViews views(4, true);
  using S = DramBankViews::Summary;
  views.show(0, S{1, 0, DramCmd::Act, DramCmd::Act, false}, &t);
  views.show(2, S{2, 3, DramCmd::Pre, DramCmd::Rd, true}, &t);
  views.show(3, S{4, 0, DramCmd::Act, DramCmd::Act, false}, &t);
  EXPECT_TRUE(views.any_hit());
  views.hide(0);  // the last entry (bank 3) moves into its place
  views.hide(1);  // not shown: nothing happens
  views.show(3, S{9, 9, DramCmd::Rd, DramCmd::Rd, true}, &t);
  EXPECT_EQ(banks_of(views.col()), (std::vector<uint16_t>{2, 3}));
  EXPECT_EQ(banks_of(views.row()), (std::vector<uint16_t>{2, 3}));
  for (const auto& v : views.col()) {
    if (v.bank != 3) continue;
    EXPECT_EQ(v.oldest_age, 9u);
    EXPECT_TRUE(v.oldest_is_hit);
  }
  views.hide(2);
  views.hide(3);
  EXPECT_TRUE(views.col().empty());
  EXPECT_FALSE(views.any_hit());
}

TEST(DramBankViews, UpdateSplitsRowAndColumnCommands) {
  DramTimingTracker t = small_tracker();
  t.issued(DramCmd::Act, 1, 10);  // bank 1: RD from cycle 15
  t.issued(DramCmd::Rd, 0, 14);   // channel: RD from cycle 16
  DramBankViews views(4, true);
  using S = DramBankViews::Summary;
  views.show(0, S{1, 0, DramCmd::Act, DramCmd::Act, false}, &t);  // needs an ACT: no row constraint
  views.show(1, S{2, 2, DramCmd::Rd, DramCmd::Rd, true}, &t);     // oldest is a row hit
  auto find = [](std::span<const DramBankView> v, uint16_t bank) {
    return *std::find_if(v.begin(), v.end(), [&](const DramBankView& x) { return x.bank == bank; });
  };
  views.update(15, false);
  EXPECT_TRUE(find(views.row(), 0).oldest_issuable);  // ACT on the row bus
  EXPECT_FALSE(find(views.col(), 0).oldest_issuable);
  EXPECT_FALSE(find(views.col(), 1).hit_issuable);  // the channel's RD -> RD gap runs to 16
  EXPECT_TRUE(views.any_row_issuable());
  EXPECT_FALSE(views.any_col_issuable());
  views.update(16, true);  // the row bus is taken this cycle
  EXPECT_FALSE(find(views.row(), 0).oldest_issuable);
  EXPECT_FALSE(find(views.row(), 1).oldest_issuable);  // a column command never shows on the row list
  EXPECT_TRUE(find(views.col(), 1).oldest_issuable);
  EXPECT_TRUE(find(views.col(), 1).hit_issuable);
  EXPECT_TRUE(views.any_col_issuable());
  views.block(1);
  EXPECT_FALSE(find(views.col(), 1).hit_issuable);
  EXPECT_FALSE(find(views.col(), 1).oldest_issuable);
}

TEST(DramBankViews, SingleBusViewsKeepEveryCommand) {
  DramTimingTracker t = small_tracker();
  DramBankViews views(4, false);
  views.show(2, DramBankViews::Summary{1, 0, DramCmd::Pre, DramCmd::Act, false}, &t);
  views.update(0, false);
  ASSERT_EQ(views.col().size(), 1u);
  EXPECT_TRUE(views.col()[0].oldest_issuable);
  EXPECT_TRUE(views.any_col_issuable());
}

// The ready cycles are read when a bank is shown and again only on retime():
// the channel retimes after every command it issues, since only commands
// move them. The earliest of them is when the channel can next issue.
TEST(DramBankViews, ReadyCyclesFollowTheTrackerOnRetime) {
  DramTimingTracker t = small_tracker();
  DramBankViews views(4, true);
  EXPECT_EQ(views.earliest_ready(), ~Cycle{0});
  using S = DramBankViews::Summary;
  t.issued(DramCmd::Act, 1, 10);  // bank 1: RD from cycle 15
  views.show(1, S{2, 2, DramCmd::Rd, DramCmd::Rd, true}, &t);
  views.show(3, S{3, 0, DramCmd::Rd, DramCmd::Act, false}, &t);  // RD with no constraint yet: cycle 0
  EXPECT_EQ(views.earliest_ready(), 0u);
  t.issued(DramCmd::Rd, 3, 20);  // channel: RD from cycle 22
  EXPECT_EQ(views.earliest_ready(), 0u);  // not seen before retime
  views.retime(t);
  EXPECT_EQ(views.earliest_ready(), 22u);
  views.update(21, false);
  EXPECT_FALSE(views.any_col_issuable());
  views.update(22, false);
  EXPECT_TRUE(views.any_col_issuable());
  views.hide(3);
  views.hide(1);
  EXPECT_EQ(views.earliest_ready(), ~Cycle{0});
}

}  // namespace
}  // namespace ws::timing
