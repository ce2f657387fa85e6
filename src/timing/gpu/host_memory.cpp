#include "timing/gpu/host_memory.h"

#include <algorithm>
#include <cstdio>
#include <fstream>

#include <fmt/format.h>

#include "common/error.h"
#include "config/param.h"

namespace ws::timing {

namespace {

const config::Param<double> kMaxHostGb{
    "sim.max_host_memory_gb", 0.0, "GiB",
    "refuse a model whose estimated host memory exceeds this (0: the host's MemAvailable)", {0, 1 << 20}};

// Host bytes per 128 B line of a sector cache (tag, sector bits, partial
// write masks, replacement state, index) and fixed bytes per SM and per L2
// slice (warps, queues, units, counters): peak RSS of `warpsim run` on a
// small trace grew by 55 B per L1D line (l1d.size_kb 128 -> 4096, 80 SMs),
// 60 B per L2 line (l2.size_kb 6144 -> 196608) and 229 KiB per QV100 SM
// (gpu.sms 80 -> 320), of which about 140 KiB are its cache lines.
constexpr uint64_t kBytesPerLine = 60;
constexpr uint64_t kBytesPerSm = 64 << 10;
constexpr uint64_t kBytesPerSlice = 64 << 10;
constexpr uint64_t kBytesPerMshr = 64;
constexpr uint64_t kLineBytes = 128;

uint64_t lines(const config::Config& cfg, const char* size_kb) {
  return static_cast<uint64_t>(cfg.get<int64_t>(size_kb)) * 1024 / kLineBytes;
}

std::string gib(uint64_t bytes) {
  if (bytes < (uint64_t{1} << 30)) return fmt::format("{} MiB", bytes >> 20);
  return fmt::format("{:.1f} GiB", static_cast<double>(bytes) / double(1ull << 30));
}

}  // namespace

HostMemoryEstimate estimate_host_memory(const config::Config& cfg) {
  auto sms = static_cast<uint64_t>(cfg.get<int64_t>("gpu.sms"));
  auto slices = static_cast<uint64_t>(cfg.get<int64_t>("l2.channels") * cfg.get<int64_t>("l2.slices_per_channel"));
  uint64_t sm_lines = lines(cfg, "l1d.size_kb") + lines(cfg, "l1i.size_kb") + lines(cfg, "l1c.size_kb") +
                      4 * lines(cfg, "l0i.size_kb");
  auto l1_mshrs = static_cast<uint64_t>(cfg.get<int64_t>("l1d.mshr_entries"));
  auto l2_mshrs = static_cast<uint64_t>(cfg.get<int64_t>("l2.mshr_entries"));
  HostMemoryEstimate e;
  e.parts = {
      {fmt::format("L1D tags: gpu.sms={} x l1d.size_kb={}", sms, cfg.get<int64_t>("l1d.size_kb")),
       sms * lines(cfg, "l1d.size_kb") * kBytesPerLine},
      {fmt::format("instruction and constant cache tags: gpu.sms={} x (l1i.size_kb={}, l0i.size_kb={}, "
                   "l1c.size_kb={})",
                   sms, cfg.get<int64_t>("l1i.size_kb"), cfg.get<int64_t>("l0i.size_kb"),
                   cfg.get<int64_t>("l1c.size_kb")),
       sms * (sm_lines - lines(cfg, "l1d.size_kb")) * kBytesPerLine},
      {fmt::format("L2 tags: l2.size_kb={}", cfg.get<int64_t>("l2.size_kb")), lines(cfg, "l2.size_kb") * kBytesPerLine},
      {fmt::format("MSHRs: gpu.sms={} x l1d.mshr_entries={}, {} L2 slices x l2.mshr_entries={}", sms, l1_mshrs, slices,
                   l2_mshrs),
       (sms * l1_mshrs + slices * l2_mshrs) * kBytesPerMshr},
      {fmt::format("SM and L2 slice state: gpu.sms={}, l2.channels x l2.slices_per_channel={}", sms, slices),
       sms * kBytesPerSm + slices * kBytesPerSlice},
  };
  std::sort(e.parts.begin(), e.parts.end(), [](const auto& a, const auto& b) { return a.bytes > b.bytes; });
  for (const auto& p : e.parts) e.bytes += p.bytes;
  return e;
}

uint64_t host_available_bytes() {
  std::ifstream in("/proc/meminfo");
  std::string key;
  uint64_t kb = 0;
  std::string unit;
  while (in >> key >> kb >> unit)
    if (key == "MemAvailable:") return kb * 1024;
  return 0;
}

void check_host_memory(const config::Config& cfg) {
  double limit_gb = kMaxHostGb.get(cfg);
  uint64_t limit = limit_gb > 0 ? static_cast<uint64_t>(limit_gb * double(1ull << 30)) : host_available_bytes();
  if (limit == 0) return;  // nothing to compare against
  HostMemoryEstimate e = estimate_host_memory(cfg);
  if (e.bytes <= limit) return;
  std::string parts;
  for (size_t i = 0; i < std::min<size_t>(2, e.parts.size()); ++i)
    parts += fmt::format("; {} for {}", gib(e.parts[i].bytes), e.parts[i].what);
  std::string against = limit_gb > 0 ? fmt::format("sim.max_host_memory_gb = {}", limit_gb)
                                     : fmt::format("the host's MemAvailable ({})", gib(limit));
  throw ConfigError(kMaxHostGb.name(),
                    fmt::format("the model would need about {} of host memory, more than {}{} (set "
                                "sim.max_host_memory_gb to a larger limit to build it anyway)",
                                gib(e.bytes), against, parts));
}

}  // namespace ws::timing
