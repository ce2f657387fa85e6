#include "timing/gpu/copy_engines.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace ws::timing {

namespace {
const config::Param<int64_t> kEngines{
    "copy.engines", 2, "engines",
    "copy engines for host<->device copies (CUDA's asyncEngineCount): 1 serialises both directions, 2 or more "
    "give each direction its own (the link per direction carries one copy at a time, so more than 2 add no overlap)",
    {1, 16}};
const config::Param<double> kHostGbps{
    "copy.host_gbps", 12.0, "GB/s",
    "host link bandwidth per direction that one copy gets (PCIe 3.0 x16 moves about 12 GB/s of pinned memory)",
    {0.001, 10000}};
const config::Param<double> kHostLatencyNs{
    "copy.host_latency_ns", 2000.0, "ns",
    "fixed time of each host<->device copy on its engine before its bytes flow (DMA set-up and link round trip)",
    {0, 1e9}};
}  // namespace

CopyEngines::CopyEngines(const config::Config& cfg, stats::Scope scope, const ClockDomain& core)
    : clock_(core),
      latency_ns_(kHostLatencyNs.get(cfg)),
      gbps_(kHostGbps.get(cfg)),
      core_mhz_(core.period().mhz()) {
  track_events();  // its next event changes only when it ticks or start() wakes it
  auto n = static_cast<uint32_t>(kEngines.get(cfg));
  for (uint32_t i = 0; i < n; ++i) {
    stats::Scope e = scope.sub(std::to_string(i));
    engines_.push_back(Engine{0, &e.counter("copies", "host<->device copies this copy engine ran"),
                              &e.counter("bytes", "bytes this copy engine moved"),
                              &e.counter("busy_cycles", "core cycles this copy engine spent on copies"),
                              &e.counter("queued_cycles",
                                         "core cycles copies waited for this engine after their stream turn came")});
  }
}

Cycle CopyEngines::duration(uint64_t bytes) const {
  double ns = latency_ns_ + static_cast<double>(bytes) / gbps_;  // bytes / (GB/s) = ns
  return static_cast<Cycle>(std::ceil(ns * core_mhz_ / 1000.0));
}

// One engine per direction where there are two or more (the usual model:
// uploads and downloads overlap, as PCIe is full duplex); one shared by both
// otherwise. Further engines would share the same link direction.
uint32_t CopyEngines::engine_of(CopyDirection dir) const {
  return engines_.size() >= 2 && dir == CopyDirection::DeviceToHost ? 1 : 0;
}

Cycle CopyEngines::start(uint64_t id, CopyDirection dir, uint64_t bytes, Cycle now) {
  Engine& e = engines_[engine_of(dir)];
  Cycle begin = std::max(now, e.free_at), took = duration(bytes);
  e.free_at = begin + took;
  e.copies->inc();
  e.bytes->inc(bytes);
  e.busy_cycles->inc(took);
  e.queued_cycles->inc(begin - now);
  Ended c{id, e.free_at};
  auto at = std::upper_bound(in_flight_.begin(), in_flight_.end(), c,
                             [](const Ended& a, const Ended& b) { return a.at < b.at; });
  in_flight_.insert(at, c);
  wake();
  return c.at;
}

std::vector<CopyEngines::Ended> CopyEngines::take_ended() { return std::exchange(ended_, {}); }

void CopyEngines::tick() {
  Cycle now = clock_.now();
  auto done = std::find_if(in_flight_.begin(), in_flight_.end(), [&](const Ended& c) { return c.at > now; });
  ended_.insert(ended_.end(), in_flight_.begin(), done);
  in_flight_.erase(in_flight_.begin(), done);
}

Tick CopyEngines::next_event() const { return in_flight_.empty() ? kNever : clock_.tick_of(in_flight_.front().at); }

std::string CopyEngines::waiting_for() const {
  if (in_flight_.empty()) return {};
  return fmt::format("{} copies in flight, the next ends at core cycle {}", in_flight_.size(), in_flight_.front().at);
}

}  // namespace ws::timing
