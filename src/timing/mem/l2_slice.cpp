#include "timing/mem/l2_slice.h"

#include <algorithm>
#include <bit>

#include <fmt/format.h>

#include "common/error.h"
#include "ir/param_bank.h"

namespace ws::timing {
namespace {

using config::Param;
// QV100: 6 MB in 64 slices (32 channels x 2), 24 ways -> 32 sets x 24 ways per
// slice; ROP latency 160 and DRAM latency 100 core cycles (gpu-facts).
const Param<int64_t> kSizeKb{"l2.size_kb", 6144, "KB", "total L2 capacity over all slices", {1, 1 << 24}};
const Param<int64_t> kWays{"l2.ways", 24, "ways", "L2 associativity", {1, 4096}};
const Param<int64_t> kChannels{"l2.channels", 32, "channels", "memory channels (each with its L2 slices)", {1, 4096}};
const Param<int64_t> kPerChannel{"l2.slices_per_channel", 2, "slices", "L2 slices (sub-partitions) per channel",
                                 {1, 64}};
const Param<int64_t> kLatency{"l2.latency", 160, "cycles", "L2 pipeline (ROP) latency from arrival to hit reply",
                              {1, 100000}};
const Param<int64_t> kDramLatency{"l2.dram_latency", 100, "cycles", "L2-to-DRAM-channel path latency", {0, 100000}};
const Param<int64_t> kMshrs{"l2.mshr_entries", 256, "entries",
                            "L2 MSHRs per slice: sectors in flight from DRAM (a line's fetch holds one per sector)",
                            {1, 65536}};
// Kernel code reaches device memory as a copy when its module is loaded, and
// a copy leaves its lines in the L2 (as cudaMemcpy does here): with this set,
// the first read of each code line finds it in the L2. Code evicted later is
// read from DRAM as any line is. Measured on an H100 (ubench/native/
// icache_sweep, docs/validation.md): a kernel's first launch fetches its code
// at the L2's rate, not at DRAM's. `false` models code that starts in DRAM.
const Param<bool> kCodeLoaded{"l2.code_loaded", true, "",
                              "kernel code starts in the L2 (written there when its module was loaded): the first "
                              "read of each code line hits"};
// Each slice performs atomics in one unit at this many lane operations per
// cycle (lanes on the same word each count; a warp the compiler aggregated
// arrives as one lane, exec/warp_aggregation.h). The default, 32, does any sector's atomic in a cycle. An H100 runs
// 324.7 distinct-word operations per cycle over its 160 slices
// (ubench/atomics), 2 per slice; histogram_global, 12,000 operations on the
// two lines of 64 bins, takes 3,500 cycles longer than a cycle per sector
// would (docs/validation-h100.md).
const Param<int64_t> kAtomicOps{"l2.atomic_ops_per_clk", 32, "ops/cycle",
                                "lane operations a slice's atomic unit performs per cycle", {1, 32}};
const Param<int64_t> kMaxMerge{"l2.mshr_max_merge", 8, "requests", "requests waiting on one line's fetch from DRAM", {1, 1024}};
const Param<int64_t> kInputQueue{"l2.input_queue", 16, "requests", "requests buffered from the crossbar", {1, 65536}};
const Param<int64_t> kDramQueue{"l2.dram_queue", 16, "sectors", "sectors of requests waiting to enter the DRAM channel",
                                {4, 65536}};
const Param<int64_t> kDramReplyQueue{"l2.dram_reply_queue", 16, "replies", "DRAM replies buffered", {1, 65536}};
const Param<std::string> kReplacement{"l2.replacement", "lru", "", "L2 replacement policy (lru, fifo)"};
const Param<std::string> kSetIndex{"l2.set_index", "linear", "", "L2 set index within a slice (linear, xor, ipoly)"};
const Param<std::string> kSliceHash{"l2.slice_hash", "ipoly", "",
                                     "address-to-slice mapping (linear, xor, ipoly; ipoly of a count that is not a "
                                     "power of two rotates each stripe of one line per slice)"};

uint32_t u32(int64_t v) { return static_cast<uint32_t>(v); }

// ld/st.cs and ld.lu: the line is allocated as its set's next victim, and a
// hit does not renew it.
bool streams(const MemRequest& r) {
  return r.cache_op == ir::CacheOp::Streaming || r.cache_op == ir::CacheOp::LastUse;
}

SectorCacheShape l2_shape(const config::Config& cfg, const L2AddressMap& map) {
  SectorCacheShape s;
  uint64_t lines = static_cast<uint64_t>(kSizeKb.get(cfg)) * 1024 / kLineBytes;
  uint64_t per_set = uint64_t{map.num_slices()} * u32(kWays.get(cfg));
  if (lines < per_set) throw ConfigError(kSizeKb.name(), "capacity is below one set per slice");
  // A capacity that does not divide evenly over slices x ways is rounded to
  // the nearest whole number of sets per slice (documented in docs/params.md).
  s.sets = static_cast<uint32_t>((lines + per_set / 2) / per_set);
  s.ways = u32(kWays.get(cfg));
  s.replacement = kReplacement.get(cfg);
  s.set_index = kSetIndex.get(cfg);
  // Lines of one slice differ in the bits above the slice-selecting ones.
  s.index_divisor = map.num_slices();
  s.param_prefix = "l2";
  return s;
}

}  // namespace

L2AddressMap::L2AddressMap(const config::Config& cfg)
    : slices_(u32(kChannels.get(cfg) * kPerChannel.get(cfg))),
      per_channel_(u32(kPerChannel.get(cfg))),
      hash_(make_index_hash(kSliceHash.name(), kSliceHash.get(cfg), slices_)) {}

L2Slice::L2Slice(const config::Config& cfg, stats::Scope scope, const ClockDomain& l2clk, uint16_t slice_id)
    : clk_(l2clk),
      id_(slice_id),
      map_(cfg),
      latency_(u32(kLatency.get(cfg))),
      dram_latency_(u32(kDramLatency.get(cfg))),
      mshr_cap_(u32(kMshrs.get(cfg))),
      max_merge_(u32(kMaxMerge.get(cfg))),
      atomic_ops_per_clk_(u32(kAtomicOps.get(cfg))),
      dram_queue_cap_(u32(kDramQueue.get(cfg))),
      pipeline_cap_(latency_ + 16),  // enough to accept one request per cycle at full latency
      tags_(l2_shape(cfg, map_)),
      from_icnt_(static_cast<size_t>(kInputQueue.get(cfg))),
      from_dram_(static_cast<size_t>(kDramReplyQueue.get(cfg))),
      reply_link_(cfg),
      reads_(scope.counter("reads", "read sectors")),
      read_hits_(scope.counter("read_hits", "read sectors valid in L2")),
      read_misses_(scope.counter("read_misses", "read sectors fetched from or merged towards DRAM")),
      writes_(scope.counter("writes", "written sectors")),
      write_hits_(scope.counter("write_hits", "written sectors already allocated")),
      write_misses_(scope.counter("write_misses", "written sectors allocated by the write")),
      atomics_(scope.counter("atomics", "atomic requests performed at L2 (a sector and pass each: lanes on one address go in different passes)")),
      dram_reads_(scope.counter("dram_reads", "sectors read from DRAM")),
      dram_writes_(scope.counter("dram_writes", "dirty sectors written back to DRAM")),
      mshr_merges_(scope.counter("mshr_merges", "misses merged into an in-flight sector")),
      stall_cycles_(scope.counter("stall_cycles",
                                  "cycles the pipeline head waited for MSHR or queue space or the atomic unit")) {
  code_loaded_ = kCodeLoaded.get(cfg);
  track_events();
  from_icnt_.wire_consumer(this);
  from_dram_.wire_consumer(this);
}

void L2Slice::tick() {
  Tick now = clk_.now_tick();
  // A fill may evict up to four dirty sectors, so it waits for that much room.
  if (from_dram_.ready(now) && dram_room(kSectorsPerLine)) {
    fill(from_dram_.front());
    from_dram_.pop();
  }
  if (from_icnt_.ready(now) && pipeline_.size() < pipeline_cap_) {
    pipeline_.push_back(Staged{clk_.tick_of(clk_.now() + latency_), from_icnt_.front()});
    from_icnt_.pop();
  }
  if (!pipeline_.empty() && pipeline_.front().ready <= now) {
    bool done = process(pipeline_.front().req);
    if (done) pipeline_.pop_front();
    note_head(done);
  }
  drain();
}

// Stall accounting: every cycle from the head's first failed try to its
// success counts, whether or not the slice was ticked in between.
void L2Slice::note_head(bool done) {
  if (done) {
    if (stalled_) stall_cycles_.inc(clk_.now() - stall_since_);
    stalled_ = false;
    return;
  }
  if (!stalled_) stall_since_ = clk_.now();
  stalled_ = true;
  stall_fills_ = fills_;
  stall_sends_ = dram_sends_;
}

void L2Slice::drain() {
  Tick now = clk_.now_tick();
  if (!reply_q_.empty() && to_reply_ && reply_link_.free(clk_.now()) && to_reply_->can_push(now)) {
    to_reply_->push(reply_q_.front(), now);
    reply_link_.sent(reply_q_.front(), clk_.now());
    reply_q_.pop_front();
  }
  // The wire towards DRAM carries a sector of write data a cycle (a read
  // request is one cycle).
  if (!dram_q_.empty() && to_dram_ && dram_wire_free_ <= clk_.now() && to_dram_->can_push(now)) {
    const MemRequest& m = dram_q_.front();
    uint32_t n = m.sector_count();
    dram_wire_free_ = clk_.now() + (m.type == AccessType::Write ? n : 1);
    to_dram_->push(m, clk_.tick_of(clk_.now() + dram_latency_));
    dram_q_sectors_ -= n;
    dram_q_.pop_front();
    ++dram_sends_;
  }
}

bool L2Slice::process(MemRequest& r) {
  switch (r.type) {
    case AccessType::Read: return process_read(r);
    case AccessType::Write: return process_write(r);
    case AccessType::Atomic: break;
  }
  // Atomics read-modify-write the sector here, in the slice's atomic unit
  // (the head waits while it is busy); the result goes back as a reply.
  uint64_t now_ops = clk_.now() * atomic_ops_per_clk_;
  waits_for_atomics_ = atomic_free_ops_ > now_ops;
  if (waits_for_atomics_) return false;
  CacheLine* line = tags_.find(line_of(r.addr));
  uint32_t s = sector_in_line(r.addr);
  if (line && (line->valid >> s & 1)) {
    tags_.touch(*line);
    line->dirty |= static_cast<uint8_t>(1u << s);
    reply(r);
  } else if (!miss(r, r.sector_bits())) {
    return false;
  }
  atomics_.inc();
  atomic_free_ops_ = now_ops + std::max<uint32_t>(r.thread_ops, 1);
  return true;
}

// A read of one or more sectors of a line, looked up once: the valid ones
// go back in one reply, the others in one reply when DRAM has returned them
// all (absent, or only partly written: DRAM's bytes merge under the written
// ones on fill). A stall keeps the sectors not yet handled in the request
// for the retry.
bool L2Slice::process_read(MemRequest& r) {
  Addr line_addr = r.line_addr();
  CacheLine* line = tags_.find(line_addr);
  uint8_t want = r.sector_bits();
  if (code_loaded_ && is_code_addr(line_addr) && (!line || (line->valid & want) != want) && load_code(line_addr))
    line = tags_.find(line_addr);
  if (ir::is_param_bank_addr(line_addr) && (!line || (line->valid & want) != want)) {
    warm(line_addr, kLineBytes);  // every launch writes its constant bank (ir/param_bank.h)
    line = tags_.find(line_addr);
  }
  uint8_t hits = line ? want & line->valid : 0;
  if (hits) {
    if (!streams(r)) tags_.touch(*line);
    uint32_t n = static_cast<uint32_t>(std::popcount(hits));
    reads_.inc(n);
    read_hits_.inc(n);
    MemRequest h = r;
    h.keep_sectors(hits);
    reply(h);
  }
  uint8_t missing = static_cast<uint8_t>(want & ~hits);
  if (missing == 0) return true;
  uint8_t taken = miss(r, missing);
  uint32_t n = static_cast<uint32_t>(std::popcount(taken));
  reads_.inc(n);
  read_misses_.inc(n);
  if (taken == missing) return true;
  r.keep_sectors(static_cast<uint8_t>(missing & ~taken));
  return false;
}

// Write-validate: the written bytes (the same bytes of each sector the
// message carries) become valid and dirty without a fetch. st.wt also sends
// them on to DRAM; a sector it wrote whole that held no other
// unwritten-back bytes stays clean.
bool L2Slice::process_write(const MemRequest& r) {
  bool through = r.cache_op == ir::CacheOp::WriteThrough;
  uint32_t n = r.sector_count();
  // (a write-through with a full victim may pass a 4-entry queue's limit)
  if (!dram_room(std::min(kSectorsPerLine + (through ? n : 0), dram_queue_cap_))) return false;
  writes_.inc(n);
  Addr line_addr = r.line_addr();
  CacheLine* found = tags_.find(line_addr);
  CacheLine& line = found ? *found : line_for(line_addr, streams(r) ? Retention::EvictFirst : Retention::Normal);
  if (found && !streams(r)) tags_.touch(line);
  for (uint8_t bits = r.sector_bits(); bits != 0; bits &= static_cast<uint8_t>(bits - 1)) {
    uint32_t s = static_cast<uint32_t>(std::countr_zero(bits));
    auto bit = static_cast<uint8_t>(1u << s);
    bool hit = found && ((line.valid & bit) || tags_.written(line, s) != 0);
    (hit ? write_hits_ : write_misses_).inc();
    bool was_dirty = line.dirty & bit;
    uint32_t written = tags_.add_written(line, s, r.byte_mask);  // (reads the old dirty bit)
    line.dirty |= bit;
    if (written == kFullSectorMask) line.valid |= bit;
    if (through && !was_dirty && written == kFullSectorMask) line.dirty &= static_cast<uint8_t>(~bit);
  }
  if (through) {
    send_dram(line_addr, r.sector_bits(), r.byte_mask, AccessType::Write);
    dram_writes_.inc(n);
  }
  return true;
}

// The sectors `want` of r's line wait for DRAM: each joins its line's fetch
// in flight or starts one, as far as MSHRs and the DRAM queue allow (lowest
// sectors first). Returns the sectors taken (0 = stall); r waits for them
// as one waiter.
uint8_t L2Slice::miss(const MemRequest& r, uint8_t want) {
  Addr line_addr = r.line_addr();
  const uint32_t* found = mshrs_.find(line_addr);
  Mshr* m = found ? &mshr_pool_[*found] : nullptr;
  if (m && m->waiters.size() >= max_merge_) return 0;
  uint8_t merged = m ? want & m->fetching : 0;
  uint8_t fresh = 0;
  uint32_t n_fresh = 0;
  for (uint8_t bits = static_cast<uint8_t>(want & ~merged); bits != 0; bits &= static_cast<uint8_t>(bits - 1)) {
    if (sectors_in_flight_ + n_fresh >= mshr_cap_ || !dram_room(n_fresh + 1)) break;
    fresh |= static_cast<uint8_t>(bits & -bits);
    ++n_fresh;
  }
  auto taken = static_cast<uint8_t>(merged | fresh);
  if (taken == 0) return 0;
  if (!m) {
    if (free_mshrs_.empty()) {
      free_mshrs_.push_back(static_cast<uint32_t>(mshr_pool_.size()));
      mshr_pool_.emplace_back();
    }
    uint32_t slot = free_mshrs_.back();
    free_mshrs_.pop_back();
    mshrs_[line_addr] = slot;
    m = &mshr_pool_[slot];
  }
  m->fetching |= fresh;
  sectors_in_flight_ += n_fresh;
  if (fresh) {
    send_dram(line_addr, fresh, 0, AccessType::Read);
    dram_reads_.inc(n_fresh);
  }
  mshr_merges_.inc(static_cast<uint32_t>(std::popcount(merged)));
  MemRequest w = r;
  w.keep_sectors(taken);
  m->waiters.push_back(Waiter{w, taken});
  return taken;
}

// Sectors back from DRAM (one fetch's): valid in their line; each waiter
// whose last sectors they were is answered.
void L2Slice::fill(const MemRequest& dram_reply) {
  ++fills_;
  Addr line_addr = dram_reply.line_addr();
  const uint32_t* found_slot = mshrs_.find(line_addr);
  if (!found_slot) return;  // not ours to wait for (a stray reply)
  uint32_t slot = *found_slot;
  Mshr& m = mshr_pool_[slot];
  auto bits = static_cast<uint8_t>(dram_reply.sector_bits() & m.fetching);
  if (!bits) return;
  m.fetching &= static_cast<uint8_t>(~bits);
  sectors_in_flight_ -= static_cast<uint32_t>(std::popcount(bits));
  bool all_stream = true;
  for (uint32_t i = 0; i < m.waiters.size(); ++i) all_stream &= streams(m.waiters[i].req);
  CacheLine* found = tags_.find(line_addr);
  CacheLine& line = found ? *found : line_for(line_addr, all_stream ? Retention::EvictFirst : Retention::Normal);
  line.valid |= bits;  // DRAM bytes merged under the written ones
  for (uint32_t i = 0; i < m.waiters.size();) {
    Waiter& w = m.waiters[i];
    w.pending &= static_cast<uint8_t>(~bits);
    if (w.pending != 0) {
      ++i;
      continue;
    }
    if (w.req.type == AccessType::Atomic) line.dirty |= w.req.sector_bits();
    reply(w.req);
    m.waiters.erase(i);
  }
  if (m.fetching != 0) return;
  mshrs_.erase(line_addr);
  m.waiters.clear();
  free_mshrs_.push_back(slot);
}

CacheLine& L2Slice::line_for(Addr sector, Retention r) {
  std::optional<EvictedLine> victim;
  CacheLine& line = tags_.insert(line_of(sector), &victim, r);
  if (victim) write_back(*victim);
  return line;
}

// The dirty sectors go to DRAM as one write per group written alike (whole
// sectors together: one message for a fully written line).
void L2Slice::write_back(const EvictedLine& victim) {
  auto mask_of = [&](uint32_t s) { return (victim.valid >> s & 1) ? kFullSectorMask : victim.written[s]; };
  for (uint8_t left = victim.dirty; left != 0;) {
    uint32_t mask = mask_of(static_cast<uint32_t>(std::countr_zero(left)));
    uint8_t group = 0;
    for (uint8_t bits = left; bits != 0; bits &= static_cast<uint8_t>(bits - 1))
      if (mask_of(static_cast<uint32_t>(std::countr_zero(bits))) == mask) group |= static_cast<uint8_t>(bits & -bits);
    send_dram(victim.line_addr, group, mask, AccessType::Write);
    dram_writes_.inc(static_cast<uint32_t>(std::popcount(group)));
    left &= static_cast<uint8_t>(~group);
  }
}

void L2Slice::send_dram(Addr line_addr, uint8_t sectors, uint32_t byte_mask, AccessType type) {
  MemRequest m;
  m.addr = line_addr;
  m.keep_sectors(sectors);
  m.byte_mask = byte_mask;
  m.type = type;
  m.src_slice = id_;
  m.issued = clk_.now_tick();
  dram_q_.push_back(m);
  dram_q_sectors_ += static_cast<uint32_t>(std::popcount(sectors));
}

void L2Slice::reply(MemRequest r) {
  r.is_reply = true;
  reply_q_.push_back(r);
}

// The first read of a code line installs it (its module load wrote it here);
// false when the line was loaded before (then it was evicted since).
bool L2Slice::load_code(Addr addr) {
  Addr line = line_of(addr);
  if (loaded_code_.find(line)) return false;
  loaded_code_[line] = 1;
  warm(line, kLineBytes);
  return true;
}

void L2Slice::warm(Addr addr, uint64_t bytes) {
  if (bytes == 0) return;
  // By sector index, not byte address: the byte past the top sector wraps to 0.
  Addr first = addr / kSectorBytes, last = (addr + (bytes - 1)) / kSectorBytes;
  for (Addr s = first; s <= last; ++s) {
    Addr a = s * kSectorBytes;
    if (map_.slice_of(a) != id_) continue;
    CacheLine* found = tags_.find(line_of(a));
    CacheLine& line = found ? *found : line_for(a);
    line.valid |= static_cast<uint8_t>(1u << sector_in_line(a));
  }
}

bool L2Slice::busy() const {
  return (!reply_q_.empty() && to_reply_) || (!dram_q_.empty() && to_dram_) || !from_icnt_.empty() ||
         !from_dram_.empty() || !pipeline_.empty();
}

std::string L2Slice::waiting_for() const {
  size_t mshrs = mshr_pool_.size() - free_mshrs_.size();
  if (!busy() && mshrs == 0) return {};
  return fmt::format("{} requests arriving, {} in the pipeline{}, {} MSHRs wait for DRAM, {} sectors queued for DRAM, "
                     "{} replies queued",
                     from_icnt_.size(), pipeline_.size(), stalled_ ? " (its head waits for an MSHR or DRAM queue room)" : "",
                     mshrs, dram_q_sectors_, reply_q_.size());
}

// Work blocked on a full output port waits for the consumer's pop, which
// wakes this slice (when wired); a stalled pipeline head waits for a fill or
// a send towards DRAM. Neither is polled on every cycle.
Tick L2Slice::next_event() const {
  Tick now = clk_.now_tick();
  Tick t = kNever;
  if (!reply_q_.empty() && to_reply_) {
    if (!reply_link_.free(clk_.now())) t = clk_.tick_of(reply_link_.free_at());
    else if (!blocked(to_reply_, reply_wired_, now)) return now;
  }
  if (!dram_q_.empty() && to_dram_) {
    if (dram_wire_free_ > clk_.now()) t = std::min(t, clk_.tick_of(dram_wire_free_));
    else if (!blocked(to_dram_, dram_wired_, now)) return now;
  }
  Tick fill_at = from_dram_.next_ready();
  if (fill_at > now || dram_room(kSectorsPerLine)) t = std::min(t, fill_at);
  Tick accept_at = from_icnt_.next_ready();
  if (accept_at > now || pipeline_.size() < pipeline_cap_) t = std::min(t, accept_at);
  if (!pipeline_.empty()) {
    if (!stalled_) t = std::min(t, pipeline_.front().ready);
    else if (waits_for_atomics_)
      t = std::min(t, clk_.tick_of((atomic_free_ops_ + atomic_ops_per_clk_ - 1) / atomic_ops_per_clk_));
    else if (fills_ != stall_fills_ || dram_sends_ != stall_sends_) return now;
  }
  // A DRAM reply was pushed (that woke us): fill() will look up its MSHR and
  // line; start loading them into the host's caches (changes no state).
  if (!from_dram_.empty()) {
    mshrs_.prefetch(line_of(from_dram_.front().addr));
    tags_.prefetch(line_of(from_dram_.front().addr));
  }
  return t;
}

}  // namespace ws::timing
