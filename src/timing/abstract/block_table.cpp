#include "timing/abstract/block_table.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>

#include "config/param.h"

namespace ws::timing::abstract {

namespace {

const config::Param<std::string> kBlockCache{
    "abstract.block_cache", "", "",
    "folder of the abstract model's block-timing cache: \"\" = $XDG_CACHE_HOME/warpsim (else ~/.cache/warpsim), "
    "\"off\" = memory only"};

uint64_t mix(uint64_t h, uint64_t v) {
  h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
  h *= 0xff51afd7ed558ccdull;
  return h ^ (h >> 33);
}

// Registers written inside the block being timed, and when.
struct Written {
  std::vector<RegAt> regs;
  const RegAt* find(uint16_t r) const {
    for (const RegAt& w : regs)
      if (w.reg == r) return &w;
    return nullptr;
  }
  void set(uint16_t r, uint32_t at) {
    for (RegAt& w : regs)
      if (w.reg == r) {
        w.at = at;
        return;
      }
    regs.push_back({r, at});
  }
};

void note_need(std::vector<RegAt>& needs, uint16_t r, uint32_t at) {
  for (const RegAt& n : needs)
    if (n.reg == r) return;  // an earlier use is already the first
  needs.push_back({r, at});
}

// The earliest cycle at or after `t` the instruction's operands allow.
uint32_t operands_ready(const ir::WarpInst& in, const Written& w, uint32_t t) {
  for (int i = 0; i < in.n_src; ++i)
    if (const RegAt* x = w.find(in.src[i])) t = std::max(t, x->at);
  for (int i = 0; i < in.n_dst; ++i)
    if (const RegAt* x = w.find(in.dst[i])) t = std::max(t, x->at);
  return t;
}

}  // namespace

CoreTimingParams CoreTimingParams::from(const config::Config& cfg) {
  return {read_unit_specs(cfg), static_cast<uint32_t>(cfg.get<int64_t>("core.const_latency")),
          read_regfile_spec(cfg)};
}

uint64_t CoreTimingParams::hash() const {
  uint64_t h = mix(kBlockFileMagic, kBlockFormat);
  for (const UnitSpec& u : units) {
    for (char c : u.name) h = mix(h, static_cast<uint8_t>(c));
    h = mix(mix(mix(mix(h, u.count), u.latency), u.ii), u.fma_per_clk);
  }
  h = mix(mix(mix(mix(h, regfile.banks), regfile.reads_per_bank), regfile.units), regfile.reuse);
  return mix(h, const_latency);
}

uint64_t mix_inst(uint64_t h, const ir::WarpInst& in, int16_t unit) {
  uint64_t head = uint64_t{static_cast<uint8_t>(in.kind)} | uint64_t{static_cast<uint16_t>(unit)} << 8 |
                  uint64_t{in.n_dst} << 24 | uint64_t{in.n_src} << 28 | uint64_t{in.tensor_work} << 32;
  h = mix(h, head);
  uint64_t regs = 0;
  for (int i = 0; i < in.n_dst; ++i) regs = regs << 16 | in.dst[i];
  for (int i = 0; i < in.n_src; ++i) h = mix(h, in.src[i]);
  return mix(h, regs);
}

// One warp, alone, from an empty pipeline: instruction i issues the cycle
// after i-1 at the earliest, once its operands are written (inside the
// block; the rest are ready at 0), a pipeline of its unit is free and (with
// the register-bank model) a collector unit is; it enters the pipeline once
// its operands are read, as the detailed sub-core times it.
BlockTiming characterise(const ir::WarpInst* insts, const int16_t* unit_of, uint32_t n, const CoreTimingParams& p) {
  BlockTiming b;
  UnitPool pool(p.units);
  // Without the reuse approximation (a warp issuing twice in a row re-reads
  // nothing): a warp alone always issues twice in a row, but bodies run on
  // sub-cores shared with other warps, whose issues come between.
  RegFileSpec shared = p.regfile;
  shared.reuse = false;
  OperandCollector collector(shared);
  Written written;
  std::vector<uint32_t> busy(p.units.size(), 0);
  for (uint32_t i = 0; i < n; ++i) {
    const ir::WarpInst& in = insts[i];
    uint32_t t = operands_ready(in, written, i == 0 ? 0 : b.issue.back() + 1);
    for (int s = 0; s < in.n_src; ++s)
      if (!written.find(in.src[s])) note_need(b.needs, in.src[s], t);
    for (int d = 0; d < in.n_dst; ++d)
      if (!written.find(in.dst[d])) note_need(b.needs, in.dst[d], t);
    int16_t unit = unit_of[i];
    bool timed_here = !in.is_memory() && in.kind != ir::OpKind::Barrier && in.kind != ir::OpKind::MemBar;
    uint32_t done = t, occupied = 0;
    if (timed_here && unit != kLdstUnit) {
      auto k = static_cast<uint32_t>(unit);
      t = std::max<uint32_t>(t, static_cast<uint32_t>(pool.next_free(k)));
      uint32_t dispatch = t;
      if (collector.enabled() && i + 1 < n) {  // (the terminal collects in the dynamic model)
        if (Cycle wake; !collector.has_unit(t, wake)) t = static_cast<uint32_t>(wake);
        OperandCollector::Collected c = collector.collect(in, 0, t);
        dispatch = static_cast<uint32_t>(c.dispatch - 1);
        b.collect += static_cast<uint32_t>(c.dispatch - t);
      }
      done = static_cast<uint32_t>(pool.issue(k, pool.free_pipe(k, dispatch), dispatch, in.tensor_work));
      occupied = pool.occupancy(k, in.tensor_work);
    } else if (timed_here) {
      done = t + p.const_latency;
    }
    b.issue.push_back(t);
    if (i + 1 == n) break;  // the terminal's results and unit time are the dynamic model's
    if (occupied) busy[static_cast<uint32_t>(unit)] += occupied;
    for (int d = 0; d < in.n_dst; ++d) written.set(in.dst[d], done);
  }
  b.writes = std::move(written.regs);
  for (uint32_t k = 0; k < busy.size(); ++k)
    if (busy[k]) b.demand.push_back({k, busy[k]});
  return b;
}

std::string BlockTable::default_folder() {
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) return std::string(x) + "/warpsim";
  if (const char* home = std::getenv("HOME"); home && *home) return std::string(home) + "/.cache/warpsim";
  return "";
}

BlockTable::BlockTable(CoreTimingParams params, const std::string& cache)
    : params_(std::move(params)), params_hash_(params_.hash()) {
  std::string folder = cache.empty() ? default_folder() : cache;
  if (cache != "off" && !folder.empty()) {
    char name[40];
    std::snprintf(name, sizeof name, "/blocks-%016llx.bin", static_cast<unsigned long long>(params_hash_));
    file_ = folder + name;
  }
  load_ = load();
}

BlockTable::BlockTable(const config::Config& cfg) : BlockTable(CoreTimingParams::from(cfg), kBlockCache.get(cfg)) {}

const BlockTiming& BlockTable::get(uint64_t key, const ir::WarpInst* insts, const int16_t* unit_of, uint32_t n) {
  ++counts_.lookups;
  auto it = entries_.find(key);
  if (it != entries_.end() && it->second.size() == n) return it->second;
  auto t0 = std::chrono::steady_clock::now();
  BlockTiming b = characterise(insts, unit_of, n, params_);
  counts_.characterise_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  ++counts_.characterised;
  dirty_ = true;
  return entries_.insert_or_assign(key, std::move(b)).first->second;
}

}  // namespace ws::timing::abstract
