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

// Event caching (Clocked::track_events): a receiver that only wakes on pushes
// and a sender blocked on a full port that only wakes on pops must see the
// same cycles as when the engine polls them on every step.
class Producer : public Clocked {
 public:
  Producer(const ClockDomain& d, Port<int>& out, int count, bool tracked) : d_(d), out_(out), left_(count) {
    if (tracked) {
      track_events();
      out_.wire_producer(this);
    }
  }
  void tick() override {
    if (left_ > 0 && out_.can_push(d_.now_tick())) out_.push(left_--, d_.tick_of(d_.now() + 1));
  }
  Tick next_event() const override {
    ++polls;
    if (left_ == 0) return kNever;
    if (out_.can_push(d_.now_tick())) return d_.now_tick();
    out_.wait_for_room(this);  // blocked: the consumer's next pop wakes us
    return kNever;
  }
  mutable int polls = 0;

 private:
  const ClockDomain& d_;
  Port<int>& out_;
  int left_;
};

// Takes one message every `gap` cycles.
class SlowConsumer : public Clocked {
 public:
  SlowConsumer(const ClockDomain& d, Cycle gap, bool tracked) : d_(d), gap_(gap) {
    if (tracked) {
      track_events();
      in.wire_consumer(this);
    }
  }
  void tick() override {
    if (!in.ready(d_.now_tick()) || d_.now() < next_take_) return;
    arrivals.push_back(d_.now());
    in.pop();
    next_take_ = d_.now() + gap_;
  }
  Tick next_event() const override {
    ++polls;
    return in.empty() ? kNever : std::max(in.next_ready(), d_.tick_of(next_take_));
  }
  Port<int> in{2};
  std::vector<Cycle> arrivals;
  mutable int polls = 0;

 private:
  const ClockDomain& d_;
  Cycle gap_;
  Cycle next_take_ = 0;
};

// Has work on each of its first `cycles` edges: keeps the engine stepping
// every cycle, so that a component asked on every step is asked often.
class Busy : public Clocked {
 public:
  Busy(const ClockDomain& d, Cycle cycles) : d_(d), left_(cycles) {}
  void tick() override { --left_; }
  Tick next_event() const override { return left_ > 0 ? d_.now_tick() : kNever; }

 private:
  const ClockDomain& d_;
  Cycle left_;
};

struct CachingRun {
  std::vector<Cycle> arrivals;
  int polls = 0;
};

CachingRun run_pair(bool tracked) {
  Engine e;
  ClockDomain& a = e.add_domain("a", ClockPeriod{1000});
  ClockDomain& b = e.add_domain("b", ClockPeriod{700});
  SlowConsumer rx(b, 5, tracked);
  Producer tx(a, rx.in, 12, tracked);
  Busy busy(a, 200);
  e.add(a, tx);
  e.add(a, busy);
  e.add(b, rx);
  while (e.step()) {
  }
  return {rx.arrivals, tx.polls + rx.polls};
}

TEST(EngineGating, CachedEventsGiveTheSameScheduleWithFewerPolls) {
  CachingRun polled = run_pair(false), cached = run_pair(true);
  ASSERT_EQ(polled.arrivals.size(), 12u);
  EXPECT_EQ(cached.arrivals, polled.arrivals);
  EXPECT_LT(cached.polls, polled.polls);
}

TEST(EngineGating, APushFromOutsideATickWakesATrackedConsumer) {
  Engine e;
  ClockDomain& d = e.add_domain("d", ClockPeriod{1000});
  SlowConsumer rx(d, 1, true);
  e.add(d, rx);
  EXPECT_FALSE(e.step());  // idle: nothing queued
  // A push from outside any tick wakes the consumer through its wired port.
  rx.in.push(7, 0);
  EXPECT_TRUE(e.step());
  EXPECT_EQ(rx.arrivals.size(), 1u);
  EXPECT_FALSE(e.step());
}

// Only a producer that said it waits for room is woken (asked again) by a
// pop, and that pop spends the wake.
TEST(EngineGating, APopWakesOnlyProducersWaitingForRoom) {
  struct Idle : Clocked {
    Idle() { track_events(); }
    void tick() override {}
    Tick next_event() const override {
      ++polls;
      return kNever;
    }
    mutable int polls = 0;
  };
  Engine e;
  ClockDomain& d = e.add_domain("d", ClockPeriod{1000});
  Idle waiting, other;
  e.add(d, waiting);
  e.add(d, other);
  Port<int> p(1);
  ASSERT_TRUE(p.wire_producer(&waiting));
  ASSERT_TRUE(p.wire_producer(&other));
  EXPECT_FALSE(e.step());
  EXPECT_EQ(waiting.polls, 1);
  EXPECT_EQ(other.polls, 1);
  p.push(1, 0);
  p.wait_for_room(&waiting);
  p.pop();
  EXPECT_FALSE(e.step());
  EXPECT_EQ(waiting.polls, 2);
  EXPECT_EQ(other.polls, 1);
  p.push(2, 0);
  p.pop();
  EXPECT_FALSE(e.step());
  EXPECT_EQ(waiting.polls, 2);
}

// A push moves a tracked consumer's cached event to the message's arrival
// without asking it again: it is asked only after the tick that takes it.
TEST(EngineGating, APushMovesTheConsumersEventToTheArrival) {
  Engine e;
  ClockDomain& d = e.add_domain("d", ClockPeriod{1000});
  Busy busy(d, 10);  // the engine steps on every edge
  SlowConsumer rx(d, 1, true);
  e.add(d, busy);
  e.add(d, rx);
  EXPECT_TRUE(e.step());  // cycle 0: rx asked once, idle
  EXPECT_EQ(rx.polls, 1);
  rx.in.push(7, 3000);
  EXPECT_TRUE(e.step());  // cycle 1
  EXPECT_TRUE(e.step());  // cycle 2
  EXPECT_EQ(rx.polls, 1);
  EXPECT_TRUE(rx.arrivals.empty());
  EXPECT_TRUE(e.step());  // cycle 3: takes the message
  EXPECT_EQ(rx.arrivals, std::vector<Cycle>{3});
  EXPECT_EQ(rx.polls, 2);
}

}  // namespace
}  // namespace ws::timing
