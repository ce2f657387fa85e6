#include "timing/abstract/memory_model.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <optional>

#include "common/error.h"
#include "ir/param_bank.h"
#include "timing/mem/atomic_ops.h"
#include "timing/mem/shared_mem.h"

namespace ws::timing::abstract {

namespace {

// Every value is read through the parameter names the detailed components
// declare (their defaults live there): the two models see one preset.
int64_t i64(const config::Config& cfg, const char* name) { return cfg.get<int64_t>(name); }

SectorCacheShape l1_shape(const config::Config& cfg) {
  SectorCacheShape s;
  s.sets = static_cast<uint32_t>(i64(cfg, "l1d.sets"));
  s.ways = static_cast<uint32_t>(static_cast<uint64_t>(i64(cfg, "l1d.size_kb")) * 1024 / kLineBytes / s.sets);
  s.replacement = cfg.get<std::string>("l1d.replacement");
  s.set_index = cfg.get<std::string>("l1d.set_index");
  s.param_prefix = "l1d";
  return s;
}

SectorCacheShape l2_shape(const config::Config& cfg, const L2AddressMap& map) {
  SectorCacheShape s;
  uint64_t lines = static_cast<uint64_t>(i64(cfg, "l2.size_kb")) * 1024 / kLineBytes;
  uint64_t per_set = uint64_t{map.num_slices()} * static_cast<uint64_t>(i64(cfg, "l2.ways"));
  s.sets = static_cast<uint32_t>(std::max<uint64_t>(1, (lines + per_set / 2) / per_set));
  s.ways = static_cast<uint32_t>(i64(cfg, "l2.ways"));
  s.replacement = cfg.get<std::string>("l2.replacement");
  s.set_index = cfg.get<std::string>("l2.set_index");
  s.index_divisor = map.num_slices();
  s.param_prefix = "l2";
  return s;
}

Cycle up(double t) { return static_cast<Cycle>(std::ceil(t)); }

// Starts a transfer of `cycles` on a resource free from `port` at or after
// `at`; returns when it starts.
double occupy(double& port, double at, double cycles) {
  double start = std::max(port, at);
  port = start + cycles;
  return start;
}

bool bypasses_l1(ir::CacheOp op) {
  return op == ir::CacheOp::CacheGlobal || op == ir::CacheOp::Volatile;
}

}  // namespace

struct MemoryModel::SmCounters {
  stats::Counter *reads, *read_hits, *writes, *write_hits;
};
struct MemoryModel::SliceCounters {
  stats::Counter *reads, *read_hits, *writes, *write_hits, *atomics;
};

TimedTags::TimedTags(const SectorCacheShape& shape)
    : tags_(shape),
      ready_(size_t{shape.sets} * shape.ways * kSectorsPerLine, 0),
      waiting_(ready_.size(), 0) {}

void TimedTags::resize_ways(uint32_t ways) {
  tags_.resize(tags_.sets(), ways);
  ready_.assign(size_t{tags_.sets()} * ways * kSectorsPerLine, 0);
  waiting_.assign(ready_.size(), 0);
}

MemoryModel::MemoryModel(const config::Config& cfg, stats::Registry& reg, uint32_t n_sms)
    : map_(cfg),
      dram_(cfg, reg, map_.num_slices(), map_.slices_per_channel()),
      l1_max_bytes_(static_cast<uint64_t>(i64(cfg, "l1d.size_kb")) * 1024),
      l2_bytes_(static_cast<uint64_t>(i64(cfg, "l2.size_kb")) * 1024),
      l1_sets_(static_cast<uint32_t>(i64(cfg, "l1d.sets"))),
      cache_global_(cfg.get<bool>("l1d.cache_global")),
      write_allocate_(cfg.get<std::string>("l1d.write_policy") == "write-allocate"),
      code_loaded_(cfg.get<bool>("l2.code_loaded")),
      bank_latency_(static_cast<Cycle>(cfg.get<int64_t>("l1c.bank_latency"))),
      flit_bytes_(static_cast<uint32_t>(i64(cfg, "icnt.flit_bytes"))),
      header_bytes_(static_cast<uint32_t>(i64(cfg, "icnt.header_bytes"))),
      tag_lookups_(static_cast<uint32_t>(i64(cfg, "l1d.tag_lookups"))),
      upstream_cap_(static_cast<uint32_t>(i64(cfg, "l1d.miss_queue") + i64(cfg, "icnt.input_buffer"))),
      shared_banks_(static_cast<uint32_t>(i64(cfg, "shared.banks"))),
      bank_bytes_(static_cast<uint32_t>(i64(cfg, "shared.bank_bytes"))),
      max_merge_(static_cast<uint32_t>(std::min<int64_t>(255, i64(cfg, "l2.mshr_max_merge")))),
      shared_pair_packing_(cfg.get<bool>("shared.pair_packing")),
      l1_data_(static_cast<uint32_t>(i64(cfg, "l1d.data_banks")), static_cast<uint32_t>(i64(cfg, "l1d.bank_bytes"))) {
  double core = cfg.get<double>("clock.core_mhz");
  double per_icnt = core / cfg.get<double>("clock.icnt_mhz"), per_l2 = core / cfg.get<double>("clock.l2_mhz");
  l1_latency_ = static_cast<double>(i64(cfg, "l1d.latency"));
  shared_latency_ = static_cast<double>(i64(cfg, "shared.latency"));
  icnt_latency_ = static_cast<double>(i64(cfg, "icnt.latency")) * per_icnt;
  l2_latency_ = static_cast<double>(i64(cfg, "l2.latency")) * per_l2;
  // A slice's pipeline takes one sector per L2 cycle.
  slice_request_ = per_l2;
  slice_queue_ = static_cast<double>(i64(cfg, "l2.input_queue"));
  atomic_op_ = per_l2 / static_cast<double>(i64(cfg, "l2.atomic_ops_per_clk"));
  atomic_request_cycles_ = static_cast<uint32_t>(i64(cfg, "l1d.atomic_request_cycles"));
  stats::Scope root(reg, "");
  for (uint32_t i = 0; i < n_sms; ++i) {
    l1_.push_back(std::make_unique<TimedTags>(l1_shape(cfg)));
    stats::Scope s = root.sub("sm").sub(std::to_string(i)).sub("l1d");
    sm_counters_.push_back({&s.counter("reads", "read sectors looked up"),
                            &s.counter("read_hits", "read sectors found valid"),
                            &s.counter("writes", "written sectors (write-through)"),
                            &s.counter("write_hits", "written sectors present (updated in place)")});
  }
  req_port_.resize(n_sms);
  l1_cursor_.resize(n_sms, 0);
  upstream_.resize(n_sms);
  reply_port_.resize(n_sms);
  uint32_t n_slices = map_.num_slices();
  for (uint32_t i = 0; i < n_slices; ++i) {
    l2_.push_back(std::make_unique<TimedTags>(l2_shape(cfg, map_)));
    stats::Scope s = root.sub("l2").sub(std::to_string(i));
    slice_counters_.push_back({&s.counter("reads", "read sectors"), &s.counter("read_hits", "read sectors valid in L2"),
                               &s.counter("writes", "written sectors"),
                               &s.counter("write_hits", "written sectors already allocated"),
                               &s.counter("atomics", "atomic requests performed at L2 (a sector and pass each: lanes on one address go in different passes)")});
  }
  slice_port_.resize(n_slices);
  slice_atomics_.resize(n_slices);
  slice_out_.resize(n_slices);
}

MemoryModel::~MemoryModel() = default;

void MemoryModel::set_l1_bytes(uint64_t bytes) {
  bytes = std::min(bytes, l1_max_bytes_);
  uint64_t per_way = uint64_t{l1_sets_} * kLineBytes;
  if (bytes % per_way != 0)
    throw ConfigError("l1d.size_kb", "L1 size " + std::to_string(bytes) + " B is not a multiple of " +
                                         std::to_string(per_way) + " B (sets x 128 B)");
  // Resizing drops every line, as the detailed L1 does at each kernel: the
  // L1s are not coherent, so a kernel never finds the one before's lines.
  for (auto& l1 : l1_) l1->resize_ways(static_cast<uint32_t>(bytes / per_way));
}

void MemoryModel::warm(Addr begin, Addr end) {
  for (Addr a = begin & ~Addr{31}; a < end; a += 32) {
    uint32_t slice = map_.slice_of(a);
    SectorCache& tags = l2_[slice]->tags();
    CacheLine* found = tags.find(line_of(a));
    CacheLine& line = found ? *found : l2_allocate(slice, line_of(a), 0);
    line.valid |= static_cast<uint8_t>(1u << sector_in_line(a));
    l2_[slice]->ready(line, sector_in_line(a)) = 0;
    if (a + 32 < a) break;  // (the top sector)
  }
}


// Shared memory: the access's wavefronts (bank conflicts and lane groups,
// as the detailed model counts them: timing/mem/shared_mem.h) serialise it.
MemTiming MemoryModel::shared_access(const ir::WarpInst& in, Cycle now) const {
  ir::LaneAddrs scratch;
  const Addr* addrs = ir::lane_addrs(in, scratch);
  uint32_t cycles = 1;
  if (addrs && in.active_mask)
    cycles = std::max<uint32_t>(1, shared_access_cycles(addrs, in.active_mask, in.access_bytes, shared_banks_, bank_bytes_,
                                                               shared_pair_packing_ && in.kind == ir::OpKind::Load));
  return MemTiming{now + up(shared_latency_) + cycles - 1, cycles};
}

// Cycles of the L1 data array a cached read takes, as the detailed L1 counts
// them (L1DataArray): per tag-stage cycle (l1d.tag_lookups lines), as many
// as the bank most asked for by different rows needs; hits and misses alike.
uint32_t MemoryModel::l1_data_cycles(const std::vector<LineAccess>& lines) {
  uint64_t before = l1_data_.wavefronts();
  for (size_t i = 0; i < lines.size(); ++i) {
    if (i % tag_lookups_ == 0) ++l1_data_cycle_;
    l1_data_.place(lines[i].line_addr, lines[i].sector_mask, lines[i].byte_masks, l1_data_cycle_);
  }
  return static_cast<uint32_t>(std::max<uint64_t>(1, l1_data_.wavefronts() - before));
}

MemTiming MemoryModel::access(uint32_t sm, const ir::WarpInst& in, Cycle now) {
  if (in.space == ir::MemSpace::Shared) return shared_access(in, now);
  std::vector<LineAccess>& lines = lines_;
  lines.clear();
  ir::LaneAddrs scratch;
  const Addr* addrs = ir::lane_addrs(in, scratch);
  if (addrs && in.active_mask) coalescer_.coalesce(addrs, in.active_mask, in.access_bytes, lines);
  if (in.space == ir::MemSpace::Const)
    for (const LineAccess& a : lines)  // every launch writes its constant bank (ir/param_bank.h)
      if (ir::is_param_bank_addr(a.line_addr)) warm(a.line_addr, a.line_addr + kLineBytes);
  MemTiming t{now + up(l1_latency_), static_cast<uint32_t>(std::max<size_t>(1, (lines.size() + tag_lookups_ - 1) / tag_lookups_))};
  bool use_l1 = (cache_global_ || in.cache_op == ir::CacheOp::NonCoherent || in.space != ir::MemSpace::Global) &&
                !bypasses_l1(in.cache_op);
  if (use_l1 && in.kind == ir::OpKind::Load) t.ldst_cycles = std::max(t.ldst_cycles, l1_data_cycles(lines));
  // The L1 takes an SM's accesses in order: one that waited for the miss
  // queue holds back the ones after it (l1_cursor_).
  Cycle& at = l1_cursor_[sm];
  at = std::max(at, now);
  uint32_t atomic_requests = 0;
  for (const LineAccess& a : lines) {
    if (in.kind == ir::OpKind::Load) t.done = std::max(t.done, global_load(sm, a, at, use_l1));
    else if (in.kind == ir::OpKind::Store) global_store(sm, a, at, use_l1);
    else t.done = std::max(t.done, atomic(sm, a, atomic_lanes(addrs, in.active_mask, a.line_addr, a.lanes), at, atomic_requests));
  }
  // The L1 sends an atomic's requests one after another (l1d.atomic_request_cycles each).
  t.ldst_cycles = std::max(t.ldst_cycles, atomic_requests * atomic_request_cycles_);
  return t;
}

// When the L1 can send `n` more read requests, no earlier than `at`. Its
// requests wait upstream of the crossbar in l1d.miss_queue and
// icnt.input_buffer places until they leave for a slice (upstream_); while
// these are full the detailed L1 stalls its lookups.
Cycle MemoryModel::miss_room(uint32_t sm, uint32_t n, Cycle at) {
  std::vector<double>& waiting = upstream_[sm];
  std::erase_if(waiting, [&](double d) { return d <= static_cast<double>(at); });
  n = std::min(n, upstream_cap_);
  while (waiting.size() + n > upstream_cap_) {
    auto first = std::min_element(waiting.begin(), waiting.end());
    at = std::max(at, up(*first));
    waiting.erase(first);
    std::erase_if(waiting, [&](double d) { return d <= static_cast<double>(at); });
  }
  return at;
}

// A read of one line looked up at `at` (moved on while the miss queue is full).
Cycle MemoryModel::global_load(uint32_t sm, const LineAccess& a, Cycle& at, bool use_l1) {
  if (!use_l1) {
    at = miss_room(sm, 1, at);  // one request for the line's sectors
    return l2_read(sm, a.line_addr, a.sector_mask, at);
  }
  TimedTags& l1 = *l1_[sm];
  SmCounters& c = sm_counters_[sm];
  CacheLine* line = l1.tags().find(a.line_addr);
  if (line) l1.tags().touch(*line);
  else line = &l1.tags().insert(a.line_addr, nullptr);
  // Sectors with no fill on the way miss whenever they are looked up.
  auto missing = static_cast<uint8_t>(a.sector_mask & ~line->valid);
  if (missing) at = miss_room(sm, 1, at);
  Cycle done = at + up(l1_latency_);
  for (uint32_t s = 0; s < kSectorsPerLine; ++s) {
    if (!(a.sector_mask >> s & 1)) continue;
    c.reads->inc();
    if (missing >> s & 1) continue;
    if (l1.ready(*line, s) <= at) c.read_hits->inc();
    else done = std::max(done, l1.ready(*line, s));  // merged with the fill on its way
  }
  if (missing) {
    // A line of the launch's parameter bank comes from the bank level (l1c.bank_latency), as in the detailed SM.
    Cycle back = bank_latency_ && ir::is_param_bank_addr(a.line_addr) ? at + bank_latency_
                                                                        : l2_read(sm, a.line_addr, missing, at);
    line->valid |= missing;
    for (uint32_t s = 0; s < kSectorsPerLine; ++s)
      if (missing >> s & 1) l1.ready(*line, s) = back;
    done = std::max(done, back);
  }
  return done;
}

// When the request enters the slice's pipeline, which takes one message a
// cycle (a read or a store is one message for its line's sectors, an atomic
// one per sector: `messages`). A request that waits for a busy slice waits
// in its input queue (l2.input_queue) and beyond that upstream, at the SM:
// with `sm_waits` (the L1's reads and atomics) its messages hold the SM's
// places (miss_room) until they leave.
Cycle MemoryModel::to_slice(uint32_t sm, uint32_t slice, uint32_t flits, uint32_t messages, Cycle now, bool sm_waits) {
  double sent = occupy(req_port_[sm].free, static_cast<double>(now) + 1, flits);
  double at_slice = sent + icnt_latency_;
  double start = slice_port_[slice].book(at_slice, messages * slice_request_);
  if (sm_waits) {
    double leaves = std::max(sent, start - slice_queue_ * slice_request_ - icnt_latency_);
    if (leaves > static_cast<double>(now)) upstream_[sm].insert(upstream_[sm].end(), std::min(messages, upstream_cap_), leaves);
  }
  return up(start);
}

// The reply leaves the slice's crossbar port and enters the SM's, a flit a
// cycle at each (many SMs reading one line queue at the slice's port).
Cycle MemoryModel::from_slice(uint32_t slice, uint32_t sm, uint32_t sectors, Cycle data_ready) {
  uint32_t flits = sectors * ((32 + header_bytes_ + flit_bytes_ - 1) / flit_bytes_);
  double sent = occupy(slice_out_[slice].free, static_cast<double>(data_ready), flits);
  double start = occupy(reply_port_[sm].free, sent + icnt_latency_, flits);
  return up(start + flits);
}

Cycle MemoryModel::dram_read(uint32_t slice, Addr line, uint32_t sectors, Cycle now) {
  return up(dram_.read(slice, line, sectors, static_cast<double>(now)));
}

void MemoryModel::dram_write(uint32_t slice, Addr line, uint32_t sectors, Cycle now) {
  dram_.write(slice, line, sectors, static_cast<double>(now));
}

// A line allocated in the L2; a dirty victim is written back to DRAM.
CacheLine& MemoryModel::l2_allocate(uint32_t slice, Addr line, Cycle now) {
  std::optional<EvictedLine> evicted;
  CacheLine& l = l2_[slice]->tags().insert(line, &evicted);
  if (evicted && evicted->dirty)
    dram_write(slice, evicted->line_addr, static_cast<uint32_t>(std::popcount(evicted->dirty)), now);
  return l;
}

Cycle MemoryModel::l2_read(uint32_t sm, Addr line_addr, uint8_t mask, Cycle now, uint32_t atomic_ops, bool l1_request,
                           uint32_t atomic_requests) {
  bool is_atomic = atomic_ops > 0;
  uint32_t slice = map_.slice_of(line_addr), n = static_cast<uint32_t>(std::popcount(mask));
  // A read asks for the line's sectors in one header flit; atomics go a sector (and pass) a message.
  uint32_t messages = is_atomic ? std::max(n, atomic_requests) : 1;
  uint32_t req_flits = is_atomic ? std::max(messages, (messages * 32 + header_bytes_ + flit_bytes_ - 1) / flit_bytes_) : 1;
  Cycle at = to_slice(sm, slice, req_flits, messages, now, l1_request);
  if (is_atomic && messages > n) slice_counters_[slice].atomics->inc(messages - n);  // further passes
  TimedTags& l2 = *l2_[slice];
  SliceCounters& c = slice_counters_[slice];
  CacheLine* line = l2.tags().find(line_addr);
  if (line) l2.tags().touch(*line);
  else line = &l2_allocate(slice, line_addr, at);
  // The tags are looked up at the pipeline's end: a miss goes to DRAM then.
  const Cycle lookup = at + up(l2_latency_);
  Cycle ready = lookup, stall = 0;
  uint8_t missing = 0;
  for (uint32_t s = 0; s < kSectorsPerLine; ++s) {
    if (!(mask >> s & 1)) continue;
    (is_atomic ? c.atomics : c.reads)->inc();
    bool valid = line->valid >> s & 1;
    Cycle fill = l2.ready(*line, s);
    if (valid && fill <= lookup) {
      if (!is_atomic) c.read_hits->inc();
    } else if (valid && l2.waiting(*line, s) < max_merge_) {
      ++l2.waiting(*line, s);  // joins the sector's MSHR: a miss
      ready = std::max(ready, fill);
    } else if (valid) {
      // The MSHR is full (l2.mshr_max_merge): as in the detailed slice, the
      // request holds the slice's pipeline until the fill and then hits.
      if (!is_atomic) c.read_hits->inc();
      ready = std::max(ready, fill);
      stall = std::max(stall, fill);
    } else {
      missing |= static_cast<uint8_t>(1u << s);
    }
  }
  if (stall > 0) slice_port_[slice].hold(static_cast<double>(at), static_cast<double>(stall) - l2_latency_);
  if (missing) {
    Cycle fill = dram_read(slice, line_addr, static_cast<uint32_t>(std::popcount(missing)), lookup);
    line->valid |= missing;
    for (uint32_t s = 0; s < kSectorsPerLine; ++s) {
      if (!(missing >> s & 1)) continue;
      l2.ready(*line, s) = fill;
      l2.waiting(*line, s) = 1;
    }
    ready = std::max(ready, fill);
  }
  if (is_atomic) {
    line->dirty |= mask;
    // The slice's atomic unit (l2.atomic_ops_per_clk), one line's operations after another's.
    double& unit = slice_atomics_[slice].free;
    unit = std::max(unit, static_cast<double>(lookup)) + atomic_ops * atomic_op_;
    ready = std::max(ready, static_cast<Cycle>(std::ceil(unit)));
    stores_landed_ = std::max(stores_landed_, ready);  // a reduction nobody waits for still ends the kernel
  }
  return from_slice(slice, sm, is_atomic ? messages : n, ready);
}

void MemoryModel::global_store(uint32_t sm, const LineAccess& a, Cycle now, bool use_l1) {
  uint8_t whole = 0;
  for (uint32_t s = 0; s < kSectorsPerLine; ++s)
    if (a.byte_masks[s] == kFullSectorMask) whole |= static_cast<uint8_t>(1u << s);
  auto n = static_cast<uint32_t>(std::popcount(a.sector_mask));
  if (use_l1) {
    TimedTags& l1 = *l1_[sm];
    CacheLine* line = l1.tags().find(a.line_addr);
    sm_counters_[sm].writes->inc(n);
    if (line) sm_counters_[sm].write_hits->inc(static_cast<uint32_t>(std::popcount(uint8_t(line->valid & a.sector_mask))));
    if (!line && write_allocate_ && whole) line = &l1.tags().insert(a.line_addr, nullptr);
    if (line) {
      line->valid |= whole;
      for (uint32_t s = 0; s < kSectorsPerLine; ++s)
        if (whole >> s & 1) l1.ready(*line, s) = now;
    }
  }
  uint32_t slice = map_.slice_of(a.line_addr);
  uint32_t flits = (n * 32 + header_bytes_ + flit_bytes_ - 1) / flit_bytes_;
  Cycle at = to_slice(sm, slice, flits, 1, now, false);  // one message for the line
  SliceCounters& c = slice_counters_[slice];
  c.writes->inc(n);
  SectorCache& tags = l2_[slice]->tags();
  CacheLine* line = tags.find(a.line_addr);
  if (line) tags.touch(*line);
  else line = &l2_allocate(slice, a.line_addr, at);
  // As the detailed slice (write-validate): a sector's written bytes add up
  // over stores, and it becomes valid once all 32 are written.
  uint8_t fresh = 0;  // valid once the data lands
  for (uint32_t s = 0; s < kSectorsPerLine; ++s) {
    if (!(a.sector_mask >> s & 1)) continue;
    auto bit = static_cast<uint8_t>(1u << s);
    if ((line->valid & bit) || tags.written(*line, s) != 0) c.write_hits->inc();
    if (tags.add_written(*line, s, a.byte_masks[s]) == kFullSectorMask && !(line->valid & bit)) fresh |= bit;
    line->dirty |= bit;
  }
  line->valid |= fresh;
  for (uint32_t s = 0; s < kSectorsPerLine; ++s)
    if (fresh >> s & 1) {
      l2_[slice]->ready(*line, s) = at;
      l2_[slice]->waiting(*line, s) = 0;
    }
  // The store is performed at the pipeline's end; the detailed GPU ends a
  // kernel only once every slice's pipeline has emptied.
  stores_landed_ = std::max(stores_landed_, at + up(l2_latency_));
}

// An atomic sends a request per sector and pass (atomic_ops.h), as the
// detailed L1 does; they are added to `requests`.
Cycle MemoryModel::atomic(uint32_t sm, const LineAccess& a, const AtomicLanes& lanes, Cycle& at, uint32_t& all_requests) {
  uint32_t requests = atomic_requests(lanes.passes, a.sector_mask), ops = 0;
  for (uint32_t s = 0; s < kSectorsPerLine; ++s)
    if (a.sector_mask >> s & 1) ops += lanes.ops[s];
  all_requests += requests;
  at = miss_room(sm, requests, at);
  return l2_read(sm, a.line_addr, a.sector_mask, at, std::max<uint32_t>(ops, 1), true, requests);
}

}  // namespace ws::timing::abstract
