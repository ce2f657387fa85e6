// The timing-model interface: what the frontends (warpsim run, exec
// --timing, profile, sampling) need from a model of the GPU's time. The
// detailed, cycle-level model (timing/gpu/gpu.h) and the abstract,
// event-driven one (timing/abstract/) implement it; make_timing_model() picks
// one by the gpu.model parameter, so a frontend never knows which runs.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/error.h"
#include "common/types.h"
#include "config/config.h"
#include "ir/source.h"
#include "stats/stats.h"
#include "timing/core/stall_reasons.h"
#include "timing/gpu/copy_engines.h"
#include "timing/gpu/kernel_projector.h"
#include "timing/gpu/occupancy.h"
#include "timing/gpu/stream_queue.h"

namespace ws::timing {

struct KernelResult {
  std::string name;
  uint32_t id = 0;
  Dim3 grid, block;
  uint32_t binary_version = 0;
  // Core cycles. `cycles` runs from the kernel's start in the GPU (its fixed
  // work, gpu.kernel_fixed_cycles, then the first CTA dispatch) to its end:
  // what a profiler counts as the kernel's time (gpc__cycles_elapsed.max).
  // `launch_gap` is the idle time before it, since the previous kernel ended
  // (or, after a host synchronisation, since the launch call).
  Cycle start_cycle = 0, cycles = 0;
  Cycle launch_gap = 0;
  Cycle elapsed_cycles() const { return launch_gap + cycles; }
  Occupancy occupancy;
  stats::Snapshot before, after;      // counters around the kernel
  // False for a kernel stopped before its end (gpu.max_cycles, an interrupt):
  // its cycles and counters cover what ran until then.
  bool complete = true;
  // Set when sampling.project_kernels stopped dispatch early: cycles and
  // counters above cover the CTAs simulated, this the projected whole.
  KernelProjection projection;
  // The kernel's own work, counted per issued instruction and per CTA
  // (`attributed`: set by the model). `before`/`after` cover every kernel
  // that ran during its time; `shared_gpu` says some other kernel did.
  struct Own {
    uint64_t warp_insts = 0, thread_insts = 0, ctas = 0;
    // Warp cycles by issue-stall reason (all zero where the model does not
    // attribute them: the abstract model, stats.stall_reasons = false).
    StallCounts stalls{};
  } own;
  bool attributed = false;
  bool shared_gpu = false;
  int64_t stream = 0;
};

// Where synchronize() stops: all work, one stream's, or an event's record.
struct SyncPoint {
  enum class Kind : uint8_t { Device, Stream, Event } kind = Kind::Device;
  int64_t id = 0;  // the stream or the event
};

// A kernel stopped before its end; `partial` is what it ran so far. The GPU
// is left in the middle of that kernel: run nothing more on it.
class KernelStopped : public Error {
 public:
  KernelStopped(const std::string& what, KernelResult partial) : Error(what), partial(std::move(partial)) {}
  KernelResult partial;
};

// Polled now and then during a kernel: a non-empty reason stops it
// (KernelStopped carrying that reason).
using StopCheck = std::function<std::string()>;

// Called now and then during a kernel with its elapsed core cycles.
using ProgressFn = std::function<void(Cycle kernel_cycles)>;

// A kernel's result before it runs: what it is and how many of its CTAs fit
// on an SM (an InputError naming it when one CTA cannot fit).
inline KernelResult start_result(const ir::KernelInfo& info, const SmLimits& limits) {
  KernelResult r;
  r.name = info.name;
  r.id = info.id;
  r.grid = info.grid;
  r.block = info.block;
  r.binary_version = info.binary_version;
  r.stream = info.stream;
  r.occupancy = plan_occupancy(limits, info);
  return r;
}

class TimingModel {
 public:
  virtual ~TimingModel() = default;

