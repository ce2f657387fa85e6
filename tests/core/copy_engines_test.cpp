// The copy engines alone, on a 1 GHz clock with a 10 GB/s link and 1 us of
// latency per copy: a copy of B bytes holds its engine for 1000 + B / 10
// cycles (B / 10 GB/s = B / 10 ns), so 1,000,000 bytes take 101,000 cycles.
#include <gtest/gtest.h>

#include <map>
#include <memory>

#include "timing/gpu/copy_engines.h"

namespace ws::timing {
namespace {

constexpr uint64_t kBytes = 1'000'000;
constexpr Cycle kCopyCycles = 1000 + kBytes / 10;

struct Bench {
  explicit Bench(int64_t engines = 2) {
    cfg.set_assignment("copy.host_gbps=10");
    cfg.set_assignment("copy.host_latency_ns=1000");
    cfg.set_assignment("copy.engines=" + std::to_string(engines));
    ce = std::make_unique<CopyEngines>(cfg, stats::Scope(reg, "copy_engine"), clock);
  }
  // Ticks the engines at each of their events until they are idle; the
  // cycle each copy ended, by id.
  std::map<uint64_t, Cycle> run() {
    std::map<uint64_t, Cycle> ends;
    while (ce->busy()) {
      clock.set_now(clock.cycle_at_or_after(ce->next_event()));
      ce->tick();
      for (auto e : ce->take_ended()) ends[e.id] = e.at;
    }
    return ends;
  }
  config::Config cfg;
  stats::Registry reg;
  ClockDomain clock{"core", ClockPeriod::from_mhz(1000)};
  std::unique_ptr<CopyEngines> ce;
};

TEST(CopyEngines, DurationIsLatencyPlusBytesOverBandwidth) {
  Bench b;
  EXPECT_EQ(b.ce->duration(kBytes), kCopyCycles);
  EXPECT_EQ(b.ce->duration(0), 1000u);
}

// Two uploads share the host-to-device engine: the second starts when the
// first ends, and its wait is counted.
TEST(CopyEngines, CopiesOnOneEngineSerialise) {
  Bench b;
  b.ce->start(1, CopyDirection::HostToDevice, kBytes, 0);
  b.ce->start(2, CopyDirection::HostToDevice, kBytes, 0);
  auto ends = b.run();
  EXPECT_EQ(ends.at(1), kCopyCycles);
  EXPECT_EQ(ends.at(2), 2 * kCopyCycles);
  EXPECT_EQ(b.reg.sum("copy_engine.0.queued_cycles"), kCopyCycles);
  EXPECT_EQ(b.reg.sum("copy_engine.0.bytes"), 2 * kBytes);
  EXPECT_EQ(b.reg.sum("copy_engine.1.copies"), 0u);
}

// An upload and a download use the two engines (PCIe is full duplex): both
// end after one copy's time.
TEST(CopyEngines, OppositeDirectionsOverlapOnTwoEngines) {
  Bench b;
  EXPECT_NE(b.ce->engine_of(CopyDirection::HostToDevice), b.ce->engine_of(CopyDirection::DeviceToHost));
  b.ce->start(1, CopyDirection::HostToDevice, kBytes, 0);
  b.ce->start(2, CopyDirection::DeviceToHost, kBytes, 0);
  auto ends = b.run();
  EXPECT_EQ(ends.at(1), kCopyCycles);
  EXPECT_EQ(ends.at(2), kCopyCycles);
  EXPECT_EQ(b.reg.sum("copy_engine.*.busy_cycles"), 2 * kCopyCycles);
}

// With one engine (GeForce Fermi, Kepler) the two directions take turns.
TEST(CopyEngines, OneEngineSerialisesBothDirections) {
  Bench b(1);
  b.ce->start(1, CopyDirection::HostToDevice, kBytes, 0);
  b.ce->start(2, CopyDirection::DeviceToHost, kBytes, 0);
  auto ends = b.run();
  EXPECT_EQ(ends.at(2), 2 * kCopyCycles);
}

// A copy whose turn comes after the engine went idle starts at its turn.
TEST(CopyEngines, IdleEngineStartsACopyAtItsTurn) {
  Bench b;
  b.ce->start(1, CopyDirection::HostToDevice, kBytes, 0);
  EXPECT_EQ(b.ce->start(2, CopyDirection::HostToDevice, 0, 5 * kCopyCycles), 5 * kCopyCycles + 1000);
  auto ends = b.run();
  EXPECT_EQ(ends.at(2), 5 * kCopyCycles + 1000);
  EXPECT_EQ(b.reg.sum("copy_engine.0.queued_cycles"), 0u);
}

}  // namespace
}  // namespace ws::timing
