#include "timing/gpu/gpu.h"

#include <algorithm>

#include "common/error.h"
#include "timing/core/sm.h"
#include "timing/dram/dram_channel.h"
#include "timing/gpu/host_memory.h"
#include "timing/mem/l2_slice.h"
#include "timing/noc/crossbar.h"

namespace ws::timing {

namespace {
const config::Param<std::string> kDescription{"gpu.description", "", "", "one-line description of the GPU preset"};
const config::Param<int64_t> kSms{"gpu.sms", 80, "SMs", "streaming multiprocessors", {1, 1024}};
const config::Param<double> kCoreMhz{"clock.core_mhz", 1132.0, "MHz", "SM clock", {1, 10000}};
const config::Param<double> kIcntMhz{"clock.icnt_mhz", 1132.0, "MHz", "interconnect clock", {1, 10000}};
const config::Param<double> kL2Mhz{"clock.l2_mhz", 1132.0, "MHz", "L2 clock", {1, 10000}};
const config::Param<double> kDramMhz{"clock.dram_mhz", 850.0, "MHz", "DRAM command clock", {1, 10000}};
const config::Param<int64_t> kLaunchLatency{"gpu.kernel_launch_latency", 5000, "core cycles",
                                            "delay from a launch made after the host synchronised with the GPU "
                                            "(the first launch, one after a synchronous copy or "
                                            "cudaDeviceSynchronize) to its first CTA dispatch",
                                            {0, 100000000}};
const config::Param<int64_t> kLaunchOverhead{"gpu.kernel_launch_overhead", 1000, "core cycles",
                                             "idle time between a kernel's end and the first CTA of the next one "
                                             "queued behind it (its launch work overlapped the running kernel)",
                                             {0, 100000000}};
// Kernel code lives in its own part of the address space, away from data
// (exec's global, shared, local and unified windows start at 0x6000'0000'0000).
const config::Param<int64_t> kMaxCycles{"gpu.max_cycles", 0, "core cycles",
                                        "stop a kernel that runs longer than this, keeping it as partial (0 = no limit)",
                                        {0, 1e15}};
const config::Param<int64_t> kProgressTimeout{
    "gpu.progress_timeout_cycles", 10'000'000, "core cycles",
    "stop a kernel with an error naming the stuck components when no instruction issues and no message crosses "
    "the interconnect for this long (0 = never)",
    {0, 1e15}};
const config::Param<int64_t> kMaxConcurrent{
    "gpu.max_concurrent_kernels", 128, "kernels",
    "kernels of different streams that may run at the same time (CUDA programming guide: 128 from compute "
    "capability 7.0, 32 on Kepler and Maxwell, 16 on Fermi); 1 runs stream work one kernel at a time",
    {1, 1024}};
const config::Param<bool> kGating{"gpu.activity_gating", true, "",
                                  "tick only components with work (false: every component on every edge; "
                                  "same results, much slower: a validation mode)"};
}  // namespace

Gpu::Gpu(const config::Config& cfg)
    : limits_(SmLimits::from(cfg)),
      core_mhz_(kCoreMhz.get(cfg)),
      launch_latency_(static_cast<Cycle>(kLaunchLatency.get(cfg))),
      launch_overhead_(static_cast<Cycle>(kLaunchOverhead.get(cfg))),
      fixed_cycles_(kernel_fixed_cycles(cfg)),
      max_cycles_(static_cast<uint64_t>(kMaxCycles.get(cfg))),
      progress_timeout_(static_cast<uint64_t>(kProgressTimeout.get(cfg))),
      projector_(cfg),
      max_concurrent_(static_cast<uint32_t>(kMaxConcurrent.get(cfg))) {
  check_host_memory(cfg);  // before building: an OOM kill would leave no message
  build_engines(cfg);
  stats::Scope root(stats_, "");
  uint32_t n_sms = static_cast<uint32_t>(kSms.get(cfg));
  std::vector<Sm*> sm_ptrs;
  for (uint32_t i = 0; i < n_sms; ++i) {
    ClockDomain& core = *cores_[group_of(i, n_sms)];
    sms_.push_back(std::make_unique<Sm>(cfg, root.sub("sm").sub(std::to_string(i)), core, static_cast<uint16_t>(i)));
    sm_ptrs.push_back(sms_.back().get());
    if (dispatch_between_windows()) sms_.back()->keep_finished();
  }
  dispatcher_ = std::make_unique<Dispatcher>(cfg, *core_, sm_ptrs);
  if (!dispatch_between_windows()) sm_engine_->add(*core_, *dispatcher_);
  copies_ = std::make_unique<CopyEngines>(cfg, root.sub("copy_engine"), *core_);
  sm_engine_->add(*core_, *copies_);
  for (uint32_t i = 0; i < n_sms; ++i) {
    uint32_t g = group_of(i, n_sms);
    sm_engines_[g]->add(*cores_[g], *sms_[i]);
    sm_engines_[g]->add(*cores_[g], sms_[i]->l1());
  }
  build_memory(cfg);
  if (windowed_) link_partitions(cfg);
}

Gpu::~Gpu() = default;

bool Gpu::memory_quiescent() const {
  if (req_net_->next_event() != kNever || reply_net_->next_event() != kNever) return false;
  for (const auto& sm : sms_)
    if (!sm->memory_idle() || sm->l1().next_event() != kNever) return false;
  for (const auto& s : slices_)
    if (s->busy()) return false;
  return true;
}

void Gpu::set_watchdog(uint64_t cycles, const std::string& param) {
  if (cycles == 0 || (max_cycles_ != 0 && max_cycles_ <= cycles)) return;
  max_cycles_ = cycles;
  max_cycles_param_ = param;
}

Cycle Gpu::core_now() const { return core_->cycle_at_or_after(now_tick()); }

// How far the engines have simulated: with partitions, the last window's end,
// which goes on while only DRAM works (core_now() stops at the last edge an
// SM, the interconnect or an L2 slice worked). For the cycle limit and the
// progress watchdog.
Cycle Gpu::reached_cycle() const {
  return windowed_ ? std::max(core_now(), core_->cycle_at_or_after(parts_->end())) : core_now();
}

// Bytes of a copy warmed at most, as a multiple of the L2's capacity: the
// copy's earlier lines would be evicted by its later ones (an LRU set that
// receives its ways' worth of later lines keeps none of them), so warming
// only the tail keeps a huge copy's cost proportional to the L2.
constexpr uint64_t kWarmCapacities = 4;

void Gpu::memcpy_htod(const ir::MemcpyHtoD& copy) {
  warm_l2(copy.dst, copy.bytes);
  if (copy.host_sync) host_sync();
}

void Gpu::warm_l2(Addr dst, uint64_t bytes) {
  // Hand each 128 B line to the slice that owns it.
  const L2AddressMap& map = slices_.front()->address_map();
  Addr end = dst + std::min(bytes, ~Addr{0} - dst);  // (a copy past 2^64 stops there)
  Addr begin = end - dst > kWarmCapacities * l2_bytes_ ? end - kWarmCapacities * l2_bytes_ : dst;
  for (Addr a = begin; a < end;) {
    Addr last = a | (kLineBytes - 1);  // the line's last byte (the line past it may wrap to 0)
    Addr stop = last < end ? last + 1 : end;
    slices_[map.slice_of(a)]->warm(a, stop - a);
    a = stop;
  }
}

Addr Gpu::code_base(const std::string& kernel_name) {
  auto [it, added] = code_regions_.try_emplace(kernel_name, static_cast<uint32_t>(code_regions_.size()));
  return code_region_base(it->second);
}

KernelResult Gpu::run_kernel(ir::KernelSource& kernel, const ProgressFn& progress) {
  if (!streams_.done()) throw Error("internal: run_kernel while work queued on streams is unfinished");
  Cycle gap = host_synced_ ? launch_latency_ : launch_overhead_;
  host_synced_ = false;
  running_.push_back(begin(kernel, gap, core_now() + gap, true));
  Running& k = *running_.back();
  begin_projection(k.result, kernel.info());
  Watch watch{0, progress_count(), k.result.start_cycle};
  // A kernel ends when its CTAs are done and its stores have reached the L2
  // (stores are not acknowledged in v1, so the LD/ST queues, L1s, crossbars
  // and L2 slices must be idle); DRAM write-backs of dirty L2 lines may still
  // be pending.
  while (!dispatcher_->done(k.ctx) || !memory_quiescent()) step(k, watch, progress);
  KernelResult r = end(k);
  running_.clear();
  return r;
}

void Gpu::begin_projection(const KernelResult& r, const ir::KernelInfo& info) {
  if (!projector_.enabled()) return;
  std::vector<Sm*> sms;
  for (auto& sm : sms_) sms.push_back(sm.get());
  projector_.begin(r.start_cycle, info.grid.count(), uint64_t{r.occupancy.ctas_per_sm} * sms_.size(), sms);
}

// Progress: warp instructions issued and messages moved by the crossbars
// (requests reaching the L2, replies reaching the SMs).
uint64_t Gpu::progress_count() const {
  uint64_t n = req_net_->packets() + reply_net_->packets();
  for (const auto& sm : sms_) n += sm->warp_insts();
  return n;
}

// A run whose engine stays busy but moves nothing (refresh starving every
// read, a component spinning) would otherwise run forever: the deadlock
// check only sees an engine with no work at all.
void Gpu::check_progress(const std::string& kernel, uint64_t& moved, Cycle& moved_at) const {
  Cycle now = reached_cycle();
  if (uint64_t n = progress_count(); n != moved || now < moved_at) {
    moved = n;
    moved_at = std::max(moved_at, now);
    return;
  }
  if (progress_timeout_ == 0 || now - moved_at <= progress_timeout_) return;
  throw Error("no progress in kernel '" + kernel + "': no instruction issued and no message crossed the "
              "interconnect from core cycle " + std::to_string(moved_at) + " to " + std::to_string(now) +
              " (gpu.progress_timeout_cycles = " + std::to_string(progress_timeout_) +
              "; infeasible timing parameters?)" + stuck_report());
}

// What each component holding work waits for, a few of each kind.
std::string Gpu::stuck_report() const {
  std::string out;
  auto list = [&](const std::string& kind, auto& parts, auto describe) {
    size_t shown = 0, more = 0;
    for (size_t i = 0; i < parts.size(); ++i) {
      std::string what = describe(*parts[i]);
      if (what.empty()) continue;
      if (shown++ < 3) out += "\n  " + kind + " " + std::to_string(i) + ": " + what;
      else ++more;
    }
    if (more) out += "\n  ... and " + std::to_string(more) + " more " + kind + "s like these";
  };
  list("sm", sms_, [](const Sm& sm) { return sm.waiting_for(); });
  list("l1d", sms_, [](Sm& sm) { return sm.l1().waiting_for(); });
  if (std::string w = req_net_->waiting_for(); !w.empty()) out += "\n  icnt.req: " + w;
  if (std::string w = reply_net_->waiting_for(); !w.empty()) out += "\n  icnt.reply: " + w;
  list("l2 slice", slices_, [](const L2Slice& s) { return s.waiting_for(); });
  list("dram channel", channels_, [](const DramChannel& c) { return c.waiting_for(); });
  return out.empty() ? out : "; waiting:" + out;
}

void Gpu::finish_result(Running& k) const {
  KernelResult& r = k.result;
  Cycle end = core_now();
  r.cycles = end > r.start_cycle ? end - r.start_cycle : 0;  // (a kernel without CTAs ends at once)
  for (const auto& c : channels_) c->settle_counters(mem_engine_->now());
  r.after = stats_.snapshot();
  SmWork w = k.ctx.total();
  r.own = KernelResult::Own{w.warp_insts, w.thread_insts, w.ctas_done, w.stalls};
}

// The counters so far describe the part of the kernel that ran (residency
// counters as of each SM's last event); SMs still hold its warps, so the GPU
// cannot run another kernel after this.
void Gpu::stop_kernel(Running& k, const std::string& why) {
  finish_result(k);
  k.result.complete = false;
  throw KernelStopped(why, k.result);
}

}  // namespace ws::timing