  // Counters under the names docs/stats.md lists; a model registers only the
  // counters it can know (a report leaves the others out).
  virtual stats::Registry& stats() = 0;
  virtual const stats::Registry& stats() const = 0;
  virtual uint32_t num_sms() const = 0;
  virtual uint32_t max_warps_per_sm() const = 0;
  virtual double core_mhz() const = 0;
  // Host threads the simulation runs on (docs/parallel.md).
  virtual uint32_t host_threads() const { return 1; }
  // The current core-clock cycle (simulated time since the model was built).
  virtual Cycle core_cycle() const = 0;

  // A host-to-device copy (or memset): warms the L2; counts as a host
  // synchronisation unless copy.host_sync is false (a copy on the device).
  virtual void memcpy_htod(const ir::MemcpyHtoD& copy) = 0;
  // The host waited for the GPU: the next launch pays the full launch latency.
  virtual void host_sync() = 0;
  // Where a kernel's code lives: instruction addresses are this plus the PC.
  virtual Addr code_base(const std::string& kernel_name) = 0;
  // Runs one kernel to completion (kernels run in order). Throws
  // KernelStopped past gpu.max_cycles or when the stop check says so. Not
  // while work queued on streams is unfinished.
  virtual KernelResult run_kernel(ir::KernelSource& kernel, const ProgressFn& progress = {}) = 0;

  // Streams (docs/exec.md, "Streams and concurrent kernels"): work queued
  // here runs when stream order allows; simulated time passes only in
  // synchronize(). A source stays alive until its result is returned.
  // `blocking_stream`: false for a cudaStreamNonBlocking stream. The
  // detailed model runs kernels whose turn has come together; the abstract
  // one runs queued work one item at a time, in the order queued.
  virtual void launch(ir::KernelSource& kernel, StreamId stream, bool blocking_stream = true) = 0;
  virtual void record_event(uint64_t event, StreamId stream, bool blocking_stream = true) = 0;
  virtual void wait_event(StreamId stream, uint64_t event, bool blocking_stream = true) = 0;
  // A host<->device copy queued on a stream, to run on a copy engine when
  // stream order allows (its `perform` runs then). False: this model has no
  // copy engines; the caller then copies at once after synchronising, and
  // memcpy_htod warms the L2 (docs/exec.md, "Copy engines").
  virtual bool queue_copy(CopyWork work, StreamId stream, bool blocking_stream = true) { return false; }
  // Runs until the sync point's work has ended; returns the kernels that
  // ended meanwhile, in the order they ended. Throws KernelStopped (for the
  // oldest running kernel; the model is then unusable) or Error as run_kernel.
  virtual std::vector<KernelResult> synchronize(SyncPoint until = {}, const ProgressFn& progress = {}) = 0;
  // After synchronize() threw: the kernels that had ended before (in order).
  virtual std::vector<KernelResult> take_ended() = 0;
  // The core cycle at which the event's last record completed (nullopt: not
  // yet, or never recorded).
  virtual std::optional<Cycle> event_cycle(uint64_t event) const = 0;
  // Nothing queued or running on any stream.
  virtual bool streams_idle() const = 0;
  virtual void set_stop_check(StopCheck check) = 0;
  // A second cycle limit for kernels, named after the parameter that set it.
  virtual void set_watchdog(uint64_t cycles, const std::string& param) = 0;
};

// The models gpu.model may name.
inline constexpr const char* kModelNames = "detailed, abstract";

// The model the configuration's gpu.model names (a ConfigError naming the
// parameter for any other value).
std::unique_ptr<TimingModel> make_timing_model(const config::Config& cfg);
// The same for an explicit name, the configuration's gpu.model ignored
// (warpsim run --compare).
std::unique_ptr<TimingModel> make_timing_model(const config::Config& cfg, const std::string& name);
std::string model_name(const config::Config& cfg);
// Core cycles every kernel spends in the GPU before its first CTA dispatch:
// gpu.kernel_fixed_cycles plus gpu.kernel_fixed_ns at clock.core_mhz (both
// models count them inside the kernel's cycles).
Cycle kernel_fixed_cycles(const config::Config& cfg);

}  // namespace ws::timing
