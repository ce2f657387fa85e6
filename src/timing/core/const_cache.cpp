#include "timing/core/const_cache.h"

#include <algorithm>
#include <array>
#include <bit>

#include "common/error.h"
#include "ir/param_bank.h"

namespace ws::timing {

namespace {
// Volta keeps a 2 KB constant cache with 64 B lines per SM in front of a larger
// constant/instruction cache (not modelled: misses are read from the L2).
const config::Param<bool> kPerfect{"l1c.perfect", false, "",
                                   "every constant load hits after core.const_latency, whatever its addresses "
                                   "(no constant-cache model, no L2 traffic)"};
const config::Param<int64_t> kSizeKb{"l1c.size_kb", 2, "KB", "constant cache capacity per SM", {1, 1024}};
const config::Param<int64_t> kL1cLineBytes{"l1c.line_bytes", 64, "bytes",
                                           "constant cache line (power of two; a miss reads its 32 B sectors from "
                                           "the L2)",
                                           {32, 128}};
const config::Param<int64_t> kWays{"l1c.ways", 4, "ways", "constant cache associativity", {1, 1024}};
const config::Param<int64_t> kFillQueue{"l1c.fill_queue", 8, "sectors", "replies from the L2 buffered", {1, 4096}};
const config::Param<int64_t> kBankLatency{
    "l1c.bank_latency", 130, "cycles",
    "a constant-cache miss on a line of the launch's parameter bank (ir/param_bank.h) is served after this many "
    "cycles without L2 traffic, from the level between the constant cache and the L2 that holds the bank when the "
    "kernel starts (130: the H100's constant and S2R waits of a one-warp kernel, docs/validation-h100.md); 0 reads "
    "it from the L2 like any constant line (docs/memory-system.md)",
    {0, 100000}};
const config::Param<int64_t> kHitLatency{"core.const_latency", 8, "cycles",
                                         "constant-cache hit latency, also from a line's arrival to its waiting "
                                         "loads' data (every constant load's latency with l1c.perfect = true)",
                                         {1, 1000}};

SectorCacheShape shape(const config::Config& cfg) {
  auto line = static_cast<uint64_t>(kL1cLineBytes.get(cfg));
  if (!std::has_single_bit(line)) throw ConfigError(kL1cLineBytes.name(), "must be a power of two");
  uint64_t lines = static_cast<uint64_t>(kSizeKb.get(cfg)) * 1024 / line;
  SectorCacheShape s;
  s.ways = static_cast<uint32_t>(kWays.get(cfg));
  if (lines % s.ways != 0)
    throw ConfigError(kWays.name(), "must divide the number of lines in l1c.size_kb (" + std::to_string(lines) + ")");
  s.sets = static_cast<uint32_t>(lines / s.ways);
  if (!std::has_single_bit(s.sets)) throw ConfigError(kSizeKb.name(), "l1c sets (size / line / ways) must be a power of two");
  s.param_prefix = "l1c";
  return s;
}
}  // namespace

ConstCache::ConstCache(const config::Config& cfg, stats::Scope scope, const ClockDomain& clk, uint16_t sm_id)
    : clk_(clk),
      perfect_(kPerfect.get(cfg)),
      hit_latency_(static_cast<uint32_t>(kHitLatency.get(cfg))),
      line_bytes_(static_cast<uint32_t>(kL1cLineBytes.get(cfg))),
      bank_latency_(static_cast<uint32_t>(kBankLatency.get(cfg))),
      tags_(shape(cfg)),
      l2_(clk, sm_id, MemClient::Const, static_cast<size_t>(kFillQueue.get(cfg))),
      loads_(scope.counter("loads", "warp constant loads")),
      addresses_(scope.counter("addresses", "distinct addresses served (one port cycle each)")),
      hits_(scope.counter("hits", "distinct addresses found in the constant cache")),
      misses_stat_(scope.counter("misses", "distinct addresses that started or joined a line read from the L2")),
      fills_(scope.counter("fills", "lines read from the L2")),
      sectors_(scope.counter("sectors", "32 B sectors received from the L2")) {}

Cycle ConstCache::load(const Addr* lane_addrs, uint32_t active_mask, Cycle now, uint32_t token) {
  loads_.inc();
  if (perfect_ || !lane_addrs || !active_mask) return now + hit_latency_;
  std::array<Addr, 32> distinct;
  uint32_t n = 0;
  for (uint32_t m = active_mask; m; m &= m - 1) {
    Addr a = lane_addrs[std::countr_zero(m)];
    if (std::find(distinct.begin(), distinct.begin() + n, a) == distinct.begin() + n) distinct[n++] = a;
  }
  Cycle start = std::max(now, port_free_);
  port_free_ = start + n;
  addresses_.inc(n);
  Cycle ready = now;
  uint32_t waiter = ~0u;  // allocated at the load's first miss
  for (uint32_t k = 0; k < n; ++k) {
    Cycle r = lookup(distinct[k], start + k, waiter, token);
    if (r != kWaiting) ready = std::max(ready, r);
  }
  if (waiter == ~0u) return ready;
  waiters_[waiter].ready = std::max(waiters_[waiter].ready, ready);
  return kWaiting;
}

// One distinct address served at `at`: its ready cycle, or kWaiting after
// adding the load (`waiter`, allocated here if need be) to its line's read.
Cycle ConstCache::lookup(Addr addr, Cycle at, uint32_t& waiter, uint32_t token) {
  Addr key = key_of(addr);
  if (CacheLine* l = tags_.find(key)) {
    tags_.touch(*l);
    hits_.inc();
    return at + hit_latency_;
  }
  misses_stat_.inc();  // a new read, or one already under way
  Miss* m = misses_.find(key);
  if (!m) {
    request_line(key, addr / line_bytes_ * line_bytes_, at);
    m = misses_.find(key);
  }
  if (waiter == ~0u) waiter = new_waiter(token);
  ++waiters_[waiter].lines_left;
  m->waiters.push_back(waiter);
  return kWaiting;
}

uint32_t ConstCache::new_waiter(uint32_t token) {
  uint32_t i;
  if (free_waiters_.empty()) {
    i = static_cast<uint32_t>(waiters_.size());
    waiters_.emplace_back();
  } else {
    i = free_waiters_.back();
    free_waiters_.pop_back();
  }
  waiters_[i] = Waiter{token, 0, 0};
  return i;
}

// A read of the line's 32 B sectors (one request per 128 B line it covers).
void ConstCache::request_line(Addr key, Addr first_byte, Cycle at) {
  fills_.inc();
  uint32_t sectors = line_bytes_ / kSectorBytes;
  misses_[key] = Miss{static_cast<uint8_t>(sectors), {}};
  if (bank_latency_ > 0 && ir::is_param_bank_addr(first_byte)) {
    auto pos = bank_fills_.end();  // kept in ready order (lookups come in cycle order but for a flush)
    while (pos != bank_fills_.begin() && std::prev(pos)->ready > at + bank_latency_) --pos;
    bank_fills_.insert(pos, BankFill{at + bank_latency_, key});
    return;
  }
  l2_.read(first_byte, sectors);
}

void ConstCache::tick(Cycle now) {
  l2_.tick(clk_.tick_of(now), [&](Addr a) { sector_arrived(a, now); });
  while (!bank_fills_.empty() && bank_fills_.front().ready <= now) {
    BankFill f = bank_fills_.front();
    bank_fills_.pop_front();
    line_arrived(f.key, now);
  }
}

void ConstCache::sector_arrived(Addr addr, Cycle now) {
  sectors_.inc();
  Addr key = key_of(addr);
  Miss* m = misses_.find(key);
  if (!m) throw Error("internal: constant cache reply for a line not requested");
  if (--m->sectors_left == 0) line_arrived(key, now);
}

// The line is installed; its waiting addresses are served from it, and a
// load whose last line this was is done.
void ConstCache::line_arrived(Addr key, Cycle now) {
  SmallVec<uint32_t, 4> waiting = misses_.find(key)->waiters;
  misses_.erase(key);
  tags_.insert(key, nullptr);
  for (uint32_t i = 0; i < waiting.size(); ++i) {
    Waiter& w = waiters_[waiting[i]];
    w.ready = std::max(w.ready, now + hit_latency_);
    if (--w.lines_left > 0) continue;
    done_.push_back({w.token, w.ready});
    free_waiters_.push_back(waiting[i]);
  }
}

// Lines still being read stay in flight (their loads wait for them).
void ConstCache::flush() {
  tags_.resize(tags_.sets(), tags_.ways());  // drops every line
  port_free_ = 0;
}

}  // namespace ws::timing
