#include "timing/core/fetch_unit.h"

#include <algorithm>

#include "common/error.h"

namespace ws::timing {

namespace {
// Sizes: Jia et al., "Dissecting the NVIDIA Volta GPU Architecture via
// Microbenchmarking" (2018), report a 12 KB L0 instruction cache per
// processing block and a 128 KB L1 instruction cache per SM on V100.
const config::Param<bool> kPerfect{"l1i.perfect", false, "", "every instruction fetch hits (no instruction cache model)"};
const config::Param<int64_t> kL0SizeKb{"l0i.size_kb", 12, "KB",
                                       "L0 instruction cache per sub-core (0: none, the L1I feeds the warps directly)",
                                       {0, 1024}};
const config::Param<int64_t> kL0Ways{"l0i.ways", 12, "ways", "L0 instruction cache associativity", {1, 1024}};
const config::Param<int64_t> kSizeKb{"l1i.size_kb", 128, "KB", "L1 instruction cache per SM", {1, 4096}};
const config::Param<int64_t> kWays{"l1i.ways", 16, "ways", "L1 instruction cache associativity", {1, 1024}};
const config::Param<int64_t> kLatency{"l1i.latency", 20, "cycles",
                                      "an L0 miss that hits in the L1 instruction cache (or a line arriving from "
                                      "the L2) reaches the warp this much later",
                                      {0, 10000}};
const config::Param<int64_t> kPrefetch{"l1i.prefetch_lines", 4, "lines",
                                       "sequential prefetch: each access to a new 128 B line also requests the next "
                                       "this many lines",
                                       {0, 64}};
const config::Param<int64_t> kMaxMisses{"l1i.mshrs", 16, "lines",
                                        "L2 reads the L1I keeps in flight; prefetches beyond it are dropped (demand "
                                        "misses always go out)",
                                        {1, 4096}};
const config::Param<int64_t> kFillQueue{"l1i.fill_queue", 8, "sectors", "replies from the L2 buffered", {1, 4096}};
const config::Param<bool> kWarmStart{
    "l1i.warm_start", false, "",
    "each SM's L1I holds a kernel's code when the kernel starts, as on a profiler's replay of it (ncu runs a kernel "
    "once per group of metrics): the first miss of each line in a launch finds it, later misses (capacity) go to "
    "the L2; the L0s start empty (docs/validation-h100.md)"};

SectorCacheShape shape(const config::Config& cfg, const config::Param<int64_t>& size_kb,
                       const config::Param<int64_t>& ways, const char* prefix) {
  SectorCacheShape s;
  uint64_t lines = static_cast<uint64_t>(size_kb.get(cfg)) * 1024 / kLineBytes;
  s.ways = static_cast<uint32_t>(ways.get(cfg));
  if (lines == 0 || lines % s.ways != 0)
    throw ConfigError(ways.name(), std::string("must divide the number of 128 B lines in ") + size_kb.name() + " (" +
                                       std::to_string(lines) + ")");
  s.sets = static_cast<uint32_t>(lines / s.ways);
  s.param_prefix = prefix;
  return s;
}
}  // namespace

FetchUnit::FetchUnit(const config::Config& cfg, stats::Scope scope, const ClockDomain& clk, uint16_t sm_id,
                     uint32_t subcores)
    : clk_(clk),
      perfect_(kPerfect.get(cfg)),
      warm_start_(kWarmStart.get(cfg)),
      l1_latency_(static_cast<uint32_t>(kLatency.get(cfg))),
      prefetch_lines_(static_cast<uint32_t>(kPrefetch.get(cfg))),
      max_misses_(static_cast<uint32_t>(kMaxMisses.get(cfg))),
      last_line_(subcores, ~Addr{0}),
      prefetched_to_(subcores, 0),
      fills_(subcores, 0),
      l1_(shape(cfg, kSizeKb, kWays, "l1i")),
      l2_(clk, sm_id, MemClient::Inst, static_cast<size_t>(kFillQueue.get(cfg))),
      accesses_(scope.sub("l1i").counter("accesses", "instruction fetches (one per issued instruction)")),
      l0_misses_(scope.sub("l0i").counter("misses", "fetches that missed the sub-core's L0 instruction cache")),
      l1_hits_(scope.sub("l1i").counter("hits", "L0 misses and prefetches that found the line in the L1I")),
      misses_stat_(scope.sub("l1i").counter("misses", "lines read from the L2 (demand and prefetch)")),
      merges_(scope.sub("l1i").counter("merges", "L0 misses that joined a line already coming from the L2")),
      prefetches_(scope.sub("l1i").counter("prefetches", "lines read from the L2 by the sequential prefetcher")),
      sectors_(scope.sub("l1i").counter("sectors", "32 B sectors received from the L2")) {
  l1_ways_ = static_cast<uint32_t>(kWays.get(cfg));
  if (kL0SizeKb.get(cfg) > 0) {
    l0_ways_ = static_cast<uint32_t>(kL0Ways.get(cfg));
    for (uint32_t s = 0; s < subcores; ++s) l0_.emplace_back(shape(cfg, kL0SizeKb, kL0Ways, "l0i"), 0);
  }
}

Cycle FetchUnit::fetch_at(uint32_t subcore, uint32_t slot, Addr addr, Cycle now) {
  accesses_.inc();
  if (perfect_) return now;
  Addr line = line_of(addr);
  if (slot >= warp_line_.size()) warp_line_.resize(size_t{slot} + 1);
  WarpLine& mine = warp_line_[slot];
  // (Half the ways: fills started before the stamp may be installed after it.)
  uint32_t safe_fills = std::max(1u, (has_l0() ? l0_ways_ : l1_ways_) / 2);
  if (line == mine.line && fills_seen(subcore) - mine.fills < safe_fills) return now;
  bool new_line = line != last_line_[subcore];
  last_line_[subcore] = line;
  Cycle ready;
  if (has_l0()) {
    FixedMissTags::Result r = l0_[subcore].probe(line, now);
    if (r.outcome == FixedMissTags::Outcome::Miss) {
      l0_misses_.inc();
      ready = from_l1(subcore, slot, line, now);
    } else {
      ready = r.ready;
    }
  } else {
    ready = from_l1(subcore, slot, line, now);
  }
  if (ready <= now) mine = WarpLine{line, fills_seen(subcore)};
  if (new_line) prefetch_after(subcore, line, now);
  return ready;
}

// Sequential prefetch: the next `prefetch_lines` lines after `line`, unless
// the sub-core's prefetcher already covered them (warps looping over code it
// has run ahead of ask for nothing new).
void FetchUnit::prefetch_after(uint32_t subcore, Addr line, Cycle now) {
  if (prefetch_lines_ == 0) return;
  Addr last = line + Addr{prefetch_lines_} * kLineBytes;
  Addr& to = prefetched_to_[subcore];
  Addr window = Addr{4} * prefetch_lines_ * kLineBytes;
  if (to >= last && to - last <= window) return;  // covered recently
  Addr from = (to > line && to < last) ? to + kLineBytes : line + kLineBytes;
  to = last;
  // A line dropped for want of an MSHR is asked for again by the next access
  // to a new line (the window then ends before it).
  for (Addr a = from; a <= last; a += kLineBytes)
    if (!prefetch(subcore, a, now)) {
      to = a - kLineBytes;
      return;
    }
}

// With l1i.warm_start, a line this launch has not yet asked the L1I for was
// there from the kernel's start: it is installed now, as a hit.
CacheLine* FetchUnit::find_l1(Addr line) {
  CacheLine* l = l1_.find(line);
  if (l || !warm_start_ || misses_.find(line) || warmed_.find(line)) return l;
  warmed_[line] = 1;
  ++l1_fills_;
  return &l1_.insert(line, nullptr);
}

// An L0 miss (or, without an L0, any access) looks the line up in the L1I.
Cycle FetchUnit::from_l1(uint32_t subcore, uint32_t slot, Addr line, Cycle now) {
  if (CacheLine* l = find_l1(line)) {
    l1_.touch(*l);
    if (!has_l0()) return now;
    l1_hits_.inc();
    Cycle ready = now + l1_latency_;
    fill_l0(subcore, line, ready);
    return ready;
  }
  if (Miss* m = misses_.find(line)) {
    merges_.inc();
    m->waiters.push_back({subcore, slot});
    return kWaiting;
  }
  request_line(line);
  misses_.find(line)->waiters.push_back({subcore, slot});
  return kWaiting;
}

// Brings `line` towards the sub-core's L0 unless it is there or on its way;
// false when every MSHR is taken (the prefetch is dropped).
bool FetchUnit::prefetch(uint32_t subcore, Addr line, Cycle now) {
  if (has_l0()) {
    if (l0_[subcore].probe(line, now).outcome != FixedMissTags::Outcome::Miss) return true;
    if (CacheLine* l = find_l1(line)) {
      l1_.touch(*l);
      fill_l0(subcore, line, now + l1_latency_);
      return true;
    }
  } else if (find_l1(line)) {
    return true;
  }
  if (Miss* m = misses_.find(line)) {
    for (uint32_t i = 0; i < m->waiters.size(); ++i)
      if (m->waiters[i].subcore == subcore) return true;
    m->waiters.push_back({subcore, kNoWarp});
    return true;
  }
  if (misses_.size() >= max_misses_) return false;
  prefetches_.inc();
  request_line(line);
  misses_.find(line)->waiters.push_back({subcore, kNoWarp});
  return true;
}

// One read per 32 B sector of the line, as the L2 serves them.
void FetchUnit::request_line(Addr line) {
  misses_stat_.inc();
  misses_[line] = Miss{};
  l2_.read(line, kSectorsPerLine);
}

void FetchUnit::tick(Cycle now) {
  l2_.tick(clk_.tick_of(now), [&](Addr a) { sector_arrived(a, now); });
}

void FetchUnit::sector_arrived(Addr addr, Cycle now) {
  Addr line = line_of(addr);
  sectors_.inc();
  Miss* m = misses_.find(line);
  if (!m) throw Error("internal: instruction fetch reply for a line not requested");
  if (--m->sectors_left == 0) line_arrived(line, *m, now);
}

// The line is installed in the L1I and passed on to the L0s that wait for it.
void FetchUnit::line_arrived(Addr line, Miss& miss, Cycle now) {
  SmallVec<Waiter, 4> waiters = miss.waiters;
  misses_.erase(line);
  l1_.insert(line, nullptr);
  ++l1_fills_;
  Cycle ready = now + (has_l0() ? l1_latency_ : 0);
  for (uint32_t i = 0; i < waiters.size(); ++i) {
    const Waiter& w = waiters[i];
    if (has_l0()) fill_l0(w.subcore, line, ready);
    if (w.slot != kNoWarp) woken_.push_back({w.slot, ready});
  }
}

}  // namespace ws::timing
