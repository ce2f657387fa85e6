#include "timing/mem/l1d.h"

#include <algorithm>
#include <bit>

#include <fmt/format.h>

#include "common/error.h"
#include "timing/mem/atomic_ops.h"

namespace ws::timing {
namespace {

using config::Param;
// QV100: 28-cycle hit latency, 128 KB unified array seen as 4 sets x 256 ways,
// 512 MSHRs merging up to 8 requests (gpu-facts).
const Param<int64_t> kLatency{"l1d.latency", 28, "cycles", "L1D hit latency, issue to dependent issue (load to use)", {1, 4096}};
const Param<int64_t> kSizeKb{"l1d.size_kb", 128, "KB",
                             "largest L1D capacity; a kernel's shared-memory carve-out can only shrink it", {0, 65536}};
const Param<int64_t> kSets{"l1d.sets", 4, "sets", "L1D sets; ways = capacity / (sets * 128 B)", {1, 65536}};
const Param<int64_t> kMshrs{"l1d.mshr_entries", 512, "entries", "L1D miss status holding registers", {1, 65536}};
const Param<int64_t> kMaxMerge{"l1d.mshr_max_merge", 8, "requests", "requests merged into one MSHR", {1, 1024}};
const Param<int64_t> kFillQueue{"l1d.fill_queue", 16, "replies", "reply buffer from the interconnect", {1, 4096}};
const Param<std::string> kWritePolicy{"l1d.write_policy", "write-allocate", "",
                                     "how stores (always written through to L2) treat the L1: write-allocate, "
                                     "no-allocate or write-evict"};
const Param<std::string> kLocalWritePolicy{
    "l1d.local_write_policy", "write-back", "",
    "stores to local memory: write-back (allocate, stay dirty in the L1, written to L2 when evicted; dirty lines "
    "are dropped at a kernel's end, when local memory is dead) or write-through (as l1d.write_policy)"};
const Param<bool> kSectored{"l1d.sectored", true, "",
                            "false: a read miss fetches the whole 128 B line, as the non-sectored L1s of Kepler and "
                            "Fermi did (hits and misses are still counted per sector)"};
// Data array: the unified L1/shared SRAM of Volta and later has the shared
// memory's 32 banks x 4 B, so one 128 B line per cycle; the tag stage
// resolves 4 lines (4 x 4 sectors) per cycle on GV100 and later.
const Param<int64_t> kDataBanks{"l1d.data_banks", 32, "banks",
                                "banks of the L1 data array; read hits of one tag-stage cycle that need one bank in "
                                "different rows serialise (power of two)",
                                {1, 32}};
const Param<int64_t> kBankBytes{"l1d.bank_bytes", 4, "bytes",
                                "width of one L1 data-array bank; data_banks x bank_bytes (one row, read per cycle) "
                                "must be a power of two dividing 128",
                                {1, 128}};
const Param<int64_t> kTagLookups{"l1d.tag_lookups", 4, "lines",
                                 "lines of one warp instruction the L1 tag stage looks up per cycle", {1, 32}};
const Param<bool> kCacheGlobal{"l1d.cache_global", true, "",
                               "global loads without a cache operator (and ld.ca) are cached in the L1; false: they "
                               "and global stores use L2 only, as Kepler does by default (ld.global.nc and texture "
                               "fetches, the read-only path, still use the L1)"};
// The H100 sends about one atomic request per 4 cycles per SM, whatever its
// lanes (ubench/atomics: 3.5-5.2 cycles per request whether it carries 1, 4,
// 8 or 16 lanes; docs/validation-h100.md, "Atomics: a request per pass").
const Param<int64_t> kAtomicRequestCycles{
    "l1d.atomic_request_cycles", 1, "cycles",
    "tag-stage cycles per request an atomic sends to L2 (one per sector and pass, a pass holding at most one lane per "
    "address): the L1 takes no other access meanwhile",
    {1, 256}};
const Param<std::string> kReplacement{"l1d.replacement", "lru", "", "L1D replacement policy (lru, fifo)"};
const Param<std::string> kSetIndex{"l1d.set_index", "linear", "", "L1D set-index function (linear, xor, ipoly)"};

// Store policies as data: allocate on a miss (fully written sectors become
// valid, as on Volta and later) or leave misses alone; invalidate on a hit.
constexpr L1WritePolicy kWritePolicies[] = {
    {"write-allocate", true, false},
    {"no-allocate", false, false},
    {"write-evict", false, true},
};

const L1WritePolicy& write_policy(const config::Config& cfg) {
  std::string name = kWritePolicy.get(cfg), known;
  for (const L1WritePolicy& p : kWritePolicies) {
    if (name == p.name) return p;
    known += (known.empty() ? "" : ", ") + std::string(p.name);
  }
  throw ConfigError(kWritePolicy.name(), "unknown choice '" + name + "' (known: " + known + ")");
}

L1DataArray data_array(const config::Config& cfg) {
  auto banks = static_cast<uint32_t>(kDataBanks.get(cfg));
  auto width = static_cast<uint32_t>(kBankBytes.get(cfg));
  if (!std::has_single_bit(banks)) throw ConfigError(kDataBanks.name(), "must be a power of two");
  if (!std::has_single_bit(width) || banks * width > kLineBytes)
    throw ConfigError(kBankBytes.name(), "must be a power of two with l1d.data_banks x l1d.bank_bytes <= 128 B (got " +
                                             std::to_string(banks) + " x " + std::to_string(width) + ")");
  return L1DataArray(banks, width);
}

bool local_write_back(const config::Config& cfg) {
  std::string name = kLocalWritePolicy.get(cfg);
  if (name != "write-back" && name != "write-through")
    throw ConfigError(kLocalWritePolicy.name(), "unknown choice '" + name + "' (known: write-back, write-through)");
  return name == "write-back";
}

SectorCacheShape l1_shape(const config::Config& cfg) {
  SectorCacheShape s;
  s.sets = static_cast<uint32_t>(kSets.get(cfg));
  uint64_t lines = static_cast<uint64_t>(kSizeKb.get(cfg)) * 1024 / kLineBytes;
  if (lines % s.sets != 0) throw ConfigError(kSizeKb.name(), "capacity is not a whole number of ways");
  s.ways = static_cast<uint32_t>(lines / s.sets);
  s.replacement = kReplacement.get(cfg);
  s.set_index = kSetIndex.get(cfg);
  s.param_prefix = "l1d";
  return s;
}

}  // namespace

L1D::L1D(const config::Config& cfg, stats::Scope scope, const ClockDomain& core, uint16_t sm_id)
    : clk_(core),
      sm_id_(sm_id),
      latency_(static_cast<uint32_t>(kLatency.get(cfg))),
      max_merge_(static_cast<uint32_t>(kMaxMerge.get(cfg))),
      mshr_count_(static_cast<uint32_t>(kMshrs.get(cfg))),
      tag_lookups_(static_cast<uint32_t>(kTagLookups.get(cfg))),
      atomic_request_cycles_(static_cast<uint32_t>(kAtomicRequestCycles.get(cfg))),
      hit_latency_(latency_),
      max_bytes_(static_cast<uint64_t>(kSizeKb.get(cfg)) * 1024),
      write_policy_(write_policy(cfg)),
      sectored_(kSectored.get(cfg)),
      local_write_back_(local_write_back(cfg)),
      cache_global_(kCacheGlobal.get(cfg)),
      tags_(l1_shape(cfg)),
      data_(data_array(cfg)),
      done_(size_t{mshr_count_} + 4096),
      from_icnt_(static_cast<size_t>(kFillQueue.get(cfg))),
      out_(cfg),
      link_(cfg),
      mshrs_(mshr_count_),
      reads_(scope.counter("reads", "read sectors looked up")),
      read_hits_(scope.counter("read_hits", "read sectors found valid")),
      read_misses_(scope.counter("read_misses", "read sectors sent to or merged into an MSHR")),
      writes_(scope.counter("writes", "written sectors (write-through)")),
      write_hits_(scope.counter("write_hits", "written sectors present (updated in place)")),
      write_misses_(scope.counter("write_misses", "written sectors absent (not allocated)")),
      local_writebacks_(scope.counter("local_writebacks", "dirty local sectors written to L2 on eviction")),
      bypass_reads_(scope.counter("bypass_reads",
                                  "read sectors sent to L2 without using the L1 (cache operator or l1d.cache_global)")),
      atomics_(scope.counter("atomics", "atomic requests sent to L2 (a sector and pass each: lanes on one address go in different passes)")),
      mshr_merges_(scope.counter("mshr_merges", "read sectors merged into an in-flight MSHR")),
      mshr_stalls_(scope.counter("mshr_stalls", "accesses that had to wait for an MSHR or miss-queue slot")),
      stall_cycles_(scope.counter("stall_cycles", "cycles accesses spent waiting for an MSHR or miss-queue slot")),
      wait_cycles_{&scope.counter("stall_cycles_miss_queue", "of stall_cycles: waiting for a miss-queue slot"),
                   &scope.counter("stall_cycles_mshr_full", "of stall_cycles: waiting for a free MSHR"),
                   &scope.counter("stall_cycles_merge_limit",
                                  "of stall_cycles: the sector's MSHR already held l1d.mshr_max_merge requests"),
                   &scope.counter("stall_cycles_write_buffer", "of stall_cycles: waiting for room in the write buffer")},
      data_wavefronts_(scope.counter("data_wavefronts", "data-array cycles used by cached reads, hits and misses (bank conflicts add more)")),
      bank_conflicts_(scope.counter("bank_conflicts",
                                    "data-array cycles added by bank conflicts among the read hits of one tag-stage cycle")) {
  for (uint32_t i = mshr_count_; i-- > 0;) free_mshrs_.push_back(i);
  track_events();
  from_icnt_.wire_consumer(this);
  if (!sectored_ && (!out_.read_room(kSectorsPerLine) || mshr_count_ < kSectorsPerLine))
    throw ConfigError(kSectored.name(), "a non-sectored L1 needs l1d.miss_queue and l1d.mshr_entries of at least 4");
}

std::string L1D::waiting_for() const {
  static const char* kWhy[] = {"miss queue room", "a free MSHR", "the MSHR merge limit", "write buffer room"};
  std::string s;
  if (mshrs_in_use() > 0) s = fmt::format("{} MSHRs wait for L2 replies", mshrs_in_use());
  if (stalled_)
    s += fmt::format("{}an access to line {:#x} waits for {}", s.empty() ? "" : "; ", stalled_->line_addr,
                     kWhy[static_cast<size_t>(waiting_for_)]);
  if (!completions_.empty()) s += fmt::format("{}{} completions due", s.empty() ? "" : "; ", completions_.size());
  return s;
}

void L1D::set_capacity_bytes(uint64_t bytes) {
  bytes = std::min(bytes, max_bytes_);
  uint64_t per_way = uint64_t{tags_.sets()} * kLineBytes;
  if (bytes % per_way != 0)
    throw ConfigError(kSizeKb.name(), "L1 size " + std::to_string(bytes) + " B is not a multiple of " +
                                          std::to_string(per_way) + " B (sets x 128 B)");
  tags_.resize(tags_.sets(), static_cast<uint32_t>(bytes / per_way));
  wake();
}

bool L1D::can_accept() const {
  if (stalled_) return false;
  Cycle now = clk_.now();
  if (now < atomic_busy_until_) return false;
  return last_accept_ == now ? accepted_this_cycle_ < tag_lookups_ : data_.free_at() <= now;
}

void L1D::accept(const L1Access& access) {
  // The LD/ST unit asks can_accept() first; taking an access anyway would
  // overwrite the stalled one and lose its sectors (a wrong answer, not a crash).
  if (!can_accept())
    throw Error(fmt::format("internal error: the L1D was handed an access to line {:#x} while it could not accept one",
                            access.line_addr));
  wake();
  Cycle now = clk_.now();
  accepted_this_cycle_ = last_accept_ == now ? accepted_this_cycle_ + 1 : 1;
  last_accept_ = now;
  if (access.type != AccessType::Write) {
    // Every sector a cached read asks for is read out of the banked array:
    // a hit now, a miss (or a read merged into one) once its fill has
    // written the line. The array's cycles are charged now either way: what
    // they limit is the L1's throughput (the H100 reads a load whose 32
    // lanes wait on 32 pending lines at one line per cycle, as it reads hits).
    Cycle data_at = now;
    if (access.type == AccessType::Read && read_plan(access).use_l1 && access.sector_mask) {
      uint64_t before = data_.wavefronts(), conflicts_before = data_.conflict_wavefronts();
      data_at = data_.place(access.line_addr, access.sector_mask, access.byte_masks, now);
      data_wavefronts_.inc(data_.wavefronts() - before);
      bank_conflicts_.inc(data_.conflict_wavefronts() - conflicts_before);
    }
    pending(access.token) = Pending{0, true, true, clk_.tick_of(data_at + hit_latency_)};
  }
  if (access.type == AccessType::Atomic)
    atomic_busy_until_ = now + Cycle{atomic_requests(access.atomic_passes, access.sector_mask)} * atomic_request_cycles_;
  stalled_ = access;
  issue_stalled();
}

// Issues the remaining sectors of the current access in order; stops at the
// first that lacks an MSHR or a miss-queue slot and retries once that may
// have changed (see next_event).
void L1D::issue_stalled() {
  L1Access& a = *stalled_;
  charge_wait(clk_.now());  // to what it waited for until now
  bool done = a.type == AccessType::Read ? issue_reads(a) : a.type == AccessType::Write ? issue_writes(a) : issue_atomics(a);
  if (!done) {
    if (!waiting_since_) {
      waiting_since_ = clk_.now();
      mshr_stalls_.inc();
    }
    return;
  }
  waiting_since_.reset();
  uint32_t token = a.token;
  bool tracked = a.type != AccessType::Write;
  stalled_.reset();
  if (tracked) {
    pending_[token].open = false;
    finish_if_ready(token);
  }
}

// Atomics: a message per sector and pass, in order. Lanes that name one
// address go in different passes; a sector's operations are shared out
// over its passes (which lane goes in which changes no count).
bool L1D::issue_atomics(L1Access& a) {
  while (a.sector_mask != 0) {
    uint32_t s = static_cast<uint32_t>(std::countr_zero(a.sector_mask));
    uint32_t passes = std::max<uint32_t>(1, a.atomic_passes[s]);
    uint32_t ops = (a.thread_ops[s] + passes - 1) / passes;
    if (!issue_atomic(a, a.line_addr + Addr{s} * kSectorBytes, s, ops)) return false;
    a.thread_ops[s] = static_cast<uint8_t>(a.thread_ops[s] - std::min<uint32_t>(ops, a.thread_ops[s]));
    if (passes > 1) {
      a.atomic_passes[s] = static_cast<uint8_t>(passes - 1);
      continue;
    }
    a.sector_mask &= static_cast<uint8_t>(~(1u << s));
  }
  return true;
}

// Cache operators on local accesses: only last use matters (the thread's
// own data). Global: .cg and .cv read through L2 (.cv also drops a stale
// copy), .cs and .lu allocate as the set's next victims, .nc (read-only
// path) is cached even when l1d.cache_global is off.
L1ReadPlan L1D::read_plan(const L1Access& a) const {
  using ir::CacheOp;
  L1ReadPlan p;
  if (a.local) {
    p.drop_after = a.cache_op == CacheOp::LastUse;
    return p;
  }
  switch (a.cache_op) {
    case CacheOp::Volatile: p.invalidate = true; [[fallthrough]];
    case CacheOp::CacheGlobal: p.use_l1 = p.allocate = false; break;
    case CacheOp::Streaming:
    case CacheOp::LastUse: p.retention = Retention::EvictFirst; break;
    default: break;
  }
  if (!cache_global_ && a.cache_op != CacheOp::NonCoherent) p.use_l1 = p.allocate = false;
  return p;
}

// Stores that must not leave a copy in the L1 (L2-only or write-through).
bool L1D::bypasses_on_write(const L1Access& a) const {
  using ir::CacheOp;
  if (a.local) return false;
  return !cache_global_ || a.cache_op == CacheOp::CacheGlobal || a.cache_op == CacheOp::Volatile ||
         a.cache_op == CacheOp::WriteThrough;
}

// A read's sectors in order: hits, merges into fetches in flight, and new
// fetches, which leave as one request for the line (sectors it misses that
// nobody fetches yet). Stops at the first sector that must wait; the
// sectors handled so far are done (and the fetch started for them is sent).
bool L1D::issue_reads(L1Access& a) {
  L1ReadPlan plan = read_plan(a);
  CacheLine* line = tags_.find(a.line_addr);
  uint8_t fetch = 0;
  std::array<uint32_t, kSectorsPerLine> slots{};
  bool done = true;
  while (a.sector_mask != 0) {
    uint32_t s = static_cast<uint32_t>(std::countr_zero(a.sector_mask));
    if (!(line && read_hit(plan, line, a.line_addr + Addr{s} * kSectorBytes)) &&
        !read_miss(a, plan, line, s, fetch, slots)) {
      done = false;
      break;
    }
    a.sector_mask &= static_cast<uint8_t>(~(1u << s));
  }
  if (fetch) send_request(a.line_addr, fetch, slots, AccessType::Read, a.cache_op);
  return done;
}

// A sector the L1 cannot serve: merged into its fetch in flight, or added to
// this access's fetch (with, non-sectored, the line's other sectors that
// nobody waits for). False: it must wait.
bool L1D::read_miss(const L1Access& a, const L1ReadPlan& plan, const CacheLine* line, uint32_t s, uint8_t& fetch,
                    std::array<uint32_t, kSectorsPerLine>& slots) {
  Addr sector = a.line_addr + Addr{s} * kSectorBytes;
  // A read that bypasses the L1 (.cg, .cv, uncached global) has no line to
  // wait on: it neither merges into a fetch in flight nor takes others in.
  if (uint32_t* merged = plan.use_l1 ? mshr_of_sector_.find(sector) : nullptr) {
    Mshr& m = mshrs_[*merged];
    if (m.tokens.size() >= max_merge_) return blocked(Wait::MergeLimit);
    m.tokens.push_back(a.token);
    m.allocate |= plan.allocate;
    if (plan.retention == Retention::Normal) m.retention = Retention::Normal;
    mshr_merges_.inc();
  } else {
    // (An L2-only read moves 32-byte segments even where the L1 fills whole lines.)
    uint8_t extra = sectored_ || !plan.use_l1 ? 0 : line_fill_sectors(a.line_addr, line, sector);
    if (fetch == 0 && !out_.read_room()) return blocked(Wait::MissQueue);
    if (free_mshrs_.size() < 1 + static_cast<uint32_t>(std::popcount(extra))) return blocked(Wait::MshrFull);
    slots[s] = start_fetch(sector, plan, a.token);
    fetch |= static_cast<uint8_t>(1u << s);
    for (uint32_t o = 0; o < kSectorsPerLine; ++o) {
      if (!(extra >> o & 1)) continue;
      slots[o] = start_fetch(a.line_addr + Addr{o} * kSectorBytes, plan, 0);
      mshrs_[slots[o]].tokens.clear();  // fetched for the line, waited for by nobody
      fetch |= static_cast<uint8_t>(1u << o);
    }
  }
  reads_.inc();
  read_misses_.inc();
  if (!plan.use_l1) bypass_reads_.inc();
  pending(a.token).misses_left++;
  return true;
}

// An MSHR for a sector the L1 fetches (kept until its fill).
uint32_t L1D::start_fetch(Addr sector, const L1ReadPlan& plan, uint32_t token) {
  uint32_t slot = *alloc_mshr(sector, AccessType::Read, token);
  Mshr& m = mshrs_[slot];
  m.allocate = plan.allocate;
  m.retention = plan.retention;
  if (plan.use_l1) mshr_of_sector_[sector] = slot;
  return slot;
}

// A present line serves the sector if the plan allows; false: it misses.
bool L1D::read_hit(const L1ReadPlan& plan, CacheLine* line, Addr sector) {
  auto bit = static_cast<uint8_t>(1u << sector_in_line(sector));
  if (plan.invalidate) line->valid &= static_cast<uint8_t>(~bit);
  if (!plan.use_l1 || !(line->valid & bit)) return false;
  reads_.inc();
  read_hits_.inc();
  if (plan.drop_after) {
    line->valid &= static_cast<uint8_t>(~bit);
    line->dirty &= static_cast<uint8_t>(~bit);
    line->partial &= static_cast<uint8_t>(~bit);
  } else if (plan.retention == Retention::Normal) {
    tags_.touch(*line);  // a streaming hit does not renew the line
  }
  return true;
}

// Non-sectored mode: the other sectors of the line that are neither valid
// nor already being fetched.
uint8_t L1D::line_fill_sectors(Addr line_addr, const CacheLine* line, Addr missed) const {
  uint8_t mask = 0;
  for (uint32_t s = 0; s < kSectorsPerLine; ++s) {
    Addr other = line_addr + Addr{s} * kSectorBytes;
    if (other == missed || (line && (line->valid >> s & 1)) || mshr_of_sector_.find(other)) continue;
    mask |= static_cast<uint8_t>(1u << s);
  }
  return mask;
}

// Stores, written through: the sectors of the line whose bytes are written
// alike (all of each, as a coalesced store writes them) leave as one
// message with their data, as many as the write buffer has room for.
bool L1D::issue_writes(L1Access& a) {
  if (a.local && local_write_back_ && tags_.enabled()) {
    for (; a.sector_mask != 0; a.sector_mask &= static_cast<uint8_t>(a.sector_mask - 1))
      write_back_local(a, static_cast<uint32_t>(std::countr_zero(a.sector_mask)));
    return true;
  }
  while (a.sector_mask != 0) {
    uint32_t room = out_.write_room();
    if (room == 0) return blocked(Wait::WriteBuffer);
    uint32_t bytes = a.byte_masks[static_cast<uint32_t>(std::countr_zero(a.sector_mask))];
    uint8_t group = 0;
    for (uint8_t bits = a.sector_mask; bits != 0 && room > 0; bits &= static_cast<uint8_t>(bits - 1)) {
      uint32_t s = static_cast<uint32_t>(std::countr_zero(bits));
      if (a.byte_masks[s] != bytes) continue;
      write_sector(a, s);
      group |= static_cast<uint8_t>(1u << s);
      --room;
    }
    send(a.line_addr + Addr{static_cast<uint32_t>(std::countr_zero(group))} * kSectorBytes, bytes,
         AccessType::Write, 0, a.cache_op, 0, group);
    a.sector_mask &= static_cast<uint8_t>(~group);
  }
  return true;
}

// A written-through sector's effect on the L1's copy (l1d.write_policy).
void L1D::write_sector(const L1Access& a, uint32_t s) {
  writes_.inc();
  CacheLine* line = tags_.find(a.line_addr);
  bool hit = line && (line->valid >> s & 1);
  bool bypass = bypasses_on_write(a);
  Retention keep = a.cache_op == ir::CacheOp::Streaming ? Retention::EvictFirst : Retention::Normal;
  (hit ? write_hits_ : write_misses_).inc();
  if (hit && (write_policy_.evict_on_hit || bypass)) {
    line->valid &= static_cast<uint8_t>(~(1u << s));
  } else if (hit) {
    if (keep == Retention::Normal) tags_.touch(*line);
  } else if (!bypass && write_policy_.allocate_on_miss && a.byte_masks[s] == 0xffffffffu && tags_.enabled()) {
    // Only a fully written sector is known: a partial one would need a fetch.
    if (!line) line = &install(a.line_addr, keep);
    else if (keep == Retention::Normal) tags_.touch(*line);
    line->valid |= static_cast<uint8_t>(1u << s);
  }
}

// Write-back for local memory: the written bytes stay in the L1 (valid once
// the whole sector is written; a read of a partly written one fetches and
// merges); L2 sees them only when the line is evicted.
void L1D::write_back_local(const L1Access& a, uint32_t s) {
  writes_.inc();
  CacheLine* line = tags_.find(a.line_addr);
  bool hit = line && ((line->valid | line->dirty) >> s & 1);
  (hit ? write_hits_ : write_misses_).inc();
  if (!line) line = &install(a.line_addr);
  uint8_t bit = static_cast<uint8_t>(1u << s);
  uint32_t written = tags_.add_written(*line, s, a.byte_masks[s]);  // (reads the old dirty bit)
  line->dirty |= bit;
  if (written == kFullSectorMask) line->valid |= bit;
  tags_.touch(*line);
}

// Allocates a line; a victim's dirty sectors go to L2 (past the miss-queue
// limit: at most four, and the eviction cannot wait).
CacheLine& L1D::install(Addr line_addr, Retention r) {
  std::optional<EvictedLine> victim;
  CacheLine& line = tags_.insert(line_addr, &victim, r);
  if (victim && victim->dirty) {
    for (uint32_t s = 0; s < kSectorsPerLine; ++s) {
      if (!(victim->dirty >> s & 1)) continue;
      local_writebacks_.inc();
      send(victim->line_addr + Addr{s} * kSectorBytes, victim->written[s], AccessType::Write, 0);
    }
  }
  return line;
}

bool L1D::issue_atomic(const L1Access& a, Addr sector, uint32_t s, uint32_t ops) {
  if (!out_.read_room()) return blocked(Wait::MissQueue);
  auto slot = alloc_mshr(sector, AccessType::Atomic, a.token);
  if (!slot) return blocked(Wait::MshrFull);
  // The L2 owns the result; a stale local copy must not serve later loads.
  if (CacheLine* line = tags_.find(a.line_addr)) line->valid &= static_cast<uint8_t>(~(1u << s));
  atomics_.inc();
  std::array<uint32_t, kSectorsPerLine> slots{};
  slots[s] = *slot;
  send_request(a.line_addr, static_cast<uint8_t>(1u << s), slots, AccessType::Atomic, ir::CacheOp::Default,
               a.byte_masks[s], ops);
  pending(a.token).misses_left++;
  return true;
}

std::optional<uint32_t> L1D::alloc_mshr(Addr sector, AccessType type, uint32_t token) {
  if (free_mshrs_.empty()) return std::nullopt;
  uint32_t slot = free_mshrs_.back();
  free_mshrs_.pop_back();
  Mshr& m = mshrs_[slot];
  m.sector = sector;
  m.type = type;
  m.allocate = true;
  m.retention = Retention::Normal;
  m.tokens.clear();
  m.tokens.push_back(token);
  return slot;
}

// A request that waits for a reply: its sectors' MSHRs are found from its tag.
void L1D::send_request(Addr line_addr, uint8_t sectors, const std::array<uint32_t, kSectorsPerLine>& slots,
                       AccessType type, ir::CacheOp op, uint32_t byte_mask, uint32_t thread_ops) {
  if (free_requests_.empty()) {
    free_requests_.push_back(static_cast<uint32_t>(requests_.size()));
    requests_.emplace_back();
  }
  uint32_t tag = free_requests_.back();
  free_requests_.pop_back();
  requests_[tag] = LineRequest{slots, static_cast<uint32_t>(std::popcount(sectors))};
  Addr first = line_addr + Addr{static_cast<uint32_t>(std::countr_zero(sectors))} * kSectorBytes;
  send(first, byte_mask, type, tag, op, thread_ops, sectors);
}

void L1D::send(Addr sector, uint32_t byte_mask, AccessType type, uint32_t tag, ir::CacheOp op,
               uint32_t thread_ops, uint8_t sectors) {
  MemRequest r;
  r.sectors = sectors & 0xF;
  r.thread_ops = static_cast<uint16_t>(thread_ops);
  r.addr = sector;
  r.cache_op = op;
  r.byte_mask = byte_mask;
  r.type = type;
  r.src_sm = sm_id_;
  r.tag = tag;
  r.issued = clk_.now_tick();
  out_.push(r);
}

void L1D::tick() {
  Tick now = clk_.now_tick();
  bool was_stalled = stalled();
  if (from_icnt_.ready(now)) handle_fill();
  if (stalled_ && last_accept_ != clk_.now()) issue_stalled();
  if (!out_.empty() && to_icnt_ && link_.free(clk_.now()) && to_icnt_->can_push(now)) {
    to_icnt_->push(out_.front(), now);
    link_.sent(out_.front(), clk_.now());
    out_.pop();
  }
  while (!completions_.empty() && completions_.top().at <= now && done_.can_push(now)) {
    done_.push(completions_.top().token, completions_.top().at);
    completions_.pop();
  }
  if (client_ && was_stalled != stalled()) client_->wake();
}

// Records why the current access cannot go on; a miss-queue slot frees
// when the crossbar takes a message, anything else when a fill frees an MSHR.
bool L1D::blocked(Wait why) {
  blocked_on_fill_ = why == Wait::MshrFull || why == Wait::MergeLimit;
  waiting_for_ = why;
  return false;
}

// Whether the queue an access waits for has room now.
bool L1D::queue_has_room() const {
  return waiting_for_ == Wait::WriteBuffer ? out_.write_room() > 0 : out_.read_room();
}

// Charges the cycles since the last mark to what the access waited for then.
void L1D::charge_wait(Cycle now) {
  if (!waiting_since_) return;
  Cycle span = now - *waiting_since_;
  stall_cycles_.inc(span);
  wait_cycles_[static_cast<size_t>(waiting_for_)]->inc(span);
  waiting_since_ = now;
}

// A reply from L2: the sectors it brings back, each to its MSHR.

void L1D::handle_fill() {
  blocked_on_fill_ = false;
  MemRequest r = from_icnt_.front();
  from_icnt_.pop();
  LineRequest& q = requests_[r.tag];
  for (uint8_t bits = r.sector_bits(); bits != 0; bits &= static_cast<uint8_t>(bits - 1))
    fill_sector(q.slot[static_cast<uint32_t>(std::countr_zero(bits))]);
  q.left -= r.sector_count();
  if (q.left == 0) free_requests_.push_back(r.tag);
}

// One sector back from L2: a read installs it (allocate on fill); its
// waiters may complete.
void L1D::fill_sector(uint32_t slot) {
  Mshr& m = mshrs_[slot];
  if (m.type == AccessType::Read) {
    if (uint32_t* owner = mshr_of_sector_.find(m.sector); owner && *owner == slot) mshr_of_sector_.erase(m.sector);
    if (tags_.enabled() && m.allocate) {
      Addr line_addr = line_of(m.sector);
      CacheLine* line = tags_.find(line_addr);
      if (!line) line = &install(line_addr, m.retention);
      else if (m.retention == Retention::Normal) tags_.touch(*line);
      line->valid |= static_cast<uint8_t>(1u << sector_in_line(m.sector));
    }
  }
  for (uint32_t i = 0; i < m.tokens.size(); ++i) {
    uint32_t token = m.tokens[i];
    pending(token).misses_left--;
    finish_if_ready(token);
  }
  m.tokens.clear();
  free_mshrs_.push_back(slot);
}

// The engine asks for the next event as soon as a reply is pushed, cycles
// before it arrives: start bringing what handle_fill() will read into the
// host's caches (changes no state).
void L1D::prefetch_fill(const MemRequest& r) const {
  if (r.tag >= requests_.size()) return;
  __builtin_prefetch(&requests_[r.tag]);
  mshr_of_sector_.prefetch(r.addr);  // a reply carries its request's sector
  tags_.prefetch(line_of(r.addr));
}

void L1D::finish_if_ready(uint32_t token) {
  if (token >= pending_.size()) return;
  Pending* p = &pending_[token];
  if (!p->live || p->open || p->misses_left != 0) return;
  complete(token, std::max(p->hit_ready, clk_.now_tick()));
  p->live = false;
}

void L1D::complete(uint32_t token, Tick at) { completions_.push(Completion{at, completion_seq_++, token}); }

// A stalled access retries only once what blocked it may have changed: a
// fill (an MSHR freed) or room in the miss queue; a full link to the
// interconnect frees only when the crossbar takes a message.
Tick L1D::next_event() const {
  Tick now = clk_.now_tick();
  Tick t = kNever;
  if (!out_.empty() && to_icnt_) {
    if (!link_.free(clk_.now())) t = clk_.tick_of(link_.free_at());
    else if (to_icnt_->can_push(now)) return now;
    else to_icnt_->wait_for_room(this);  // its pop wakes us
  }
  if (stalled_ && !blocked_on_fill_ && queue_has_room()) return now;
  t = std::min(t, from_icnt_.next_ready());
  if (!from_icnt_.empty()) prefetch_fill(from_icnt_.front());
  if (!completions_.empty()) t = std::min(t, completions_.top().at);
  return t;
}

}  // namespace ws::timing
