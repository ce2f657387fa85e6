#include "timing/engine/partitions.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "common/error.h"

namespace ws::timing {
namespace {

constexpr Tick kPs = 1000;

// Room follows the local rule (full when the capacity-th oldest message has
// arrived), judged from what the producer sent; pops count from the next
// exchange on.
TEST(RemotePort, StagesPushesAndSeesPopsAtTheExchange) {
  Port<int> p(2);
  p.make_remote(3 * kPs);  // the wire adds 3 ns
  EXPECT_TRUE(p.can_push(0));
  p.push(1, 2 * kPs);  // arrives at 5
  p.push(2, 3 * kPs);  // arrives at 6
  EXPECT_TRUE(p.can_push(5 * kPs));   // the second has not arrived yet
  EXPECT_FALSE(p.can_push(6 * kPs));  // both have: full
  EXPECT_TRUE(p.empty());             // nothing reaches the consumer before the exchange
  p.exchange(5 * kPs);
  ASSERT_EQ(p.size(), 2u);
  EXPECT_EQ(p.next_ready(), 5 * kPs);
  p.pop();
  EXPECT_FALSE(p.can_push(6 * kPs));  // the pop is known at the next exchange
  p.exchange(6 * kPs);
  EXPECT_TRUE(p.can_push(6 * kPs));
  p.push(3, 2 * kPs);  // arrives at 5 + ... no earlier than the one before it (6)
  p.exchange(6 * kPs);
  EXPECT_EQ(p.ready_of(1), 6 * kPs);
  p.push(4, 3 * kPs);  // arrives at 6: inside the window ending at 7
  EXPECT_THROW(p.exchange(7 * kPs), Error);
}

// Sends to the other nodes and forwards what it receives, by a fixed
// pseudo-random rule; logs every arrival. Nodes have one input port per
// sender, so that each port has one producer.
class Node : public Clocked {
 public:
  Node(const ClockDomain& clk, uint32_t id, uint32_t nodes, Cycle min_latency)
      : clk_(clk), id_(id), min_latency_(min_latency) {
    for (uint32_t i = 0; i < nodes; ++i) in.push_back(std::make_unique<Port<uint64_t>>(1 << 20));
  }
  void connect(std::vector<Port<uint64_t>*> to) { out_ = std::move(to); }
  void tick() override {
    Cycle now = clk_.now();
    for (auto& p : in)
      while (p->ready(clk_.now_tick())) {
        uint64_t v = p->front();
        p->pop();
        log.emplace_back(now, id_, v);
        if (v % 3 != 0) send(v / 3 + now);  // forward some
      }
    if (now < 40 && (now + id_) % 4 == 0) send(now * 1000 + id_ * 7 + 1);
  }
  Tick next_event() const override {
    Tick t = clk_.now() < 40 ? clk_.tick_of(clk_.now() + 1) : kNever;
    for (auto& p : in) t = std::min(t, p->next_ready());
    return t;
  }
  std::vector<std::tuple<Cycle, uint32_t, uint64_t>> log;
  std::vector<std::unique_ptr<Port<uint64_t>>> in;

 private:
  void send(uint64_t v) {
    uint32_t to = static_cast<uint32_t>((v * 2654435761u) % out_.size());
    Port<uint64_t>& p = *out_[to];
    if (!p.can_push(clk_.now_tick())) return;
    p.push(v, clk_.tick_of(clk_.now() + min_latency_ + v % 5));
  }
  const ClockDomain& clk_;
  uint32_t id_;
  Cycle min_latency_;
  std::vector<Port<uint64_t>*> out_;
};

using Log = std::vector<std::tuple<Cycle, uint32_t, uint64_t>>;

// `nodes` nodes, each in its own partition (partitions > 0, with `threads`
// threads) or all in one engine (partitions == 0).
Log run_nodes(uint32_t nodes, bool partitioned, unsigned threads) {
  const Cycle latency = 6;
  std::vector<std::unique_ptr<Node>> ns;
  Engine single;
  Partitions parts(latency * kPs, threads);
  std::vector<ClockDomain*> clocks;
  for (uint32_t i = 0; i < nodes; ++i) {
    Engine& e = partitioned ? parts.add() : single;
    if (partitioned || i == 0) clocks.push_back(&e.add_domain("core", ClockPeriod{kPs}));
    ns.push_back(std::make_unique<Node>(*clocks.back(), i, nodes, latency));
    e.add(*clocks.back(), *ns.back());
  }
  for (uint32_t i = 0; i < nodes; ++i) {
    std::vector<Port<uint64_t>*> to;
    for (uint32_t j = 0; j < nodes; ++j) {
      Port<uint64_t>& p = *ns[j]->in[i];
      if (partitioned && i != j) parts.link(p);
      to.push_back(&p);
    }
    ns[i]->connect(std::move(to));
  }
  if (partitioned) {
    while (parts.run_window()) {
    }
  } else {
    while (single.step()) {
    }
  }
  Log all;
  for (auto& n : ns) all.insert(all.end(), n->log.begin(), n->log.end());
  return all;
}

// The partitioned run delivers every message when one engine would, for
// any number of threads.
TEST(Partitions, SameArrivalsAsOneEngineForAnyThreadCount) {
  Log ref = run_nodes(6, false, 1);
  ASSERT_GT(ref.size(), 100u);
  for (unsigned threads : {1u, 2u, 4u}) EXPECT_EQ(run_nodes(6, true, threads), ref) << threads << " threads";
}

// A remote port's producer sees the room of a pop one exchange later; a
// producer that waited for room is woken by that exchange.
class Burst : public Clocked {
 public:
  Burst(const ClockDomain& clk, Port<int>& out, int n) : clk_(clk), out_(out), left_(n) {
    track_events();
    out_.wire_producer(this);
  }
  void tick() override {
    if (left_ > 0 && out_.can_push(clk_.now_tick())) {
      out_.push(left_--, clk_.tick_of(clk_.now() + 4));
      sent.push_back(clk_.now());
    }
  }
  Tick next_event() const override {
    if (left_ == 0) return kNever;
    if (out_.can_push(clk_.now_tick())) return clk_.now_tick();
    out_.wait_for_room(this);
    return kNever;
  }
  std::vector<Cycle> sent;

