#include "timing/dram/dram_channel.h"

#include "common/error.h"
#include "timing/mem/index_hash.h"

namespace ws::timing {
namespace {

using config::Param;
const Param<int64_t> kQueue{"dram.queue_size", 64, "requests", "channel request queue (reads and writes)", {1, 65536}};
const Param<int64_t> kInput{"dram.input_queue", 8, "requests", "requests buffered from the L2 slices", {1, 65536}};
const Param<std::string> kScheduler{"dram.scheduler", "frfcfs", "", "request scheduler (fcfs, frfcfs)"};
const Param<int64_t> kWriteHigh{"dram.write_high", 32, "requests", "queued writes that start a write drain",
                                {1, 65536}};
const Param<int64_t> kWriteLow{"dram.write_low", 8, "requests", "queued writes that end a write drain", {0, 65536}};
const Param<int64_t> kRowBytes{"dram.row_bytes", 2048, "bytes", "row (page) size per bank", {128, 1 << 20}};
const Param<bool> kDualBus{"dram.dual_command_bus", true, "",
                           "separate row and column command buses (HBM): an ACT/PRE and a RD/WR may issue in one cycle"};
const Param<bool> kBankXor{"dram.bank_xor", true, "", "XOR low row bits into the bank index"};

uint32_t u32(int64_t v) { return static_cast<uint32_t>(v); }

}  // namespace

DramChannel::DramChannel(const config::Config& cfg, stats::Scope scope, const ClockDomain& dram_clk,
                         uint32_t channel_id)
    : clk_(dram_clk),
      id_(channel_id),
      timing_(dram_timing_params(cfg)),
      tracker_(dram_timing_table(timing_), timing_.banks, timing_.bank_groups),
      scheduler_(DramSchedulerRegistry::instance().create(kScheduler.name(), kScheduler.get(cfg))),
      queue_cap_(u32(kQueue.get(cfg))),
      write_high_(u32(kWriteHigh.get(cfg))),
      write_low_(u32(kWriteLow.get(cfg))),
      row_lines_bits_(log2_exact(static_cast<uint64_t>(kRowBytes.get(cfg)) / 128)),
      // The L2 topology decides which line-number bits already chose the channel.
      total_slices_(u32(cfg.get<int64_t>("l2.channels") * cfg.get<int64_t>("l2.slices_per_channel"))),
      per_channel_(u32(cfg.get<int64_t>("l2.slices_per_channel"))),
      bank_xor_(kBankXor.get(cfg)),
      dual_bus_(kDualBus.get(cfg)),
      from_l2_(static_cast<size_t>(kInput.get(cfg))),
      banks_(timing_.banks),
      hit_banks_(timing_.banks, 0),
      reads_(scope.counter("reads", "read commands (32 B sectors)")),
      writes_(scope.counter("writes", "write commands (32 B sectors)")),
      activates_(scope.counter("activates", "row activations")),
      precharges_(scope.counter("precharges", "row precharges")),
      row_hits_(scope.counter("row_hits", "column commands that found their row already open")),
      busy_cycles_(scope.counter("busy_cycles", "cycles the data bus carried data")) {
  if (!is_pow2(static_cast<uint64_t>(kRowBytes.get(cfg))))
    throw ConfigError(kRowBytes.name(), "must be a power of two");
  if (bank_xor_ && !is_pow2(timing_.banks)) throw ConfigError(kBankXor.name(), "needs a power-of-two bank count");
  if (write_low_ >= write_high_) throw ConfigError(kWriteLow.name(), "must be below dram.write_high");
}

void DramChannel::connect_reply(uint16_t slice_id, Port<MemRequest>* to_slice) {
  if (reply_to_.size() <= slice_id) reply_to_.resize(size_t{slice_id} + 1, nullptr);
  reply_to_[slice_id] = to_slice;
}

DramLocation DramChannel::locate(const MemRequest& r) const {
  uint64_t line = r.addr / 128;
  uint64_t local = (line / total_slices_) * per_channel_ + r.src_slice % per_channel_;
  uint64_t rest = local >> row_lines_bits_;
  DramLocation loc;
  loc.bank = static_cast<uint32_t>(rest % timing_.banks);
  loc.row = rest / timing_.banks;
  if (bank_xor_) loc.bank ^= static_cast<uint32_t>(loc.row % timing_.banks);
  return loc;
}

void DramChannel::tick() {
  enqueue_arrivals();
  deliver_replies();
  update_drain_mode();
  if (queue_.empty()) return;
  Cycle now = clk_.now();
  std::vector<DramCandidate>& cands = candidates();
  bool issued = false;
  if (dual_bus_) {
    issued = issue_dual(cands);
  } else if (int pick = scheduler_->pick(cands); pick >= 0) {
    issue(static_cast<size_t>(pick));
    issued = true;
  }
  if (issued) {
    next_issue_ = now + 1;
    return;
  }
  // Nothing can issue: sleep until the first command's timing constraint
  // expires (arrivals wake the channel through its port).
  Cycle first = ~Cycle{0};
  for (const Entry& e : queue_) first = std::min(first, tracker_.earliest(next_cmd(e), e.loc.bank));
  next_issue_ = std::max(first, now + 1);
}

// Dual command bus: a row command (ACT/PRE) and a column command (RD/WR) may
// issue in the same cycle. The row pick goes first; its bank is then left out
// of the column pick, whose other candidates it cannot affect (no timing row
// links a row command in one bank to a column command in another).
bool DramChannel::issue_dual(std::vector<DramCandidate>& cands) {
  saved_issuable_.resize(cands.size());
  for (size_t i = 0; i < cands.size(); ++i) {
    saved_issuable_[i] = cands[i].issuable;
    cands[i].issuable = cands[i].issuable && !cands[i].row_hit;
  }
  int row = scheduler_->pick(cands);
  uint32_t row_bank = ~0u;
  if (row >= 0) {
    row_bank = queue_[static_cast<size_t>(row)].loc.bank;
    issue(static_cast<size_t>(row));  // the request stays queued for its column command
  }
  for (size_t i = 0; i < cands.size(); ++i)
    cands[i].issuable = saved_issuable_[i] && cands[i].row_hit && queue_[i].loc.bank != row_bank;
  int col = scheduler_->pick(cands);
  if (col >= 0) issue(static_cast<size_t>(col));
  return row >= 0 || col >= 0;
}

void DramChannel::enqueue_arrivals() {
  Tick now = clk_.now_tick();
  while (from_l2_.ready(now) && queue_.size() < queue_cap_) {
    const MemRequest& r = from_l2_.front();
    queue_.push_back(Entry{r, locate(r), false});
    queued_writes_ += r.type == AccessType::Write;
    from_l2_.pop();
  }
}

void DramChannel::deliver_replies() {
  while (!replies_.empty() && replies_.front().at <= clk_.now()) {
    const MemRequest& r = replies_.front().req;
    Port<MemRequest>* to = r.src_slice < reply_to_.size() ? reply_to_[r.src_slice] : nullptr;
    if (!to) throw Error("dram channel " + std::to_string(id_) + ": no reply port for slice " +
                         std::to_string(r.src_slice));
    if (!to->can_push(clk_.now_tick())) return;  // the slice is full: hold the data (in order)
    to->push(r, clk_.tick_of(replies_.front().at));
    replies_.pop_front();
  }
}

// Writes wait until enough pile up, then drain in a batch, to amortize the
// read/write bus turnarounds.
void DramChannel::update_drain_mode() {
  if (!draining_ && queued_writes_ >= write_high_) draining_ = true;
  if (draining_ && queued_writes_ <= write_low_) draining_ = false;
}

DramCmd DramChannel::next_cmd(const Entry& e) const {
  const Bank& b = banks_[e.loc.bank];
  if (!b.open) return DramCmd::Act;
  if (b.row != e.loc.row) return DramCmd::Pre;
  return e.req.type == AccessType::Write ? DramCmd::Wr : DramCmd::Rd;
}

std::vector<DramCandidate>& DramChannel::candidates() {
  bool reads_waiting = queued_writes_ < queue_.size();
  size_t n = queue_.size();
  cands_.resize(n);
  std::fill(hit_banks_.begin(), hit_banks_.end(), 0);
  Cycle now = clk_.now();
  for (size_t i = 0; i < n; ++i) {
    const Entry& e = queue_[i];
    DramCandidate& c = cands_[i];
    bool is_write = e.req.type == AccessType::Write;
    c.eligible = draining_ ? is_write : (!is_write || !reads_waiting);
    DramCmd cmd = next_cmd(e);
    c.row_hit = cmd == DramCmd::Rd || cmd == DramCmd::Wr;
    c.issuable = tracker_.earliest(cmd, e.loc.bank) <= now;
    hit_banks_[e.loc.bank] |= static_cast<uint8_t>(c.eligible & c.row_hit);
  }
  // A precharge would strand the eligible requests that hit the open row.
  for (size_t i = 0; i < n; ++i) cands_[i].closes_hit_row = !cands_[i].row_hit && hit_banks_[queue_[i].loc.bank];
  return cands_;
}

void DramChannel::issue(size_t index) {
  Entry& e = queue_[index];
  DramCmd cmd = next_cmd(e);
  Cycle now = clk_.now();
  tracker_.issued(cmd, e.loc.bank, now);
  if (record_) log_.push_back(DramCommandRecord{now, cmd, e.loc.bank, e.loc.row});
  Bank& bank = banks_[e.loc.bank];
  switch (cmd) {
    case DramCmd::Act:
      bank = Bank{true, e.loc.row};
      e.activated = true;
      activates_.inc();
      return;
    case DramCmd::Pre:
      bank.open = false;
      precharges_.inc();
      return;
    case DramCmd::Rd:
      reads_.inc();
      replies_.push_back(Reply{now + timing_.CL + timing_.burst_cycles, e.req});
      replies_.back().req.is_reply = true;
      break;
    case DramCmd::Wr:
      writes_.inc();
      queued_writes_--;
      break;
  }
  if (!e.activated) row_hits_.inc();
  busy_cycles_.inc(timing_.burst_cycles);
  queue_.erase(queue_.begin() + static_cast<ptrdiff_t>(index));
}

Tick DramChannel::next_event() const {
  Tick t = queue_.size() < queue_cap_ ? from_l2_.next_ready() : kNever;
  if (!queue_.empty()) t = std::min(t, clk_.tick_of(next_issue_));
  if (!replies_.empty()) t = std::min(t, clk_.tick_of(replies_.front().at));
  return t;
}

}  // namespace ws::timing
