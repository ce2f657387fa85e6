#include <gtest/gtest.h>

#include <vector>

#include "timing/engine/engine.h"
#include "timing/engine/port.h"

namespace ws::timing {
namespace {

// Sends `count` messages, one per cycle, into a port with a latency.
class Sender : public Clocked {
 public:
  Sender(const ClockDomain& d, Port<int>& out, int count, Cycle latency)
      : d_(d), out_(out), left_(count), latency_(latency) {}
  void tick() override {
    ++ticks;
    if (left_ > 0 && out_.can_push(d_.now_tick())) out_.push(left_--, d_.tick_of(d_.now() + latency_));
  }
  Tick next_event() const override { return left_ > 0 ? d_.now_tick() : kNever; }
  int ticks = 0;

 private:
  const ClockDomain& d_;
  Port<int>& out_;
  int left_;
  Cycle latency_;
};

class Receiver : public Clocked {
 public:
  explicit Receiver(const ClockDomain& d) : d_(d) {}
  void tick() override {
    ++ticks;
    while (in.ready(d_.now_tick())) {
      arrivals.push_back(d_.now());
      in.pop();
    }
  }
  Tick next_event() const override { return in.next_ready(); }
  Port<int> in{4};
  std::vector<Cycle> arrivals;
  int ticks = 0;

 private:
  const ClockDomain& d_;
};

TEST(EngineGating, IdleStretchesAreSkipped) {
  Engine e;
  ClockDomain& fast = e.add_domain("fast", ClockPeriod{1000});
  ClockDomain& slow = e.add_domain("slow", ClockPeriod{3000});
  Receiver rx(slow);
  Sender tx(fast, rx.in, 2, 100);  // arrive 100 fast cycles later
  e.add(fast, tx);
  e.add(slow, rx);
  while (e.step()) {
  }
  // Sent at fast cycles 0 and 1 -> visible at 100 ns and 101 ns -> slow edges 34 (102 ns) for both... in order.
  ASSERT_EQ(rx.arrivals.size(), 2u);
  EXPECT_EQ(rx.arrivals[0], 34u);
  EXPECT_EQ(rx.arrivals[1], 34u);
  EXPECT_EQ(tx.ticks, 2);  // not ticked once idle
  EXPECT_EQ(rx.ticks, 1);  // ticked only when something arrived
  EXPECT_FALSE(e.step());
}

TEST(EngineGating, PortKeepsFifoOrderAndBackPressure) {
  Port<int> p(2);
  p.push(1, 50);
  p.push(2, 10);  // shorter latency cannot overtake
  EXPECT_TRUE(p.can_push(49));   // both still on the wire: the buffer is empty
  EXPECT_FALSE(p.can_push(50));  // both arrived: the 2-slot buffer is full
  EXPECT_FALSE(p.ready(49));
  EXPECT_TRUE(p.ready(50));
  EXPECT_EQ(p.front(), 1);
  p.pop();
  EXPECT_EQ(p.next_ready(), 50u);
}

}  // namespace
}  // namespace ws::timing
