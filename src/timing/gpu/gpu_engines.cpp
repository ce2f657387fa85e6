// The GPU's engines: one, or partitions (groups of SMs, the memory system)
// advanced window by window on several threads (docs/parallel.md).
#include <algorithm>
#include <cmath>

#include "timing/core/sm.h"
#include "timing/gpu/gpu.h"
#include "timing/noc/crossbar.h"

namespace ws::timing {
namespace {

using config::Param;
const Param<std::string> kPartitions{
    "gpu.partitions", "sm-memory", "",
    "how the model is split for parallel simulation: sm-memory (the SMs, in gpu.sm_groups partitions, and the "
    "memory system from the crossbars down, meeting at the crossbars' SM-side links with back-pressure seen up to "
    "a window late), or one (a single engine, one thread); results do not depend on gpu.threads (docs/parallel.md)"};
const Param<int64_t> kThreads{"gpu.threads", 0, "threads",
                              "host threads that run the partitions (gpu.partitions), at most one per partition; "
                              "0: the CPUs this process may run on; results do not depend on it",
                              {0, 256}};
const Param<int64_t> kSmGroups{
    "gpu.sm_groups", 0, "partitions",
    "with gpu.partitions = sm-memory: the SMs in this many partitions of consecutive SMs (so that more than two "
    "threads have work; 0: two, or one on a one-SM GPU); with more than one, the dispatcher plans each window's "
    "CTAs before it, from the room the SMs have at its start (docs/parallel.md)",
    {0, 1024}};
const Param<int64_t> kInputLatency{
    "icnt.input_latency", 8, "cycles",
    "with gpu.partitions = sm-memory: cycles of icnt.latency spent on the wire from an SM into the request "
    "crossbar; the lookahead window between the partitions",
    {1, 100000}};

bool windowed_of(const config::Config& cfg) {
  std::string layout = kPartitions.get(cfg);
  if (layout == "one") return false;
  if (layout == "sm-memory") return true;
  throw ConfigError(kPartitions.name(), "unknown choice '" + layout + "' (known: one, sm-memory)");
}

}  // namespace

void Gpu::build_engines(const config::Config& cfg) {
  windowed_ = windowed_of(cfg);
  int64_t threads = kThreads.get(cfg);
  if (!windowed_ && threads > 1)
    throw ConfigError(kThreads.name(), "more than one thread needs a split model: leave gpu.partitions at "
                                       "sm-memory (docs/parallel.md)");
  int64_t sms = cfg.get<int64_t>("gpu.sms");
  auto groups = static_cast<uint32_t>(kSmGroups.get(cfg));
  if (!windowed_ && groups > 1)
    throw ConfigError(kSmGroups.name(), "SM groups are partitions: they need gpu.partitions = sm-memory");
  if (groups > sms)
    throw ConfigError(kSmGroups.name(), std::to_string(groups) + " groups but only " + std::to_string(sms) +
                                            " SMs (gpu.sms)");
  if (groups == 0) groups = windowed_ && sms >= 2 ? 2 : 1;
  if (threads == 0) threads = windowed_ ? Partitions::host_cpus() : 1;
  ClockPeriod icnt = ClockPeriod::from_mhz(cfg.get<double>("clock.icnt_mhz"));
  Tick window = windowed_ ? static_cast<Tick>(kInputLatency.get(cfg)) * icnt.ps : 1;
  parts_ = std::make_unique<Partitions>(window, static_cast<unsigned>(threads));
  // With one engine the domains are visited in this order at a common edge.
  ClockPeriod core = ClockPeriod::from_mhz(cfg.get<double>("clock.core_mhz"));
  for (uint32_t g = 0; g < groups; ++g) {
    sm_engines_.push_back(&parts_->add());
    cores_.push_back(&sm_engines_.back()->add_domain("core", core));
  }
  sm_engine_ = sm_engines_.front();
  core_ = cores_.front();
  mem_engine_ = windowed_ ? &parts_->add() : sm_engine_;
  icnt_ = &mem_engine_->add_domain("icnt", icnt);
  l2_ = &mem_engine_->add_domain("l2", ClockPeriod::from_mhz(cfg.get<double>("clock.l2_mhz")));
  dram_ = &mem_engine_->add_domain("dram", ClockPeriod::from_mhz(cfg.get<double>("clock.dram_mhz")));
  bool gating = cfg.get<bool>("gpu.activity_gating");
  for (size_t i = 0; i < parts_->size(); ++i) parts_->partition(i).set_gating(gating);
}

// The links between the partitions: each SM's port into the request
// crossbar (its L1D, fetch unit and constant cache send through it), which
// now carries icnt.input_latency of the crossbar's latency, and the SM's
// three reply ports. A remote port's producer judges room as for a local
// port, from what it sent, and learns of the receiver's pops at the end of
// the window they happen in; meanwhile it allows for one pop per receiver
// cycle of a window (the crossbar takes one message per input a cycle, an
// L1 one fill a cycle).
void Gpu::link_partitions(const config::Config& cfg) {
  auto cycles = static_cast<uint32_t>(kInputLatency.get(cfg));
  req_net_->move_latency_to_inputs(cycles);
  Tick window = parts_->window();
  auto cycles_of = [window](const ClockDomain& d) { return static_cast<size_t>(d.cycle_at_or_after(window)); };
  size_t icnt_slack = cycles_of(*icnt_), core_slack = cycles_of(*core_);
  for (uint32_t i = 0; i < sms_.size(); ++i) {
    parts_->link(req_net_->input(i), window, icnt_slack);
    Sm& sm = *sms_[i];
    for (Port<MemRequest>* p : {&sm.l1().from_icnt(), &sm.fetch_unit().from_l2(), &sm.const_cache().from_l2()})
      parts_->link(*p, 0, core_slack);
  }
}

bool Gpu::advance() {
  if (!windowed_) return sm_engine_->step();
  return dispatch_between_windows() ? advance_groups() : parts_->run_window();
}

// A window with the dispatcher between windows: it plans the window's CTAs
// (it may start the window: a kernel's first cycle, room freed in the last
// one), the partitions run, and the SMs' finished CTAs are freed. Kernels
// whose CTAs cannot be read on several threads at once run their windows'
// partitions one after the other, for every thread count alike.
bool Gpu::advance_groups() {
  Tick t = parts_->next_time();
  Cycle from = core_->cycle_at_or_after(parts_->window_start(0));
  if (Cycle c = dispatcher_->next_cycle(from); c != Dispatcher::kNoCycle) t = std::min(t, core_->tick_of(c));
  if (t == kNever) return false;
  Tick start = parts_->window_start(t);
  dispatcher_->plan(core_->cycle_at_or_after(start), core_->cycle_at_or_after(start + parts_->window()));
  bool serial = false;
  for (const auto& k : running_) serial |= !k->source->ctas_read_concurrently();
  parts_->set_serial(serial);
  parts_->run_window_at(t);
  for (auto& sm : sms_) sm->release_finished();
  return true;
}

Cycle Gpu::core_cycle() const {
  if (const Engine* e = Partitions::current()) return core_->cycle_at_or_after(e->now());
  return core_now();
}

void Gpu::wake_all() {
  for (size_t i = 0; i < parts_->size(); ++i) parts_->partition(i).wake_all();
}

// With partitions, a window runs past the last work of the GPU: its time is
// the last edge at which an SM, the interconnect or an L2 slice ticked with
// work (DRAM's write-backs go on after a kernel's end; an ungated run ticks
// idle members to the window's end).
Tick Gpu::now_tick() const {
  if (!windowed_) return sm_engine_->now();
  Tick t = std::max(icnt_->busy_tick(), l2_->busy_tick());
  for (const ClockDomain* c : cores_) t = std::max(t, c->busy_tick());
  return t;
}

}  // namespace ws::timing
