// The abstract model's booking of a slice pipeline (timing/abstract/calendar.h).
#include "timing/abstract/calendar.h"

#include <gtest/gtest.h>

namespace ws::timing::abstract {
namespace {

TEST(AbstractCalendar, InOrderRequestsQueueAsOnAServer) {
  Calendar c;
  EXPECT_EQ(c.book(100, 4), 100);  // idle: starts on arrival
  EXPECT_EQ(c.book(100, 4), 104);  // behind the first
  EXPECT_EQ(c.book(101, 4), 108);
  EXPECT_EQ(c.book(200, 1), 200);  // the queue has drained by then
}

// A request booked after one for the future, but arriving before it, does
// not wait for it (a single next-free time would start it at 1,004).
TEST(AbstractCalendar, AnEarlierArrivalBookedLaterDoesNotWaitForTheFuture) {
  Calendar c;
  EXPECT_EQ(c.book(1000, 4), 1000);
  EXPECT_EQ(c.book(40, 4), 40);
  EXPECT_EQ(c.book(40, 4), 44);
}

// A window's capacity is its length: 16 requests of 2 cycles arriving
// together fill 32 cycles, two windows, and the 17th starts in the third.
TEST(AbstractCalendar, ABurstSpillsIntoLaterWindows) {
  Calendar c;
  for (int i = 0; i < 16; ++i) c.book(0, 2);
  EXPECT_EQ(c.book(0, 2), 32);
}

// Time of a window before an arrival is lost to it: a request at cycle 12
// of a window can use only its last 4 cycles.
TEST(AbstractCalendar, AnArrivalCannotUseItsWindowsPast) {
  Calendar c;
  EXPECT_EQ(c.book(12, 8), 12);   // cycles 12..16 of window 0 and 4 of window 1
  EXPECT_EQ(c.book(16, 1), 20);   // window 1 starts with those 4 taken
}

TEST(AbstractCalendar, AHoldKeepsLaterArrivalsOut) {
  Calendar c;
  c.hold(10, 100);
  EXPECT_EQ(c.book(20, 1), 100);
  // Before the hold: its window still has the 10 cycles the hold left (work
  // in a window is packed from the window's start).
  EXPECT_LT(c.book(5, 1), 10);
}

// Bookings far ahead of old ones move the ring on; the old windows read as
// free again only for arrivals in them, which are booked at the ring's start.
TEST(AbstractCalendar, FarFutureBookingsKeepWorking) {
  Calendar c;
  EXPECT_EQ(c.book(0, 4), 0);
  double far = 1e6;
  EXPECT_EQ(c.book(far, 4), far);
  EXPECT_EQ(c.book(far, 4), far + 4);
  EXPECT_GE(c.book(0, 1), far - Calendar::kWindow * Calendar::kWindows);
}

}  // namespace
}  // namespace ws::timing::abstract
