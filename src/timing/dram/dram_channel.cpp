#include "timing/dram/dram_channel.h"

#include <algorithm>
#include <utility>

#include <fmt/format.h>

#include "common/error.h"
#include "timing/mem/index_hash.h"

namespace ws::timing {
namespace {

using config::Param;
const Param<int64_t> kQueue{"dram.queue_size", 64, "sectors",
                            "read queue capacity (reads and writes together when dram.write_queue_size is 0)",
                            {1, 65536}};
const Param<int64_t> kWriteQueue{"dram.write_queue_size", 0, "sectors",
                                 "separate write queue capacity, as HBM controllers have (0: one shared queue)",
                                 {0, 65536}};
const Param<int64_t> kInput{"dram.input_queue", 8, "requests", "requests buffered from the L2 slices", {1, 65536}};
const Param<std::string> kScheduler{"dram.scheduler", "frfcfs", "", "request scheduler (fcfs, frfcfs)"};
const Param<int64_t> kWriteHigh{"dram.write_high", 32, "sectors", "queued writes that start a write drain",
                                {1, 65536}};
const Param<int64_t> kWriteLow{"dram.write_low", 8, "sectors", "queued writes that end a write drain", {0, 65536}};
const Param<int64_t> kRowBytes{"dram.row_bytes", 2048, "bytes", "row (page) size per bank", {128, 1 << 20}};
const Param<bool> kDualBus{"dram.dual_command_bus", true, "",
                           "separate row and column command buses (HBM): an ACT/PRE and a RD/WR may issue in one cycle"};

uint32_t u32(int64_t v) { return static_cast<uint32_t>(v); }

// Checked before the address map derives the column width from it.
void check_row_bytes(const config::Config& cfg) {
  if (!is_pow2(static_cast<uint64_t>(kRowBytes.get(cfg)))) throw ConfigError(kRowBytes.name(), "must be a power of two");
}

}  // namespace

DramChannel::DramChannel(const config::Config& cfg, stats::Scope scope, const ClockDomain& dram_clk,
                         uint32_t channel_id)
    : clk_(dram_clk),
      id_(channel_id),
      timing_(dram_timing_params(cfg)),
      tracker_(dram_timing_table(timing_), timing_.banks, timing_.bank_groups, timing_.tFAW),
      scheduler_(DramSchedulerRegistry::instance().create(kScheduler.name(), kScheduler.get(cfg))),
      queue_cap_(u32(kQueue.get(cfg))),
      write_queue_cap_(u32(kWriteQueue.get(cfg))),
      write_high_(u32(kWriteHigh.get(cfg))),
      write_low_(u32(kWriteLow.get(cfg))),
      // The L2 topology decides which line-number bits already chose the channel.
      total_slices_(u32(cfg.get<int64_t>("l2.channels") * cfg.get<int64_t>("l2.slices_per_channel"))),
      per_channel_(u32(cfg.get<int64_t>("l2.slices_per_channel"))),
      slice_shift_(is_pow2(total_slices_) ? static_cast<int32_t>(log2_exact(total_slices_)) : -1),
      map_((check_row_bytes(cfg), cfg), timing_.banks),
      dual_bus_(kDualBus.get(cfg)),
      from_l2_(static_cast<size_t>(kInput.get(cfg))),
      banks_(timing_.banks),
      dirty_(timing_.banks),
      views_(timing_.banks, dual_bus_),
      reads_(scope.counter("reads", "read commands (32 B sectors)")),
      writes_(scope.counter("writes", "write commands (32 B sectors)")),
      activates_(scope.counter("activates", "row activations")),
      precharges_(scope.counter("precharges", "row precharges")),
      row_hits_(scope.counter("row_hits", "column commands that found their row already open")),
      busy_cycles_(scope.counter("busy_cycles", "cycles the data bus carried data")),
      refreshes_(scope.counter("refreshes", "refresh commands (all-bank, or single-bank with dram.refresh_per_bank)")),
      read_queue_cycles_(scope.counter("read_queue_cycles", "queued reads summed over DRAM cycles (/ cycles = mean)")),
      write_queue_cycles_(
          scope.counter("write_queue_cycles", "queued writes summed over DRAM cycles (/ cycles = mean)")),
      stalled_cycles_(scope.counter("stalled_cycles", "DRAM cycles with requests queued but no column command")),
      refresh_stall_cycles_(
          scope.counter("refresh_stall_cycles", "stalled_cycles spent waiting for an all-bank refresh")),
      row_stall_cycles_(scope.counter("row_stall_cycles",
                                      "stalled_cycles (refresh aside) in which no queued request hit an open row")),
      turnarounds_(scope.counter("turnarounds", "column commands that switched between read and write")) {
  if (write_low_ >= write_high_) throw ConfigError(kWriteLow.name(), "must be below dram.write_high");
  // Channels refresh independently; staggering their first refresh keeps them
  // from all stalling at the same instant.
  uint64_t channels = std::max<int64_t>(1, cfg.get<int64_t>("l2.channels"));
  Cycle interval = timing_.per_bank_refresh ? timing_.tREFI / timing_.banks : timing_.tREFI;
  next_ref_ = interval + interval * (id_ % channels) / channels;
  ref_owed_.assign(timing_.banks, 1);
  ref_owed_count_ = timing_.banks;
  track_events();
  from_l2_.wire_consumer(this);
}

void DramChannel::connect_reply(uint16_t slice_id, Port<MemRequest>* to_slice) {
  if (reply_to_.size() <= slice_id) reply_to_.resize(size_t{slice_id} + 1, nullptr);
  reply_to_[slice_id] = to_slice;
}

DramLocation DramChannel::locate(const MemRequest& r) const {
  uint64_t line = r.addr / 128;
  uint64_t local = slice_shift_ >= 0 ? (line >> slice_shift_) * per_channel_ + (r.src_slice & (per_channel_ - 1))
                                     : (line / total_slices_) * per_channel_ + r.src_slice % per_channel_;
  return map_.locate(local);
}

// Stats over the cycles since the last tick: the queues only change when the
// channel ticks, and between ticks no command issues.
void DramChannel::account(Cycle now) {
  if (now > accounted_) count_span(now);
  col_issued_ = ref_blocked_ = no_hit_ = false;
}

// Brings the occupancy and stall counters up to time `at`, as a channel
// ticked on every edge would have them (its last edge at or before `at`): a
// channel asleep with requests queued (they wait for a timing constraint or
// a refresh) has counted only up to its last tick. Called before the GPU
// reads the counters at a kernel's end; the next tick goes on from here.
void DramChannel::settle_counters(Tick at) {
  Cycle now = clk_.cycle_at_or_after(at);
  if (clk_.tick_of(now) > at) --now;
  if (now <= accounted_) return;
  count_span(now);
  col_issued_ = false;  // the cycle it applied to is counted
}

void DramChannel::count_span(Cycle now) {
  Cycle span = now - accounted_;
  uint32_t writes = queued_writes_;
  read_queue_cycles_.inc((queued_ - writes) * span);
  write_queue_cycles_.inc(writes * span);
  if (queued_ > 0) {
    Cycle idle = span - (col_issued_ ? 1 : 0);
    stalled_cycles_.inc(idle);
    if (ref_blocked_) refresh_stall_cycles_.inc(idle);
    else if (no_hit_) row_stall_cycles_.inc(idle);
  }
  accounted_ = now;
}

void DramChannel::tick() {
  Cycle now = clk_.now();
  account(now);
  // Per-bank refresh picks its bank from the queues, so it runs before this
  // cycle's arrivals: a back-dated pick then sees what an ungated tick saw.
  bool row_bus_taken = timing_.per_bank_refresh && service_bank_refresh();
  enqueue_arrivals();
  deliver_replies();
  update_drain_mode();
  if (!timing_.per_bank_refresh && service_refresh()) {
    ref_blocked_ = queued_ > 0;
    return;
  }
  if (queued_ == 0) return;
  uint32_t issued = row_bus_taken ? 1 : 0;
  if (dual_bus_) {
    issued += issue_dual(row_bus_taken);
  } else {
    build_views(false);
    DramChoice c = views_.any_col_issuable() ? scheduler_->pick(views_.col()) : DramChoice{};
    if (c.bank >= 0 && !row_bus_taken) {
      issue(static_cast<uint32_t>(c.bank), c.hit);
      issued = 1;
    }
  }
  if (issued) {
    next_issue_ = now + 1;
    // Worth a look only if no bank was left ready: one that was would most
    // likely still be next cycle.
    if (queued_ > 0 && views_.issuable() <= issued) skip_idle_cycle(now);
    return;
  }
  ref_blocked_ = now < ref_until_;
  // Nothing can issue: sleep until the first command's timing constraint
  // expires (arrivals and issues are the only other changes, and both tick).
  next_issue_ = std::max(first_issue(), now + 1);
}

// No queued request's next command can issue before this cycle (a lower
// bound: the scheduler may still pass over it), nor the next per-bank
// refresh step. Needs the views up to date (build_views).
Cycle DramChannel::first_issue() const {
  Cycle first = timing_.per_bank_refresh && timing_.tREFI > 0 ? std::max(ref_wake_, next_ref_) : ~Cycle{0};
  first = std::min(first, views_.earliest_ready());
  if (ref_bank_ >= 0) {  // the bank held for its refresh is not in the views
    auto b = static_cast<uint32_t>(ref_bank_);
    const Bank& bank = banks_[b];
    if (bank.oldest >= 0) first = std::min(first, tracker_.earliest(bank.sum.oldest_cmd, b));
    if (bank.hit >= 0) first = std::min(first, tracker_.earliest(bank.sum.hit_cmd, b));
  }
  return first;
}

// After a tick that issued, the next cycle's tick would often issue nothing
// (every command still waits for its timing): if that tick would do nothing
// else either (no refresh step, no arrival, no change of the write-drain
// mode), its bookkeeping is done now and the channel sleeps until a command
// can issue. What the skipped tick would have seen is what this one leaves,
// so the counters and the command log are those of ticking every cycle. If
// a request does arrive meanwhile, the channel is woken and ticks as usual.
void DramChannel::skip_idle_cycle(Cycle now) {
  Cycle next = now + 1;
  if (timing_.tREFI > 0 && next_ref_ <= next) return;
  if (from_l2_.ready(clk_.tick_of(next)) && has_room(from_l2_.front())) return;
  if (drain_mode() != std::pair{draining_, reads_waiting_}) return;
  refresh_views();
  Cycle first = first_issue();
  if (first <= next) return;
  account(next);  // cycle `now`, as the skipped tick would count it
  no_hit_ = !views_.any_hit();
  ref_blocked_ = next < ref_until_;
  next_issue_ = first;
}

// Dual command bus: a row command (ACT/PRE) and a column command (RD/WR) may
// issue in the same cycle. The row pick goes first; its bank is then left out
// of the column pick, which it cannot otherwise affect (no timing row links a
// row command in one bank to a column command in another).
uint32_t DramChannel::issue_dual(bool row_bus_taken) {
  build_views(row_bus_taken);
  // A scheduler only picks a bank whose command can issue: without one, skip it.
  DramChoice row = views_.any_row_issuable() ? scheduler_->pick(views_.row()) : DramChoice{};
  if (row.bank >= 0) {
    issue(static_cast<uint32_t>(row.bank), false);  // the request stays queued
    views_.block(static_cast<uint32_t>(row.bank));
  }
  DramChoice col = views_.any_col_issuable() ? scheduler_->pick(views_.col()) : DramChoice{};
  if (col.bank >= 0) issue(static_cast<uint32_t>(col.bank), col.hit);
  return (row.bank >= 0 ? 1u : 0u) + (col.bank >= 0 ? 1u : 0u);
}

// Once a refresh is due it owns the command bus: close open banks one PRE per
// cycle, then REF. If the channel sat idle, the sequence is back-dated to the
// cycles it left unused (nothing issued since), so idle time refreshes for
// free and the engine never wakes an idle channel. True: this cycle is taken.
bool DramChannel::service_refresh() {
  Cycle now = clk_.now();
  while (timing_.tREFI > 0 && next_ref_ <= now) {
    int32_t open = -1;
    for (uint32_t b = 0; b < banks_.size() && open < 0; ++b)
      if (banks_[b].open) open = static_cast<int32_t>(b);
    DramCmd cmd = open >= 0 ? DramCmd::Pre : DramCmd::Ref;
    uint32_t bank = open >= 0 ? static_cast<uint32_t>(open) : 0;
    Cycle t = std::max({next_ref_, last_cmd_ + 1, tracker_.earliest(cmd, bank)});
    if (t > now) {
      next_issue_ = t;
      return true;
    }
    record(cmd, bank, banks_[bank].row, t);
    if (cmd == DramCmd::Pre) {
      banks_[bank].open = false;
      dirty_.set(bank);
      precharges_.inc();
    } else {
      refreshes_.inc();
      next_ref_ += timing_.tREFI;
      ref_until_ = t + timing_.tRFC;
    }
    if (t == now) {
      next_issue_ = now + 1;
      return true;
    }
  }
  return false;
}

// Per-bank refresh, as HBM controllers do it: the due refresh goes to a bank
// still owed one this round, preferring a closed bank nobody waits for, and it
// holds only that bank (its requests wait; the row bus carries its PRE/REF as
// soon as timing allows), so the other banks keep the data bus busy. Idle
// stretches are back-dated as for all-bank refresh. True: the row command
// slot of this cycle is taken.
bool DramChannel::service_bank_refresh() {
  Cycle now = clk_.now();
  while (timing_.tREFI > 0 && next_ref_ <= now) {
    if (ref_bank_ < 0) {
      ref_bank_ = static_cast<int32_t>(pick_refresh_bank());
      dirty_.set(size_t(ref_bank_));
    }
    auto bank = static_cast<uint32_t>(ref_bank_);
    DramCmd cmd = banks_[bank].open ? DramCmd::Pre : DramCmd::Ref;
    Cycle t = std::max({next_ref_, last_cmd_ + 1, tracker_.earliest(cmd, bank)});
    ref_wake_ = t;
    if (t > now) return false;
    record(cmd, bank, banks_[bank].row, t);
    dirty_.set(bank);
    if (cmd == DramCmd::Pre) {
      banks_[bank].open = false;
      precharges_.inc();
    } else {
      refreshes_.inc();
      next_ref_ += timing_.tREFI / timing_.banks;
      ref_owed_[bank] = 0;
      if (--ref_owed_count_ == 0) {
        std::fill(ref_owed_.begin(), ref_owed_.end(), uint8_t{1});
        ref_owed_count_ = timing_.banks;
      }
      ref_bank_ = -1;
    }
    if (t == now) return true;
  }
  return false;
}

// Cheapest owed bank: no queued requests beats queued ones, closed beats open.
uint32_t DramChannel::pick_refresh_bank() const {
  uint32_t best = 0, best_cost = ~0u;
  for (uint32_t b = 0; b < banks_.size(); ++b) {
    if (!ref_owed_[b]) continue;
    uint32_t cost = (banks_[b].queue.empty() ? 0u : 2u) + (banks_[b].open ? 1u : 0u);
    if (cost < best_cost) best = b, best_cost = cost;
    if (cost == 0) break;
  }
  return best;
}

void DramChannel::record(DramCmd cmd, uint32_t bank, uint64_t row, Cycle at) {
  tracker_.issued(cmd, bank, at);
  retime_ = true;
  last_cmd_ = at;
  if (record_) log_.push_back(DramCommandRecord{at, cmd, bank, row});
}

// Arrivals wait in the input port (in order) until their queue has room for
// all their sectors (an empty queue takes any request).
bool DramChannel::has_room(const MemRequest& r) const {
  uint32_t n = r.sector_count();
  auto fits = [n](uint32_t used, uint32_t cap) { return used == 0 || used + n <= cap; };
  if (write_queue_cap_ == 0) return fits(queued_, queue_cap_);
  if (r.type == AccessType::Write) return fits(queued_writes_, write_queue_cap_);
  return fits(queued_ - queued_writes_, queue_cap_);
}

void DramChannel::enqueue_arrivals() {
  Tick now = clk_.now_tick();
  while (from_l2_.ready(now) && has_room(from_l2_.front())) {
    const MemRequest& r = from_l2_.front();
    uint32_t slot;
    if (free_slots_.empty()) {
      slot = static_cast<uint32_t>(pool_.size());
      pool_.emplace_back();
    } else {
      slot = free_slots_.back();
      free_slots_.pop_back();
    }
    if (r.type != AccessType::Write) pool_[slot] = r;  // only a read's reply needs the request again
    DramLocation loc = locate(r);
    bool write = r.type == AccessType::Write;
    banks_[loc.bank].queue.push_back(Queued{loc.row, next_age_++, slot, write, false, r.sector_bits()});
    dirty_.set(loc.bank);
    uint32_t n = r.sector_count();
    queued_ += n;
    queued_writes_ += write ? n : 0;
    from_l2_.pop();
  }
}

void DramChannel::deliver_replies() {
  Tick now = clk_.now_tick();
  while (replies_.ready(now)) {
    const MemRequest& r = replies_.front();
    Port<MemRequest>* to = r.src_slice < reply_to_.size() ? reply_to_[r.src_slice] : nullptr;
    if (!to) throw Error("dram channel " + std::to_string(id_) + ": no reply port for slice " +
                         std::to_string(r.src_slice));
    if (!to->can_push(now)) return;  // the slice is full: hold the data (in order)
    to->push(r, replies_.next_ready());
    replies_.pop();
  }
}

// Writes wait until enough pile up, then drain in a batch, to amortize the
// read/write bus turnarounds. A change of which requests are eligible
// invalidates every bank's summary.
std::pair<bool, bool> DramChannel::drain_mode() const {
  bool draining = draining_;
  if (!draining && queued_writes_ >= write_high_) draining = true;
  if (draining && queued_writes_ <= write_low_) draining = false;
  return {draining, queued_writes_ < queued_};
}

void DramChannel::update_drain_mode() {
  auto [draining, reads_waiting] = drain_mode();
  if (draining != draining_ || reads_waiting != reads_waiting_) dirty_.set_all();
  draining_ = draining;
  reads_waiting_ = reads_waiting;
}

// A bank's oldest eligible request and oldest eligible row hit, recomputed
// only after its queue, its open row or the eligibility rule changed.
void DramChannel::refresh(uint32_t b) {
  Bank& bank = banks_[b];
  bank.oldest = bank.hit = -1;
  for (const Queued& q : bank.queue) {
    if (!eligible(q.write)) continue;
    // Next commands only change with the bank's row or queue, which dirty it.
    if (bank.oldest < 0) {
      bank.oldest = static_cast<int32_t>(q.slot);
      bank.sum.oldest_cmd = next_cmd(bank, q.row, q.write);
      bank.sum.oldest_age = q.age;
    }
    if (bank.hit < 0 && bank.open && bank.row == q.row) {
      bank.hit = static_cast<int32_t>(q.slot);
      bank.sum.hit_cmd = next_cmd(bank, q.row, q.write);
      bank.sum.hit_age = q.age;
    }
    if (bank.oldest >= 0 && (bank.hit >= 0 || !bank.open)) break;
  }
  bank.sum.has_hit = bank.hit >= 0;
  // A bank held for its refresh shows nothing.
  if (bank.oldest >= 0 && static_cast<int32_t>(b) != ref_bank_) views_.show(b, bank.sum, retime_ ? nullptr : &tracker_);
  else views_.hide(b);
}

// Summaries of the dirty banks, and the views' ready cycles once a command
// has issued since they were read.
void DramChannel::refresh_views() {
  dirty_.take_each([&](uint32_t b) { refresh(b); });
  if (!retime_) return;
  views_.retime(tracker_);
  retime_ = false;
}

void DramChannel::build_views(bool row_bus_taken) {
  dirty_.take_each([&](uint32_t b) { refresh(b); });
  views_.update(clk_.now(), row_bus_taken, retime_ ? &tracker_ : nullptr);
  retime_ = false;
  no_hit_ = !views_.any_hit();
}

void DramChannel::issue(uint32_t b, bool hit) {
  Bank& bank = banks_[b];
  uint32_t slot = static_cast<uint32_t>(hit ? bank.hit : bank.oldest);
  auto q = std::find_if(bank.queue.begin(), bank.queue.end(), [&](const Queued& x) { return x.slot == slot; });
  DramCmd cmd = next_cmd(bank, q->row, q->write);
  Cycle now = clk_.now();
  record(cmd, b, q->row, now);
  dirty_.set(b);
  switch (cmd) {
    case DramCmd::Act:
      bank.open = true;
      bank.row = q->row;
      q->activated = true;
      activates_.inc();
      return;
    case DramCmd::Pre:
      bank.open = false;
      precharges_.inc();
      return;
    case DramCmd::Rd:
      reads_.inc();
      if ((q->sectors & (q->sectors - 1)) == 0) {  // its last sector: the reply carries them all
        MemRequest& r = pool_[slot];               // its slot is freed below
        r.is_reply = true;
        replies_.push(std::move(r), clk_.tick_of(now + timing_.CL + timing_.burst_cycles));
      }
      break;
    case DramCmd::Wr:
      writes_.inc();
      queued_writes_--;
      break;
    case DramCmd::Ref:
      throw Error("dram: a request cannot need a refresh");
  }
  if (!q->activated) row_hits_.inc();
  q->activated = false;  // the line's further sectors find its row open
  bool is_write = cmd == DramCmd::Wr;
  if (is_write != last_col_write_ && reads_.value() + writes_.value() > 1) turnarounds_.inc();
  last_col_write_ = is_write;
  col_issued_ = true;
  busy_cycles_.inc(timing_.burst_cycles);
  --queued_;
  q->sectors &= static_cast<uint8_t>(q->sectors - 1);  // lowest first
  if (q->sectors != 0) return;
  bank.queue.erase(q);
  free_slots_.push_back(slot);
}

Tick DramChannel::next_event() const {
  Tick t = !from_l2_.empty() && has_room(from_l2_.front()) ? from_l2_.next_ready() : kNever;
  if (queued_ > 0) t = std::min(t, clk_.tick_of(next_issue_));
  // Busy channels wake for a due refresh; idle ones catch up when next ticked.
  if (queued_ > 0 && timing_.tREFI > 0) t = std::min(t, clk_.tick_of(std::max(next_ref_, next_issue_)));
  t = std::min(t, replies_.next_ready());
  return t;
}

// Queued requests, and the refresh that may hold them.
std::string DramChannel::waiting_for() const {
  if (queued_ == 0 && from_l2_.empty() && replies_.empty()) return {};
  Cycle now = clk_.now();
  std::string refresh;
  if (timing_.tREFI > 0 && timing_.per_bank_refresh && ref_bank_ >= 0)
    refresh = fmt::format("; bank {} is held for its refresh ({} banks owe one)", ref_bank_, ref_owed_count_);
  else if (timing_.tREFI > 0 && (ref_until_ > now || ref_blocked_))
    refresh = "; an all-bank refresh holds every bank";
  return fmt::format("{} reads and {} writes queued{}, {} arriving, {} read replies on their way{}", queued_ - queued_writes_,
                     queued_writes_, draining_ ? " (draining writes)" : "", from_l2_.size(), replies_.size(), refresh);
}

}  // namespace ws::timing