 private:
  const ClockDomain& clk_;
  Port<int>& out_;
  int left_;
};

class Sink : public Clocked {
 public:
  explicit Sink(const ClockDomain& clk) : clk_(clk) {
    track_events();
    in.wire_consumer(this);
  }
  void tick() override {
    while (in.ready(clk_.now_tick())) in.pop();
  }
  Tick next_event() const override { return in.next_ready(); }
  Port<int> in{2};

 private:
  const ClockDomain& clk_;
};

TEST(Partitions, PopsAreSeenAtTheNextExchange) {
  Partitions parts(4 * kPs, 2);
  Engine& a = parts.add();
  Engine& b = parts.add();
  ClockDomain& ca = a.add_domain("core", ClockPeriod{kPs});
  ClockDomain& cb = b.add_domain("core", ClockPeriod{kPs});
  Sink sink(cb);
  Burst burst(ca, sink.in, 6);
  a.add(ca, burst);
  b.add(cb, sink);
  parts.link(sink.in);
  while (parts.run_window()) {
  }
  // A buffer of two, a wire of 4: sends at 0-3 (none has arrived yet) and
  // at 4 (only one has); from 5 the buffer is full as far as the producer
  // knows, until the pops of the window 4-7 are known at its end (8).
  EXPECT_EQ(burst.sent, (std::vector<Cycle>{0, 1, 2, 3, 4, 8}));
}

class Thrower : public Clocked {
 public:
  explicit Thrower(const ClockDomain& clk) : clk_(clk) {}
  void tick() override {
    if (clk_.now() == 3) throw InputError("partition error at cycle 3");
  }
  Tick next_event() const override { return clk_.now() < 10 ? clk_.tick_of(clk_.now() + 1) : kNever; }

 private:
  const ClockDomain& clk_;
};

TEST(Partitions, AnErrorInAPartitionIsRethrownAfterTheWindow) {
  for (unsigned threads : {1u, 2u}) {
    Partitions parts(2 * kPs, threads);
    std::vector<std::unique_ptr<Thrower>> ts;
    for (int i = 0; i < 3; ++i) {
      Engine& e = parts.add();
      ClockDomain& c = e.add_domain("core", ClockPeriod{kPs});
      ts.push_back(std::make_unique<Thrower>(c));
      e.add(c, *ts.back());
    }
    EXPECT_TRUE(parts.run_window());
    EXPECT_THROW(parts.run_window(), InputError) << threads;
  }
}

// Inside a window each partition's members see their own engine as the
// current one (and its time, not another partition's that ran ahead);
// outside a window there is none. Two ticking components, two partitions,
// on one and on two threads.
class Watcher : public Clocked {
 public:
  Watcher(const ClockDomain& clk, Cycle period) : clk_(clk), period_(period) {}
  void tick() override {
    const Engine* e = Partitions::current();
    seen.emplace_back(e, e ? e->now() : 0, clk_.now_tick());
  }
  Tick next_event() const override { return clk_.now() < 20 ? clk_.tick_of(clk_.now() + period_) : kNever; }
  std::vector<std::tuple<const Engine*, Tick, Tick>> seen;

 private:
  const ClockDomain& clk_;
  Cycle period_;
};

TEST(Partitions, CurrentIsTheEngineSteppingOnThisThread) {
  for (unsigned threads : {1u, 2u}) {
    Partitions parts(5 * kPs, threads);
    Engine& a = parts.add();
    Engine& b = parts.add();
    ClockDomain& ca = a.add_domain("a", ClockPeriod{kPs});
    ClockDomain& cb = b.add_domain("b", ClockPeriod{kPs});
    Watcher wa(ca, 1), wb(cb, 3);
    a.add(ca, wa);
    b.add(cb, wb);
    EXPECT_EQ(Partitions::current(), nullptr);
    while (parts.run_window()) EXPECT_EQ(Partitions::current(), nullptr);
    ASSERT_EQ(wa.seen.size(), 20u);  // cycles 1..20
    ASSERT_EQ(wb.seen.size(), 7u);   // cycles 3, 6, .., 21
    for (auto [engine, now, tick] : wa.seen) {
      EXPECT_EQ(engine, &a);
      EXPECT_EQ(now, tick);  // a's own time, although b may be further on
    }
    for (auto [engine, now, tick] : wb.seen) {
      EXPECT_EQ(engine, &b);
      EXPECT_EQ(now, tick);
    }
  }
}

}  // namespace
}  // namespace ws::timing
