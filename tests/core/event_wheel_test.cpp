#include <gtest/gtest.h>

#include <map>
#include <random>
#include <vector>

#include "timing/engine/event_wheel.h"

namespace ws::timing {
namespace {

// The members due at the window's first cycle, ascending.
std::vector<uint32_t> due_now(const EventWheel& w) {
  std::vector<uint32_t> out;
  for (size_t i = 0; i < w.words(); ++i)
    for (uint64_t m = w.due_now(i); m; m &= m - 1) out.push_back(static_cast<uint32_t>(i * 64 + __builtin_ctzll(m)));
  return out;
}

TEST(EventWheel, EarliestIsTheSmallestPlacedCycle) {
  EventWheel w;
  w.resize(3);
  EXPECT_EQ(w.earliest(), EventWheel::kNone);
  w.place(0, 40);
  w.place(1, 7);
  w.place(2, 63);
  EXPECT_EQ(w.earliest(), 7u);
  w.remove(1);
  EXPECT_EQ(w.earliest(), 40u);
  w.place(0, EventWheel::kNone);  // not due any more
  EXPECT_EQ(w.earliest(), 63u);
}

// Members beyond the 64-cycle window wait aside and come in when the window
// reaches them; members due at the same cycle come out in member order.
TEST(EventWheel, FarMembersEnterTheWindowInOrder) {
  EventWheel w;
  w.resize(130);
  w.place(129, 1000);
  w.place(3, 1000);
  w.place(64, 70);
  EXPECT_EQ(w.earliest(), 70u);  // 70 is past the window [0, 64): found among the far ones
  w.advance(70);
  EXPECT_EQ(due_now(w), std::vector<uint32_t>{64});
  w.remove(64);
  EXPECT_EQ(w.earliest(), 1000u);
  w.advance(1000);
  EXPECT_EQ(due_now(w), (std::vector<uint32_t>{3, 129}));
}

// A slot is reused 64 cycles later: a member due then must not show as due
// now, and re-placing a member moves it.
TEST(EventWheel, ASlotServesOnlyItsOwnCycle) {
  EventWheel w;
  w.resize(2);
  w.advance(10);
  w.place(0, 10 + EventWheel::kSlots);  // same slot as cycle 10
  w.place(1, 10);
  EXPECT_EQ(due_now(w), std::vector<uint32_t>{1});
  w.place(1, 11);
  EXPECT_TRUE(due_now(w).empty());
  EXPECT_EQ(w.earliest(), 11u);
}

// The engine's visit: due members are detached one by one (their bits stay
// while the slot is walked) and re-placed later; clearing the slot at the end
// leaves only their new places.
TEST(EventWheel, DetachedMembersLeaveWithTheirSlot) {
  EventWheel w;
  w.resize(3);
  w.place(0, 0);
  w.place(1, 0);
  w.place(2, 5);
  w.detach(0);
  w.place(0, 1);
  w.detach(1);
  w.place(1, 0 + EventWheel::kSlots);  // the same slot, one turn later: waits aside
  EXPECT_EQ(due_now(w), (std::vector<uint32_t>{0, 1}));  // stale bits until the slot is cleared
  w.clear_due_now();
  EXPECT_TRUE(due_now(w).empty());
  EXPECT_EQ(w.earliest(), 1u);
  w.remove(0);  // slot 1 now empty: earliest() skips it
  EXPECT_EQ(w.earliest(), 5u);
  w.remove(2);
  EXPECT_EQ(w.earliest(), EventWheel::kSlots);
}

TEST(EventWheel, MovingTheWindowBackwardsIsAnError) {
  EventWheel w;
  w.resize(1);
  w.advance(5);
  EXPECT_ANY_THROW(w.advance(4));
  EXPECT_ANY_THROW(w.place(0, 3));  // before the window's start
}

// Against a plain map under random placements and advances: the earliest
// cycle and the members due at it always agree.
TEST(EventWheel, MatchesAReferenceUnderRandomChurn) {
  std::mt19937_64 rng(21);
  const uint32_t n = 150;
  EventWheel w;
  w.resize(n);
  std::map<uint32_t, Cycle> ref;
  Cycle base = 0;
  for (int step = 0; step < 20000; ++step) {
    uint32_t k = static_cast<uint32_t>(rng() % n);
    uint64_t r = rng() % 10;
    if (r < 2) {
      w.remove(k);
      ref.erase(k);
    } else {
      Cycle c = base + (r < 8 ? rng() % 40 : rng() % 500);
      w.place(k, c);
      ref[k] = c;
    }
    if (rng() % 4 == 0) {
      Cycle low = EventWheel::kNone;
      for (auto [m, c] : ref) low = std::min(low, c);
      ASSERT_EQ(w.earliest(), low) << "step " << step;
      if (low == EventWheel::kNone) continue;
      base = low;
      w.advance(base);
      std::vector<uint32_t> expect;
      for (auto [m, c] : ref)
        if (c == base) expect.push_back(m);
      ASSERT_EQ(due_now(w), expect) << "step " << step;
      for (uint32_t m : expect) {  // as the engine does: due members tick and go later
        Cycle next = base + 1 + rng() % 100;
        w.place(m, next);
        ref[m] = next;
      }
    }
  }
}

}  // namespace
}  // namespace ws::timing
