#include "timing/abstract/abstract_gpu.h"

#include <algorithm>
#include <bit>

#include "common/error.h"

namespace ws::timing::abstract {

namespace {
// The detailed model's code layout (gpu.cpp): one 1 GiB region per kernel
// name, away from data, so that both models give a kernel the same addresses.
// Events between polls of the stop check, the progress callback and the cycle limit.
constexpr uint64_t kPollEvery = 0x3fff;
// As the detailed model: warm at most this many L2 capacities of a copy's tail.
constexpr uint64_t kWarmCapacities = 4;

Cycle cycles_of(const config::Config& cfg, const char* name) { return static_cast<Cycle>(cfg.get<int64_t>(name)); }
}  // namespace

AbstractGpu::AbstractGpu(const config::Config& cfg)
    : limits_(SmLimits::from(cfg)),
      core_mhz_(cfg.get<double>("clock.core_mhz")),
      launch_latency_(cycles_of(cfg, "gpu.kernel_launch_latency")),
      launch_overhead_(cycles_of(cfg, "gpu.kernel_launch_overhead")),
      fixed_cycles_(kernel_fixed_cycles(cfg)),
      max_cycles_(cycles_of(cfg, "gpu.max_cycles")),
      restart_placement_(cfg.get<std::string>("gpu.cta_placement") == "restart") {
  if (cfg.get<bool>("sampling.project_kernels"))
    throw ConfigError("sampling.project_kernels", "intra-kernel projection needs gpu.model = detailed; the abstract "
                                                  "model runs every CTA (docs/abstract-model.md)");
  auto n_sms = static_cast<uint32_t>(cfg.get<int64_t>("gpu.sms"));
  stats::Scope root(stats_, "");
  mem_ = std::make_unique<MemoryModel>(cfg, stats_, n_sms);
  blocks_ = std::make_unique<BlockTable>(cfg);
  for (uint32_t i = 0; i < n_sms; ++i)
    sms_.push_back(std::make_unique<AbstractSm>(cfg, root.sub("sm").sub(std::to_string(i)), i, *mem_, *blocks_));
  subcores_ = sms_.front()->subcores();
  scheduled_.assign(size_t{n_sms} * subcores_, kNoEvent);
}

AbstractGpu::~AbstractGpu() = default;

void AbstractGpu::set_watchdog(uint64_t cycles, const std::string& param) {
  if (cycles == 0 || (max_cycles_ != 0 && max_cycles_ <= cycles)) return;
  max_cycles_ = cycles;
  max_cycles_param_ = param;
}

void AbstractGpu::memcpy_htod(const ir::MemcpyHtoD& copy) {
  Addr end = copy.dst + std::min(copy.bytes, ~Addr{0} - copy.dst);
  uint64_t keep = kWarmCapacities * mem_->l2_bytes();
  mem_->warm(end - copy.dst > keep ? end - keep : copy.dst, end);
  if (copy.host_sync) host_sync();
}

Addr AbstractGpu::code_base(const std::string& kernel_name) {
  auto [it, added] = code_regions_.try_emplace(kernel_name, static_cast<uint32_t>(code_regions_.size()));
  return code_region_base(it->second);
}

void AbstractGpu::schedule(uint32_t sm, uint32_t s) {
  uint32_t sub = sm * subcores_ + s;
  Cycle at = sms_[sm]->next_time(s);
  if (at == kNoEvent || at == scheduled_[sub]) return;
  // An earlier or later time replaces the queued one; the old entry is
  // skipped when it comes up (its time no longer matches).
  scheduled_[sub] = at;
  events_.push(Event{at, sub});
}

void AbstractGpu::dispatch(uint32_t sm, Cycle now) {
  AbstractSm& s = *sms_[sm];
  while (next_cta_ && s.can_launch()) {
    s.launch(std::move(next_cta_), now);
    next_cta_ = kernel_->next_cta();
    rr_ = (sm + 1) % sms_.size();
  }
}

// As the detailed dispatcher: round robin, one CTA per SM per cycle, until
// every SM is full or the grid is handed out, starting at SM 0
// (gpu.cta_placement = restart) or after the SM that got the previous CTA
// (continue: a small grid lands on other SMs than the kernel before, whose
// instruction caches are cold).
void AbstractGpu::first_wave(Cycle at) {
  const size_t n = sms_.size();
  if (restart_placement_) rr_ = 0;
  for (Cycle t = at; next_cta_; ++t) {
    bool placed = false;
    for (size_t j = 0, start = rr_; j < n && next_cta_; ++j) {
      size_t i = (start + j) % n;
      if (!sms_[i]->can_launch()) continue;
      sms_[i]->launch(std::move(next_cta_), t);
      next_cta_ = kernel_->next_cta();
      rr_ = (i + 1) % n;
      placed = true;
    }
    if (!placed) break;
  }
  for (uint32_t i = 0; i < sms_.size(); ++i)
    for (uint32_t s = 0; s < subcores_; ++s) schedule(i, s);
  for (auto& sm : sms_) sm->take_changed();
}

void AbstractGpu::after_step(uint32_t sm, Cycle now) {
  AbstractSm& s = *sms_[sm];
  if (s.take_freed()) {
    last_cta_end_ = std::max(last_cta_end_, now);
    dispatch(sm, now);
  }
  uint64_t changed = s.take_changed();
  for (uint64_t m = changed; m; m &= m - 1) schedule(sm, static_cast<uint32_t>(std::countr_zero(m)));
}

KernelResult AbstractGpu::run_kernel(ir::KernelSource& kernel, const ProgressFn& progress) {
  const ir::KernelInfo& info = kernel.info();
  KernelResult r = start_result(info, limits_);
  Addr code = code_base(info.name);
  for (auto& sm : sms_) sm->begin_kernel(kernel.unit_names(), r.occupancy.ctas_per_sm, code);
  mem_->set_l1_bytes(uint64_t{r.occupancy.l1_kb} * 1024);
  r.before = stats_.snapshot();
  r.launch_gap = host_synced_ ? launch_latency_ : launch_overhead_;
  host_synced_ = false;
  r.start_cycle = now_ + r.launch_gap;
  kernel_ = &kernel;
  next_cta_ = kernel.next_cta();
  Cycle first = r.start_cycle + fixed_cycles_;
  now_ = first;
  last_cta_end_ = first;
  first_wave(first);
  while (!events_.empty()) {
    Event e = events_.top();
    events_.pop();
    if (scheduled_[e.sub] != e.at) continue;  // replaced by a later schedule()
    scheduled_[e.sub] = kNoEvent;
    now_ = e.at;
    uint32_t sm = e.sub / subcores_, s = e.sub % subcores_;
    sms_[sm]->step(s, now_);
    schedule(sm, s);
    after_step(sm, now_);
    if ((++steps_ & kPollEvery) == 0) check_limits(r, progress);
  }
  if (next_cta_) throw Error("internal: abstract model ran out of events with CTAs left in kernel '" + info.name + "'");
  Cycle end = std::max({last_cta_end_, mem_->stores_landed(), first});
  for (auto& sm : sms_) sm->account(end);
  finish_result(r, end);
  blocks_->save();
  return r;
}

void AbstractGpu::check_limits(KernelResult& r, const ProgressFn& progress) {
  Cycle elapsed = now_ > r.start_cycle ? now_ - r.start_cycle : 0;
  if (max_cycles_ && elapsed > max_cycles_)
    stop_kernel(r, "kernel '" + r.name + "' exceeded " + max_cycles_param_ + " = " + std::to_string(max_cycles_) +
                       " (its partial results are kept)");
  if (progress) progress(elapsed);
  if (stop_check_)
    if (std::string why = stop_check_(); !why.empty()) stop_kernel(r, why + " in kernel '" + r.name + "'");
}

void AbstractGpu::finish_result(KernelResult& r, Cycle end) {
  now_ = std::max(now_, end);
  r.cycles = end > r.start_cycle ? end - r.start_cycle : 0;
  r.after = stats_.snapshot();
}

// As the detailed model: the model is left inside the kernel; run nothing more on it.
void AbstractGpu::stop_kernel(KernelResult& r, const std::string& why) {
  for (auto& sm : sms_) sm->account(now_);
  finish_result(r, now_);
  r.complete = false;
  throw KernelStopped(why, std::move(r));
}

}  // namespace ws::timing::abstract
