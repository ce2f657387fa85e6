#include "timing/abstract/dram_model.h"

#include <algorithm>
#include <cmath>

namespace ws::timing::abstract {

namespace {
int64_t i64(const config::Config& cfg, const char* name) { return cfg.get<int64_t>(name); }
}  // namespace

DramModel::DramModel(const config::Config& cfg, stats::Registry& reg, uint32_t slices, uint32_t per_channel)
    : p_(dram_timing_params(cfg)),
      map_(cfg, p_.banks),
      slices_(slices),
      per_channel_(per_channel),
      write_high_(static_cast<uint32_t>(i64(cfg, "dram.write_high"))),
      write_low_(static_cast<uint32_t>(i64(cfg, "dram.write_low"))) {
  double core = cfg.get<double>("clock.core_mhz"), dram = cfg.get<double>("clock.dram_mhz");
  per_dram_ = core / dram;
  // The slice-to-channel latency is counted in L2 cycles (the slice holds
  // the request that long before the channel sees it).
  path_ = static_cast<double>(i64(cfg, "l2.dram_latency")) * core / cfg.get<double>("clock.l2_mhz") / per_dram_;
  refresh_every_ = p_.tREFI;
  refresh_len_ = p_.tRP + (p_.per_bank_refresh ? p_.tRFCpb : p_.tRFC);
  uint32_t n = slices / per_channel;
  channels_.resize(n);
  stats::Scope root(reg, "");
  // As the detailed channels: the first refresh is staggered over the channels.
  double interval = p_.per_bank_refresh ? static_cast<double>(p_.tREFI / p_.banks) : p_.tREFI;
  for (uint32_t i = 0; i < n; ++i) {
    Channel& c = channels_[i];
    c.banks.resize(p_.banks);
    c.refresh_phase = interval + std::floor(interval * i / n);
    stats::Scope s = root.sub("dram").sub(std::to_string(i));
    c.reads = &s.counter("reads", "read commands (32 B sectors)");
    c.writes_ctr = &s.counter("writes", "write commands (32 B sectors)");
    c.row_hits = &s.counter("row_hits", "column commands that found their row open");
    c.activates = &s.counter("activates", "row activations");
  }
}

DramModel::Place DramModel::locate(uint32_t slice, Addr line) const {
  // The detailed channel's channel-local line: the line number without the
  // slice bits, the sub-partition as its lowest digit.
  uint64_t local = (line / kLineBytes / slices_) * per_channel_ + slice % per_channel_;
  DramLocation l = map_.locate(local);
  return Place{slice / per_channel_, l.bank, l.row};
}

// Refresh: bank b (or, with all-bank refresh, every bank) is away for
// refresh_len_ at the start of each tREFI round; a bank that went through a
// refresh lost its open row (refresh needs every row precharged).
double DramModel::after_refresh(const Channel& c, uint32_t b, Bank& k, double t) const {
  if (p_.tREFI == 0) return t;
  double first = c.refresh_phase + (p_.per_bank_refresh ? std::floor(double(b) * p_.tREFI / p_.banks) : 0.0);
  if (t < first) return t;
  auto round = static_cast<int64_t>((t - first) / refresh_every_);
  if (round > k.refresh_round) {
    k.open = false;
    k.refresh_round = round;
  }
  double start = first + static_cast<double>(round) * refresh_every_;
  return std::max(t, start + refresh_len_);
}

// A row miss: precharge once the open row allows it (tRAS, tRTP, write
// recovery), activate tRP later, no sooner than tRC after the bank's last
// ACT, tRRD (and the ACT's command-bus cycles) after the channel's last and
// tFAW after the fourth-last.
double DramModel::activate(Channel& c, Bank& k, double t) {
  double act = k.open ? std::max(t, k.pre_free) + p_.tRP : t;
  act = std::max({act, k.act + p_.tRC, c.act_free});
  if (p_.tFAW > 0) act = std::max(act, c.acts[c.acts_next] + p_.tFAW);
  c.acts[c.acts_next] = act;
  c.acts_next = (c.acts_next + 1) % c.acts.size();
  c.act_free = act + std::max(p_.tRRD, p_.act_cycles);
  k.act = act;
  k.open = true;
  k.pre_free = act + p_.tRAS;
  k.col_free = act + p_.tRCD;
  c.activates->inc();
  return act;
}

double DramModel::column(Channel& c, uint32_t b, uint64_t row, double t, uint32_t sectors, bool write) {
  Bank& k = c.banks[b];
  t = after_refresh(c, b, k, t);
  bool hit = k.open && k.row == row;
  if (!hit) activate(c, k, t);
  k.row = row;
  c.row_hits->inc(hit ? sectors : sectors - 1);
  // One column command per sector; in one bank (so one bank group) they
  // are tCCDL apart, and a burst keeps the bus at least that long.
  double step = std::max(p_.tCCDL, p_.burst_cycles);
  double col = std::max(t, k.col_free);
  double last = col + (sectors - 1) * step;
  k.col_free = last + step;
  k.pre_free = std::max(k.pre_free, write ? last + p_.WL + p_.burst_cycles + p_.tWR : last + p_.tRTP);
  return col;
}

// The data bus as a fluid queue: `sectors` bursts from `from` or when the
// bus frees, whichever is later; an all-bank refresh window takes the bus.
double DramModel::bus(Channel& c, double from, uint32_t sectors) {
  double start = std::max(c.bus_free, from);
  if (p_.tREFI > 0 && !p_.per_bank_refresh && start >= c.refresh_phase) {
    double round = std::floor((start - c.refresh_phase) / refresh_every_);
    double window = c.refresh_phase + round * refresh_every_;
    if (start < window + refresh_len_) start = window + refresh_len_;
  }
  c.bus_free = start + sectors * double(p_.burst_cycles);
  return start;
}

double DramModel::read(uint32_t slice, Addr line, uint32_t sectors, double at) {
  double t = at / per_dram_ + path_;
  Place pl = locate(slice, line);
  Channel& c = channels_[pl.channel];
  c.reads->inc(sectors);
  double col = column(c, pl.bank, pl.row, t, sectors, false);
  double step = std::max(p_.tCCDL, p_.burst_cycles);
  double start = bus(c, std::max(t + p_.CL, c.reads_from), sectors);
  double end = std::max(start + sectors * double(p_.burst_cycles),
                        col + (sectors - 1) * step + p_.CL + p_.burst_cycles);
  c.reads_done = std::max(c.reads_done, end);
  c.last_write = false;
  return end * per_dram_;
}

void DramModel::write(uint32_t slice, Addr line, uint32_t sectors, double at) {
  double t = at / per_dram_ + path_;
  Place pl = locate(slice, line);
  Channel& c = channels_[pl.channel];
  c.writes_ctr->inc(sectors);
  c.writes.push_back(Pending{pl.bank, pl.row, sectors});
  c.queued_writes += sectors;
  uint32_t queued = c.queued_writes;
  // The detailed controller serves writes at once when no read waits for
  // its column command (the last read's command issued CL + a burst before
  // its data ends), and otherwise holds them until write_high are queued,
  // then drains down to write_low.
  bool no_read_waits = c.reads_done - p_.CL - p_.burst_cycles <= t;
  if (no_read_waits) drain(c, queued, t);
  else if (queued >= write_high_) drain(c, queued - write_low_, t);
}

// Drains the oldest writes, at least `n` sectors, starting at `t`. The bus
// turns from reads to writes after the last read's data (CL + burst + 1 -
// WL between the commands: one idle bus cycle with HBM's timing) and back to
// reads tWTR after the last write's data, whose read data then comes CL
// later.
void DramModel::drain(Channel& c, size_t n, double t) {
  double step = std::max(p_.tCCDL, p_.burst_cycles);
  double rd_to_wr = std::max<double>(1, double(p_.CL) + p_.burst_cycles + 1 - p_.WL);
  double first = c.last_write ? t : std::max(t, c.reads_done - p_.CL - p_.burst_cycles + rd_to_wr + p_.WL);
  double end = first;
  size_t taken = 0, drained = 0;
  for (; taken < c.writes.size() && drained < n; ++taken) {
    const Pending& w = c.writes[taken];
    double col = column(c, w.bank, w.row, t, w.sectors, true);
    double start = bus(c, std::max(first, t + p_.WL), w.sectors);
    end = std::max({end, start + w.sectors * double(p_.burst_cycles),
                    col + (w.sectors - 1) * step + p_.WL + p_.burst_cycles});
    drained += w.sectors;
  }
  c.queued_writes -= static_cast<uint32_t>(drained);
  c.writes.erase(c.writes.begin(), c.writes.begin() + static_cast<std::ptrdiff_t>(taken));
  c.last_write = true;
  c.reads_from = std::max(c.reads_from, end + p_.tWTR + p_.CL);
}

}  // namespace ws::timing::abstract
