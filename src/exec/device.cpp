#include "exec/device.h"

#include <algorithm>
#include <chrono>
#include <optional>
#include <cstdio>
#include <filesystem>
#include <iostream>

#include <fmt/format.h>

#include "common/demangle.h"
#include "common/error.h"
#include "common/interrupt.h"
#include "config/config.h"
#include "exec/emulated_kernel.h"
#include "exec/ptxas.h"
#include "frontend/trace/trace_writer.h"
#include "sampling/kernel_features.h"
#include "sampling/plan.h"
#include "sampling/profile_csv.h"
#include "tools/progress_line.h"
#include "tools/report.h"
#include "tools/sampling_report.h"

namespace ws::exec {

namespace {

const config::Param<std::string> kProduct{"gpu.product_name", "Quadro GV100", "",
                                          "device name reported by the CUDA runtime (warpsim exec)"};
const config::Param<int64_t> kComputeCapability{"gpu.compute_capability", 70, "",
                                                "compute capability as major*10+minor (selects PTX and SASS tables)",
                                                {10, 200}};
const config::Param<double> kMemoryGb{"gpu.memory_gb", 32.0, "GiB", "device memory capacity", {0.001, 1 << 20}};
const config::Param<int64_t> kBusBits{"gpu.memory_bus_bits", 4096, "bits", "DRAM bus width (device properties)",
                                      {8, 1 << 16}};
const config::Param<int64_t> kRegsPerThread{
    "exec.regs_per_thread", 32, "registers",
    "registers per thread assumed for emulated PTX kernels (PTX has no allocation; .maxnreg caps it)", {1, 255}};
const config::Param<std::string> kPtxSchedule{
    "exec.ptx_schedule", "list", "",
    "order of each PTX basic block's instructions: list (reordered as ptxas schedules SASS: loads first, "
    "dependences kept; docs/exec.md) or source (PTX text order)"};
const config::Param<int64_t> kPtxUnroll{
    "exec.ptx_unroll", 4, "copies",
    "small counted PTX loops (at most 32 instructions, no barrier) run as this many copies per pass, as ptxas "
    "unrolls them (docs/exec.md); 1 runs loops as written", {1, 16}};
const config::Param<bool> kPtxFuse{
    "exec.ptx_fuse", true, "",
    "PTX steps ptxas merges into their neighbours (mul.wide + add.s64 as IMAD.WIDE, mul + add as IMAD or FFMA, setp + "
    "and.pred, not.pred, cvta.to.global, shl + add as LEA, a mov of an immediate; from compute capability 9.0 an "
    "add or a min before a min/max as VIADDMNMX/VIMNMX.RELU) run without issuing (docs/exec.md)"};
const config::Param<int64_t> kPtxIfConvert{
    "exec.ptx_if_convert", 8, "instructions",
    "a forward conditional branch over at most this many straight-line instructions is predicated, as ptxas does: "
    "the region issues in every warp that reaches it, the branch does not; with exec.ptx_schedule = list the region "
    "becomes guarded PTX before scheduling, so it joins the blocks around it (docs/exec.md); 0 branches as written",
    {0, 64}};
const config::Param<bool> kPtxReconvergence{
    "exec.ptx_reconvergence", true, "",
    "a forward conditional branch around a region that is not predicated, on a predicate not provably uniform, "
    "issues ptxas's BSSY ahead of it and a BSYNC at its target (SSY/SYNC before Volta) (docs/exec.md)"};
const config::Param<bool> kPtxRegisterPressure{
    "exec.ptx_register_pressure", true, "",
    "with exec.ptx_schedule = list, each block's order keeps its live registers within the kernel's (ptxas's "
    "allocation, else exec.regs_per_thread): a load rises only as far as a register is free for its result, as in "
    "ptxas's code (docs/exec.md); false lets every load rise as far as its dependences allow"};
const config::Param<int64_t> kPtxLoadScoreboards{
    "exec.ptx_load_scoreboards", 0, "counters",
    "global, local and texture loads count on this many of a warp's dependency counters (4 in ptxas's sm_90 loops), "
    "assigned as ptxas does: when more loads are in flight than counters are free, later ones share the last counter "
    "and a consumer of any of them waits for all (compute capability 5.0 on). 0 (default, as the H100 suite "
    "correlates better without it; docs/exec.md): each consumer waits for its own loads only",
    {0, 6}};
const config::Param<bool> kPtxVectorize{
    "exec.ptx_vectorize", true, "",
    "shared loads of one aligned base at consecutive constant offsets (a tile row read in an unrolled loop) issue "
    "as the one LDS.64/LDS.128 ptxas makes of them (docs/exec.md); false issues each as written"};
const config::Param<bool> kPtxasRegisters{
    "exec.ptxas_registers", true, "",
    "when the CUDA toolkit's ptxas is found ($WARPSIM_PTXAS, PATH, $CUDA_HOME/bin), each module is assembled once "
    "and every kernel gets the registers per thread ptxas allocates it (occupancy, cudaFuncGetAttributes); false, "
    "or without ptxas: exec.regs_per_thread (docs/exec.md)"};
const config::Param<bool> kParamBank{
    "exec.param_bank", true, "",
    "a kernel's ld.param is timed as an LDC of its launch's constant bank (c[0x0][0x210] on sm_90, 0x160 on sm_70 "
    "to sm_89), read through the SM's constant cache, whose first read of each bank line misses (l1c.bank_latency); "
    "false times it as a MOV (docs/memory-system.md)"};

// Watchdogs: a kernel that loops forever must not run forever. Far above
// any kernel a simulation can afford (see docs/exec.md for the figures).
const config::Param<int64_t> kWatchdogInsts{
    "exec.watchdog_warp_insts", 10'000'000'000, "warp instructions",
    "functional exec: stop a kernel past this many warp instructions with cudaErrorLaunchTimeout (0 = no limit)",
    {0, 1e18}};
const config::Param<int64_t> kWatchdogCycles{
    "exec.watchdog_cycles", 1'000'000'000, "core cycles",
    "exec --timing: stop a kernel past this many cycles with cudaErrorLaunchTimeout, keeping it as partial "
    "(0 = no limit; gpu.max_cycles applies too, the lower wins)",
    {0, 1e18}};

using Clock = std::chrono::steady_clock;

config::Config load_config(const DeviceOptions& o) {
  config::Config cfg;
  cfg.load_file(config::find_preset(o.preset));
  for (const std::string& s : o.sets) cfg.set_assignment(s);
  return cfg;
}

DeviceFacts facts_from(const config::Config& cfg) {
  DeviceFacts f;
  int64_t cc = kComputeCapability.get(cfg);
  f.name = kProduct.get(cfg) + " (warpsim)";
  f.cc_major = static_cast<int>(cc / 10);
  f.cc_minor = static_cast<int>(cc % 10);
  f.sms = static_cast<int>(cfg.get<int64_t>("gpu.sms"));
  f.core_mhz = cfg.get<double>("clock.core_mhz");
  f.dram_mhz = cfg.get<double>("clock.dram_mhz");
  f.dram_bus_bits = static_cast<int>(kBusBits.get(cfg));
  f.global_mem_bytes = static_cast<uint64_t>(kMemoryGb.get(cfg) * double(1ull << 30));
  f.l2_bytes = static_cast<uint64_t>(cfg.get<int64_t>("l2.size_kb")) << 10;
  f.max_threads_per_sm = static_cast<int>(cfg.get<int64_t>("core.max_threads"));
  f.max_threads_per_block = std::min(1024, f.max_threads_per_sm);
  f.max_ctas_per_sm = static_cast<int>(cfg.get<int64_t>("core.max_ctas"));
  f.regs_per_sm = static_cast<int>(cfg.get<int64_t>("core.registers"));
  f.regs_per_block = std::min(f.regs_per_sm, 65536);
  f.regs_per_thread = static_cast<int>(kRegsPerThread.get(cfg));
  f.copy_engines = static_cast<int>(cfg.get<int64_t>("copy.engines"));
  auto carve = cfg.get<std::vector<int64_t>>("core.shared_carveout_kb");
  int64_t max_shared = carve.empty() ? 48 : *std::max_element(carve.begin(), carve.end());
  f.shmem_per_sm = static_cast<uint64_t>(max_shared) << 10;
  f.shmem_per_block_optin = std::max<uint64_t>(f.shmem_per_sm - (1 << 10), 48 << 10);
  f.shmem_per_block = std::min<uint64_t>(48 << 10, f.shmem_per_sm);
  return f;
}

// The newest SASS table not newer than the device (sm_70 for cc 7.0, sm_86 for 8.6).
std::shared_ptr<const frontend::IsaTable> isa_for(int cc) {
  static const int kVersions[] = {90, 89, 86, 80, 75, 70, 61, 35, 20};
  for (int v : kVersions)
    if (v <= cc) return std::make_shared<const frontend::IsaTable>(frontend::IsaTable::load(static_cast<uint32_t>(v)));
  return std::make_shared<const frontend::IsaTable>(frontend::IsaTable::load(20));
}

}  // namespace

// Bytes of static shared memory a kernel uses: its own .shared variables and
// the module's (PTX does not say which module-scope ones a kernel touches).
uint64_t static_shared_bytes(const LoadedModule& m, const ptx::Function& k) {
  uint64_t bytes = 0;
  auto add = [&](const ptx::Variable& v) {
    if (v.space != ptx::StateSpace::Shared || v.is_unsized_array) return;
    uint64_t a = std::max<uint64_t>(v.align, 1);
    bytes = (bytes + a - 1) / a * a + v.size;
  };
  for (const ptx::Variable& v : m.ast.globals) add(v);
  for (const ptx::Variable& v : k.locals) add(v);
  return bytes;
}

uint32_t regs_per_thread(const DeviceFacts& f, const ptx::Function& k) {
  uint32_t regs = k.allocated_regs ? k.allocated_regs : static_cast<uint32_t>(f.regs_per_thread);
  return k.maxnreg ? std::min(regs, k.maxnreg) : regs;
}

// The cycle-level model and trace writer, present only when asked for.
struct Device::Timing {
  explicit Timing(config::Config c) : cfg(std::move(c)) {}
  config::Config cfg;
  std::unique_ptr<timing::TimingModel> gpu;
  tools::RunReport report;
  std::unique_ptr<frontend::TraceWriter> trace;
  std::shared_ptr<const frontend::IsaTable> isa;
  PtxOpNames names = PtxOpNames::load();
  uint32_t launches = 0;  // kernel ids count from 1, as in trace folders
  std::optional<sampling::KernelPlan> plan;  // timing under a sampling plan
  std::string profile_rows;                  // profile CSV rows so far
  bool plan_mismatch = false;                // the plan is another program's: report.error says how
  tools::ProgressLine progress{true};  // long timed kernels, on a terminal only
  double wall_seconds = 0;  // host time of the finished launches
  std::optional<std::chrono::steady_clock::time_point> running_since;  // the launch under way
  // Host time so far, the launch under way included (a kernel stopped by a
  // limit or a signal is written out before its launch returns).
  double wall_now() const {
    double w = wall_seconds;
    if (running_since)
      w += std::chrono::duration<double>(std::chrono::steady_clock::now() - *running_since).count();
    return w;
  }
  // Counts host time from now until the guard goes, on every way out (an
  // exception too).
  struct HostTime {
    Timing& t;
    ~HostTime() {
      t.wall_seconds = t.wall_now();
      t.running_since.reset();
    }
  };
  HostTime time_host() {
    running_since = std::chrono::steady_clock::now();
    return HostTime{*this};
  }
};

Device::Device(const DeviceOptions& opts)
    : opts_(opts),
      timing_(std::make_unique<Timing>(load_config(opts))),
      facts_(facts_from(timing_->cfg)),
      program_(memory_),
      emulator_(memory_, static_cast<uint32_t>(facts_.sms)) {
  Timing& t = *timing_;
  memory_.set_capacity(facts_.global_mem_bytes);
  emulator_.set_textures(&textures_);
  std::string schedule = kPtxSchedule.get(t.cfg);
  if (schedule != "list" && schedule != "source")
    throw ConfigError(kPtxSchedule.name(), "unknown PTX schedule '" + schedule + "' (known: list, source)");
  program_.set_schedule(schedule == "list", {.register_pressure = kPtxRegisterPressure.get(t.cfg),
                                             .fallback_regs = static_cast<uint32_t>(facts_.regs_per_thread),
                                             .uniform_registers = facts_.cc_major * 10 + facts_.cc_minor >= 75});
  program_.set_unroll(static_cast<unsigned>(kPtxUnroll.get(t.cfg)));
  // IMAD everywhere but on Maxwell and Pascal (XMAD); sm_90 adds VIADDMNMX
  // and VIMNMX.RELU (an add and a clamp at 0 merged into a min or max).
  program_.set_fuse(kPtxFuse.get(t.cfg), {.imad = facts_.cc_major < 5 || facts_.cc_major >= 7,
                                          .add_min_max = facts_.cc_major >= 9});
  program_.set_if_convert(static_cast<unsigned>(kPtxIfConvert.get(t.cfg)));
  program_.set_reconvergence(kPtxReconvergence.get(t.cfg));
  program_.set_vectorize(kPtxVectorize.get(t.cfg));
  // Maxwell's control codes brought the six dependency counters.
  program_.set_load_scoreboards(facts_.cc_major >= 5 ? static_cast<unsigned>(kPtxLoadScoreboards.get(t.cfg)) : 0);
  if (kPtxasRegisters.get(t.cfg))
    program_.set_ptxas(find_ptxas(), static_cast<unsigned>(facts_.cc_major * 10 + facts_.cc_minor));
  emulator_.set_threads_per_sm(static_cast<uint32_t>(facts_.max_threads_per_sm));
  emulator_.set_watchdog(static_cast<uint64_t>(kWatchdogInsts.get(t.cfg)));
  t.isa = isa_for(facts_.cc_major * 10 + facts_.cc_minor);
  if (opts.timing) {
    t.gpu = timing::make_timing_model(t.cfg);
    t.gpu->set_watchdog(static_cast<uint64_t>(kWatchdogCycles.get(t.cfg)), kWatchdogCycles.name());
    // %clock reads the simulated core cycle: warps run when the SMs issue them.
    emulator_.set_clock([gpu = t.gpu.get()] { return gpu->core_cycle(); });
    t.report.workload = "warpsim exec";
    t.report.preset = opts.preset;
    t.report.sms = t.gpu->num_sms();
    t.report.core_mhz = t.gpu->core_mhz();
    t.report.host_threads = t.gpu->host_threads();
    t.report.max_warps_per_sm = t.gpu->max_warps_per_sm();
    t.report.launch_l2_reads = tools::launch_l2_read_sectors(t.cfg);
    t.gpu->set_stop_check(interrupt_reason);
    if (!opts.plan.empty()) {
      t.plan = sampling::KernelPlan::load(opts.plan);
      t.report.sampling = tools::sampling_report(*t.plan);
    }
    if (!opts.out_dir.empty()) {
      tools::prepare_out_dir(opts.out_dir);
      tools::write_file_atomic(opts.out_dir + "/config.toml", t.cfg.to_toml());
    }
  }
  if (!opts.plan.empty() && !opts.timing) throw InputError("plan " + opts.plan + ": needs timing (WARPSIM_TIMING=1)");
  if (!opts.profile_out.empty() && opts.timing)
    throw InputError("profile " + opts.profile_out + ": a profile is a functional run (no WARPSIM_TIMING)");
  if (!opts.trace_out.empty()) t.trace = std::make_unique<frontend::TraceWriter>(opts.trace_out, opts.trace_binary);
}

Device::~Device() = default;

ir::KernelInfo Device::kernel_info(const Launch& l) {
  ir::KernelInfo info;
  info.name = l.kernel->name;
  info.id = ++timing_->launches;
  info.grid = l.grid;
  info.block = l.block;
  info.shmem_bytes = static_cast<uint32_t>(static_shared_bytes(*l.module, *l.kernel) + l.dynamic_shmem);
  info.nregs = regs_per_thread(facts_, *l.kernel);
  info.binary_version = timing_->isa->binary_version();
  return info;
}

// A timed launch is queued on its stream (one on the legacy stream runs to
// its end at once unless a non-blocking stream could overlap it). Any other runs at once: in the plain emulator (fastest),
// or read through for a trace or a profile.
LaunchResult Device::launch(const Launch& l, StreamRef stream) {
  Timing& t = *timing_;
  note_stream(stream);
  if (!t.gpu && !t.trace && opts_.profile_out.empty()) {
    Timing::HostTime host_time = t.time_host();
    LaunchResult r = emulator_.run(l);
    now_ns_ += estimated_ns(r);
    return r;
  }
  ir::KernelInfo info = kernel_info(l);
  info.stream = stream.id;
  // Under a plan kernels are timed one at a time, as warpsim run replays a
  // plan: a group's result is then the next kernel to end, and a launch that
  // is not timed sees what the queued ones write (skipped work costs no
  // simulated time).
  if (t.plan) drain();
  if (t.gpu && timed_under_plan(info)) {
    uint32_t id = queue_timed(l, info, stream);
    bool run_now = stream.id == timing::kLegacyStream && !stream.nonblocking_live;
    return run_now ? run_legacy(id) : LaunchResult{};
  }
  Timing::HostTime host_time = t.time_host();
  // A two-level profile leaves launches after the first N to cheap features.
  bool profiled = full_profile(info.id);
  if (!opts_.profile_out.empty() && !profiled)
    t.profile_rows += sampling::profile_csv_cheap_row(info.id, info.name, info.grid, info.block);
  LaunchResult r = t.trace || profiled ? run_emulated(l, info) : emulator_.run(l);
  now_ns_ += estimated_ns(r);
  if (!r.ok && t.gpu) t.report.error = r.error;
  if (t.gpu && !opts_.out_dir.empty()) write_stats();
  return r;
}

// Profiling, and this launch gets all its features (not only the cheap ones
// two-level profiling gives the launches after the first N).
bool Device::full_profile(uint32_t launch) const {
  return !opts_.profile_out.empty() && (!opts_.profile_full || launch <= opts_.profile_full);
}

// Without a plan every launch is timed. Under one, only the representatives
// are; a launch that is not the plan's (another program) is recorded as the
// run's error and thrown (the runtime ends the program: nothing is projected).
bool Device::timed_under_plan(const ir::KernelInfo& info) {
  Timing& t = *timing_;
  if (!t.plan) return true;
  try {
    return !tools::skip_launch(*t.plan, t.report, info.id, info.name);
  } catch (const sampling::PlanMismatch& e) {
    t.report.error = e.what();
    t.plan_mismatch = true;
    throw;
  }
}

// The launch as an ir::KernelSource read through at once, for a profile or
// a trace.
LaunchResult Device::run_emulated(const Launch& l, const ir::KernelInfo& info) {
  Timing& t = *timing_;
  StepTranslator tr(t.names, t.isa, l, kParamBank.get(t.cfg));
  if (t.trace) t.trace->begin_kernel(info, kTraceSharedWindow, kTraceLocalWindow);
  EmulatedKernel kernel(emulator_, l, info, tr, t.trace.get(), false);
  try {
    if (full_profile(info.id))
      t.profile_rows += sampling::profile_csv_row(sampling::profile_kernel(kernel, info.id));
    else
      while (kernel.next_cta()) {
      }
  } catch (const Error& e) {
    if (kernel.result().ok) throw;  // a model error, not a fault of the program
  }
  if (t.trace) t.trace->end_kernel();
  return kernel.result();
}

// A launch queued in the timing model: the launch, its emulation and trace
// file stay alive until the kernel has ended.
struct Device::Queued {
  Launch launch;
  ir::KernelInfo info;
  std::unique_ptr<StepTranslator> tr;
  std::unique_ptr<frontend::KernelFile> trace;
  std::unique_ptr<EmulatedKernel> kernel;
};

uint32_t Device::queue_timed(const Launch& l, const ir::KernelInfo& info, StreamRef stream) {
  Timing& t = *timing_;
  auto q = std::make_unique<Queued>();
  q->launch = l;
  q->info = info;
  q->tr = std::make_unique<StepTranslator>(t.names, t.isa, q->launch, kParamBank.get(t.cfg));
  if (t.trace) q->trace = t.trace->open_kernel(q->info, kTraceSharedWindow, kTraceLocalWindow);
  q->kernel = std::make_unique<EmulatedKernel>(emulator_, q->launch, q->info, *q->tr, q->trace.get(), true);
  if (!gpu_broken_) t.gpu->launch(*q->kernel, stream.id, stream.blocking);
  uint32_t id = q->info.id;
  queued_.emplace(id, std::move(q));
  return id;
}

// A kernel on the legacy stream runs to its end at once: everything issued
// after it on blocking streams would wait for it anyway, so only later work
// on non-blocking streams loses the chance to overlap it. Its launch then
// reports its faults, and throws KernelStopped or a model error, as the
// launch of a kernel run alone does.
LaunchResult Device::run_legacy(uint32_t id) {
  Queued& q = *queued_.at(id);
  struct Hold {
    uint32_t& held;
    ~Hold() { held = 0; }
  } hold{held_ = id};
  run_gpu(timing::SyncPoint{timing::SyncPoint::Kind::Stream, timing::kLegacyStream}, true);
  LaunchResult r = q.kernel->result();
  if (!r.ok) fault_.reset();  // reported by this launch
  queued_.erase(id);
  return r;
}

// A written trace says which streams are non-blocking (a StreamNonBlocking
// line before a stream's first use), so that a replay orders them as here.
void Device::note_stream(StreamRef stream) {
  if (timing_->trace && !stream.blocking && nonblocking_noted_.insert(stream.id).second)
    timing_->trace->stream_event(ir::StreamEvent{ir::StreamEvent::Kind::NonBlocking, stream.id, 0});
}

// Events are numbered in order of first use (handles differ between runs;
// traces must not).
uint64_t Device::event_number(uint64_t handle) {
  return event_numbers_.try_emplace(handle, event_numbers_.size() + 1).first->second;
}

void Device::record_event(uint64_t event, StreamRef stream) {
  Timing& t = *timing_;
  uint64_t n = event_number(event);
  note_stream(stream);
  if (t.trace) t.trace->stream_event(ir::StreamEvent{ir::StreamEvent::Kind::Record, stream.id, n});
  if (!t.gpu || gpu_broken_) return;
  t.gpu->record_event(n, stream.id, stream.blocking);
  event_ns_.erase(event);
  unresolved_events_.push_back(event);
}

void Device::wait_event(StreamRef stream, uint64_t event) {
  Timing& t = *timing_;
  uint64_t n = event_number(event);
  note_stream(stream);
  if (t.trace) t.trace->stream_event(ir::StreamEvent{ir::StreamEvent::Kind::Wait, stream.id, n});
  if (t.gpu && !gpu_broken_) t.gpu->wait_event(stream.id, n, stream.blocking);
}

void Device::drain() {
  if (timing_->gpu && !gpu_broken_) run_gpu(timing::SyncPoint{});
}

void Device::synchronize() {
  drain();
  if (timing_->gpu) timing_->gpu->host_sync();
  if (timing_->trace) timing_->trace->host_sync();
}

// The host waited for part of the work. When that left the GPU idle, the
// next launch is not queued behind anything: a host synchronisation (as
// every synchronisation was before kernels ran concurrently).
void Device::synchronize_stream(StreamRef stream) {
  if (timing_->gpu && !gpu_broken_) run_gpu(timing::SyncPoint{timing::SyncPoint::Kind::Stream, stream.id});
  if (!timing_->gpu || timing_->gpu->streams_idle()) synchronize();
}

void Device::synchronize_event(uint64_t event, bool host_waits) {
  if (timing_->gpu && !gpu_broken_)
    run_gpu(timing::SyncPoint{timing::SyncPoint::Kind::Event, static_cast<int64_t>(event_number(event))});
  if (host_waits && (!timing_->gpu || timing_->gpu->streams_idle())) synchronize();
}

std::optional<double> Device::event_ns(uint64_t event) const {
  auto it = event_ns_.find(event);
  if (it == event_ns_.end()) return std::nullopt;
  return it->second;
}

// Simulated time runs on while the GPU does: events that completed during
// the run are timed from where it started.
void Device::resolve_events(Cycle base_cycle, double base_ns) {
  timing::TimingModel& gpu = *timing_->gpu;
  std::erase_if(unresolved_events_, [&](uint64_t e) {
    std::optional<Cycle> c = gpu.event_cycle(event_number(e));
    if (!c) return false;
    event_ns_[e] = base_ns + static_cast<double>(std::max(*c, base_cycle) - base_cycle) * 1e3 / gpu.core_mhz();
    return true;
  });
}

// Runs the timing model to a synchronisation point. While it runs, Ctrl-C
// or SIGTERM stops it: the finished kernels and the stopped one are written
// ("complete": false) and the process then ends as the signal would end it.
// A kernel stopped by a cycle limit is kept as partial too.
void Device::run_gpu(const timing::SyncPoint& until, bool rethrow) {
  Timing& t = *timing_;
  if (t.gpu->streams_idle()) return;
  timing::TimingModel& gpu = *t.gpu;
  Cycle base_cycle = gpu.core_cycle();
  double base_ns = now_ns_;
  Timing::HostTime host_time = t.time_host();
  auto progress = [&](Cycle c) { t.progress.update("[kernels]", c, gpu.stats().sum("sm.*.warp_insts")); };
  try {
    InterruptGuard on_signal;
    take_ended(gpu.synchronize(until, progress));
  } catch (timing::KernelStopped& stop) {
    take_ended(gpu.take_ended());
    stopped(stop);
    if (rethrow) throw;
  } catch (const Error& e) {
    take_ended(gpu.take_ended());
    gpu_broken_ = true;
    // A fault of the program stops the run; otherwise the model failed.
    for (auto& [id, q] : queued_)
      if (!q->kernel->result().ok) {
        fault_ = Fault{Fault::Kind::Program, q->kernel->result().failure, q->kernel->result().error};
        break;
      }
    if (!fault_) fault_ = Fault{Fault::Kind::Model, LaunchFailure::Fault, e.what()};
    t.report.error = fault_->what;
    if (rethrow && fault_->kind == Fault::Kind::Model) {
      fault_.reset();
      throw;
    }
  }
  t.progress.clear();
  now_ns_ = base_ns + static_cast<double>(gpu.core_cycle() - base_cycle) * 1e3 / gpu.core_mhz();
  resolve_events(base_cycle, base_ns);
  if (!opts_.out_dir.empty()) write_stats();
}

// Kernels that ended: into the report, their emulation and trace closed.
void Device::take_ended(std::vector<timing::KernelResult> ended) {
  for (timing::KernelResult& r : ended) {
    auto it = queued_.find(r.id);
    if (it != queued_.end()) {
      if (it->second->trace) it->second->trace->close();
      if (r.id != held_) queued_.erase(it);
    }
    timing_->report.kernels.push_back(std::move(r));
  }
}

void Device::stopped(timing::KernelStopped& stop) {
  Timing& t = *timing_;
  gpu_broken_ = true;
  t.progress.clear();
  t.report.kernels.push_back(std::move(stop.partial));
  t.report.error = stop.what();
  t.report.signal = pending_interrupt();
  t.report.wall_seconds = t.wall_now();
  if (!opts_.out_dir.empty()) write_stats();
  if (t.report.signal) {
    std::fprintf(stderr, "warpsim: %s; results so far are in %s\n", stop.what(),
                 opts_.out_dir.empty() ? "no file (no --out)" : (opts_.out_dir + "/stats.json").c_str());
    die_of_signal(t.report.signal);
  }
  fault_ = Fault{Fault::Kind::Stopped, LaunchFailure::Watchdog, stop.what()};
}

// Functional mode has no cycles: assume the SMs issue two warp instructions
// per cycle each, plus a 5 us launch overhead (docs/exec.md).
double Device::estimated_ns(const LaunchResult& r) const {
  double cycles = static_cast<double>(r.warp_insts) / (2.0 * facts_.sms);
  return 5000.0 + cycles * 1e3 / facts_.core_mhz;
}

// A host<->device copy. With copy engines (the detailed model) it is queued
// on its stream (a synchronous one on the legacy stream) and the host waits
// as `wait` says; a wait that leaves the GPU idle is a host synchronisation,
// as for cudaStreamSynchronize. Otherwise (functional runs, the abstract
// model) it happens at once, after the work before it.
void Device::host_copy(bool to_device, Addr device_addr, uint64_t bytes, std::function<void()> perform,
                       StreamRef stream, CopyWait wait) {
  Timing& t = *timing_;
  if (wait == CopyWait::Host) stream = StreamRef{timing::kLegacyStream, true, stream.nonblocking_live};
  note_stream(stream);
  if (t.trace) t.trace->stream_copy(ir::StreamCopy{to_device, stream.id, device_addr, bytes});
  auto dir = to_device ? timing::CopyDirection::HostToDevice : timing::CopyDirection::DeviceToHost;
  if (t.gpu && !gpu_broken_ && t.gpu->queue_copy(timing::CopyWork{dir, device_addr, bytes, perform}, stream.id,
                                                 stream.blocking)) {
    if (wait == CopyWait::None) return;
    run_gpu(timing::SyncPoint{timing::SyncPoint::Kind::Stream, stream.id});
    if (t.gpu->streams_idle()) synchronize();
    return;
  }
  if (wait == CopyWait::None) drain();
  else synchronize();
  perform();
  if (t.gpu && to_device) t.gpu->memcpy_htod(ir::MemcpyHtoD{device_addr, bytes});
  // PCIe-class copy time for events around copies (12 GB/s plus 10 us).
  now_ns_ += 10000.0 + static_cast<double>(bytes) / 12.0;
}

void Device::copy_to_device(Addr dst, const void* src, uint64_t bytes, StreamRef stream, CopyWait wait) {
  host_copy(true, dst, bytes, [this, dst, src, bytes] { memory_.write(dst, src, bytes); }, stream, wait);
}

void Device::copy_to_host(void* dst, Addr src, uint64_t bytes, StreamRef stream, CopyWait wait) {
  host_copy(false, src, bytes, [this, dst, src, bytes] { memory_.read(src, dst, bytes); }, stream, wait);
}

void Device::copy_on_device(Addr dst, Addr src, uint64_t bytes) {
  drain();  // (a copy on the device is not a host synchronisation)
  std::vector<uint8_t> tmp(bytes);
  memory_.read(src, tmp.data(), bytes);
  memory_.write(dst, tmp.data(), bytes);
  // The copy reads its source through the L2 and writes its destination
  // there (no host synchronisation).
  Timing& t = *timing_;
  if (t.gpu) {
    t.gpu->memcpy_htod(ir::MemcpyHtoD{src, bytes, false});
    t.gpu->memcpy_htod(ir::MemcpyHtoD{dst, bytes, false});
  }
  if (t.trace) {
    t.trace->device_copy(src, bytes);
    t.trace->device_copy(dst, bytes);
  }
  now_ns_ += static_cast<double>(bytes) / 400.0;
}

// A memset runs on the GPU and leaves its lines in the L2, as a copy does;
// the trace records it as a copy so that a replay warms the same lines.
void Device::set(Addr dst, uint8_t value, uint64_t bytes) {
  synchronize();
  memory_.fill(dst, value, bytes);
  Timing& t = *timing_;
  if (t.gpu) t.gpu->memcpy_htod(ir::MemcpyHtoD{dst, bytes});
  if (t.trace) t.trace->memcpy(dst, bytes);
  now_ns_ += static_cast<double>(bytes) / 400.0;
}

void Device::write_stats() {
  Timing& t = *timing_;
  t.report.wall_seconds = t.wall_now();
  t.report.in_progress = !finished_;
  tools::write_file_atomic(opts_.out_dir + "/stats.json", tools::stats_json(t.report, t.gpu->stats()));
}

// At exit: the profile CSV (when profiling), and under a plan the check that
// the program made all the plan's launches (else it was another program's).
void Device::finish_sampling() {
  Timing& t = *timing_;
  if (!opts_.profile_out.empty() && t.launches > 0)
    tools::write_file_atomic(opts_.profile_out, sampling::profile_csv_header() + t.profile_rows);
  if (!t.plan || t.report.error) return;
  try {
    t.plan->check_count(t.launches);
  } catch (const sampling::PlanMismatch& e) {
    t.report.error = e.what();
    t.plan_mismatch = true;
  }
}

void Device::finish() {
  Timing& t = *timing_;
  if (t.gpu && !gpu_broken_) run_gpu(timing::SyncPoint{});  // kernels the program never waited for
  finished_ = true;
  finish_sampling();
  if (t.gpu) {
    t.report.wall_seconds = t.wall_seconds;
    if (!opts_.out_dir.empty()) write_stats();
    if (opts_.print_summary) {
      std::fflush(stdout);  // the program's own output first (finish() runs at exit, before stdio flushes)
      tools::print_summary(std::cerr, t.report, t.gpu->stats());
    }
  }
  if (t.trace) t.trace->close();
  if (t.plan_mismatch) throw sampling::PlanMismatch(*t.report.error);
}

}  // namespace ws::exec
