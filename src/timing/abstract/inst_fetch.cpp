#include "timing/abstract/inst_fetch.h"

#include <algorithm>

#include "timing/abstract/memory_model.h"
#include "timing/mem/mem_request.h"

namespace ws::timing::abstract {

InstFetch::InstFetch(const config::Config& cfg, uint32_t sm, uint32_t subcores, MemoryModel& mem)
    : sm_(sm),
      mem_(mem),
      perfect_(cfg.get<bool>("l1i.perfect")),
      warm_start_(cfg.get<bool>("l1i.warm_start")),
      l1_latency_(static_cast<Cycle>(cfg.get<int64_t>("l1i.latency"))),
      fill_latency_(cfg.get<int64_t>("l0i.size_kb") > 0 ? l1_latency_ : 0),
      prefetch_lines_(static_cast<uint32_t>(cfg.get<int64_t>("l1i.prefetch_lines"))),
      l0_(subcores),
      last_line_(subcores, ~Addr{0}) {}

// An L0 miss: the line from the L1I (its latency), or from the L2 straight
// into both.
Cycle InstFetch::from_l1(uint32_t s, Addr line, Cycle now) {
  auto [it, added] = l1_.try_emplace(line, 0);
  Cycle ready;
  // A line from the L2 is installed in the L1I and reaches the L0 l1i.latency
  // later; with l1i.warm_start the L1I held it from the kernel's start.
  if (added && warm_start_) ready = it->second = now + l1_latency_;
  else if (added) ready = it->second = mem_.inst_read(sm_, line, now) + fill_latency_;
  else ready = it->second > now ? it->second : now + l1_latency_;  // on its way, or there
  l0_[s][line] = ready;
  return ready;
}

Cycle InstFetch::fetch(uint32_t s, uint64_t pc, Cycle now) {
  if (perfect_) return now;
  Addr line = (code_base_ + pc) & ~Addr{kLineBytes - 1};
  auto& l0 = l0_[s];
  auto it = l0.find(line);
  Cycle ready = it != l0.end() ? std::max(now, it->second) : from_l1(s, line, now);
  if (line != last_line_[s]) {
    last_line_[s] = line;
    for (uint32_t i = 1; i <= prefetch_lines_; ++i) {
      Addr next = line + Addr{i} * kLineBytes;
      if (!l0.count(next)) from_l1(s, next, now);
    }
  }
  return ready;
}

}  // namespace ws::timing::abstract