namespace ws::timing {

void Gpu::build_memory(const config::Config& cfg) {
  l2_bytes_ = static_cast<uint64_t>(cfg.get<int64_t>("l2.size_kb")) * 1024;
  stats::Scope root(stats_, "");
  L2AddressMap map(cfg);
  uint32_t n_sms = num_sms(), n_slices = map.num_slices();
  req_net_ = std::make_unique<Crossbar>(cfg, root.sub("icnt.req"), *icnt_, n_sms, n_slices,
                                        [map_ptr = std::make_shared<L2AddressMap>(cfg)](const MemRequest& m) {
                                          return map_ptr->slice_of(m.addr);
                                        });
  // Each SM has a reply output per client: its L1D's, its instruction fetch
  // unit's and its constant cache's.
  reply_net_ = std::make_unique<Crossbar>(cfg, root.sub("icnt.reply"), *icnt_, n_slices, kMemClients * n_sms,
                                          [](const MemRequest& m) {
                                            return kMemClients * uint32_t{m.src_sm} + static_cast<uint32_t>(m.client);
                                          });
  uint32_t n_channels = n_slices / map.slices_per_channel();
  for (uint32_t c = 0; c < n_channels; ++c)
    channels_.push_back(std::make_unique<DramChannel>(cfg, root.sub("dram").sub(std::to_string(c)), *dram_, c));
  for (uint32_t s = 0; s < n_slices; ++s) {
    slices_.push_back(std::make_unique<L2Slice>(cfg, root.sub("l2").sub(std::to_string(s)), *l2_,
                                                static_cast<uint16_t>(s)));
    L2Slice& slice = *slices_.back();
    DramChannel& ch = *channels_[map.channel_of_slice(s)];
    slice.connect_reply(&reply_net_->input(s));
    slice.connect_dram(&ch.from_l2());
    ch.connect_reply(static_cast<uint16_t>(s), &slice.from_dram());
    req_net_->connect_output(s, &slice.from_icnt());
  }
  for (uint32_t i = 0; i < n_sms; ++i) {
    sms_[i]->l1().connect(&req_net_->input(i));
    uint32_t out = kMemClients * i;
    reply_net_->connect_output(out + static_cast<uint32_t>(MemClient::Data), &sms_[i]->l1().from_icnt());
    sms_[i]->fetch_unit().connect(&req_net_->input(i), sms_[i].get());
    reply_net_->connect_output(out + static_cast<uint32_t>(MemClient::Inst), &sms_[i]->fetch_unit().from_l2());
    sms_[i]->const_cache().connect(&req_net_->input(i), sms_[i].get());
    reply_net_->connect_output(out + static_cast<uint32_t>(MemClient::Const), &sms_[i]->const_cache().from_l2());
  }
  mem_engine_->add(*icnt_, *req_net_);
  mem_engine_->add(*icnt_, *reply_net_);
  for (auto& s : slices_) mem_engine_->add(*l2_, *s);
  for (auto& c : channels_) mem_engine_->add(*dram_, *c);
}

}  // namespace ws::timing
