// The whole simulated GPU, wired from a configuration: SMs (with their L1Ds),
// request and reply crossbars, L2 slices and DRAM channels, the CTA
// dispatcher and the engine that ticks them. This is the one place that wires
// components together; tests build GPUs through it too.
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "common/error.h"
#include "config/config.h"
#include "ir/source.h"
#include "stats/stats.h"
#include "timing/gpu/kernel_projector.h"
#include "timing/engine/engine.h"
#include "timing/engine/partitions.h"
#include "timing/gpu/dispatcher.h"
#include "timing/gpu/occupancy.h"
#include "timing/gpu/stream_queue.h"
#include "timing/model.h"

namespace ws::timing {

class Sm;
class Crossbar;
class L2Slice;
class DramChannel;

class Gpu final : public TimingModel {
 public:
  explicit Gpu(const config::Config& cfg);
  ~Gpu() override;

  stats::Registry& stats() override { return stats_; }
  const stats::Registry& stats() const override { return stats_; }
  uint32_t num_sms() const override { return static_cast<uint32_t>(sms_.size()); }
  uint32_t max_warps_per_sm() const override { return limits_.max_warps; }
  double core_mhz() const override { return core_mhz_; }
  uint32_t host_threads() const override { return parts_->threads(); }
  // The current core-clock cycle (simulated time since the GPU was built).
  // Asked from inside a window (an SM reading %clock through exec's
  // emulator), the time of the partition asking, not of the others: they
  // may have run ahead, on another thread.
  Cycle core_cycle() const override;  // as configured (the period is rounded to 1 ps)

  // The copy engine writes through the L2, warming it (functional in v1).
  // A copy is synchronous: it also counts as a host synchronisation.
  void memcpy_htod(const ir::MemcpyHtoD& copy) override;
  // The host waited for the GPU (cudaDeviceSynchronize, a synchronous copy):
  // the next launch pays the full launch latency instead of overlapping its
  // launch work with the kernel before it.
  void host_sync() override { host_synced_ = true; }
  // Where a kernel's code lives: instruction addresses are this plus the PC.
  // One region per kernel name, in order of first launch.
  Addr code_base(const std::string& kernel_name) override;
  // Runs one kernel to completion (kernels run in order). Throws
  // KernelStopped past gpu.max_cycles or when the stop check says so. Not
  // while work queued on streams is unfinished.
  KernelResult run_kernel(ir::KernelSource& kernel, const ProgressFn& progress = {}) override;

  // Streams (docs/exec.md, "Streams and concurrent kernels"; the contract is
  // TimingModel's). Work queued here starts when stream order allows
  // (StreamQueue); kernels whose turn has come run together, up to
  // gpu.max_concurrent_kernels, their CTAs sharing SMs where resources allow
  // (Dispatcher). Simulated time passes only in synchronize().
  void launch(ir::KernelSource& kernel, StreamId stream, bool blocking_stream = true) override;
  void record_event(uint64_t event, StreamId stream, bool blocking_stream = true) override;
  void wait_event(StreamId stream, uint64_t event, bool blocking_stream = true) override;
  // On the copy engines (CopyEngines); a host-to-device copy warms the L2
  // with its lines when it ends.
  bool queue_copy(CopyWork work, StreamId stream, bool blocking_stream = true) override;
  std::vector<KernelResult> synchronize(SyncPoint until = {}, const ProgressFn& progress = {}) override;
  std::vector<KernelResult> take_ended() override { return std::exchange(ended_, {}); }
  std::optional<Cycle> event_cycle(uint64_t event) const override;
  bool streams_idle() const override { return streams_.done(); }
  void set_stop_check(StopCheck check) override { stop_check_ = std::move(check); }
  // A second cycle limit for kernels, named after the parameter that set it
  // (exec's watchdog); the lower of it and gpu.max_cycles applies.
  void set_watchdog(uint64_t cycles, const std::string& param) override;

 private:
  void build_memory(const config::Config& cfg);
  void build_engines(const config::Config& cfg);
  void link_partitions(const config::Config& cfg);
  // One engine step, or with partitions one window; false when nothing has work.
  bool advance();
  void wake_all();
  Tick now_tick() const;
  Cycle core_now() const;
  Cycle reached_cycle() const;
  bool memory_quiescent() const;
  struct Running;  // a kernel between its start and its end (gpu_streams.cpp)
  void finish_result(Running& k) const;
  void begin_projection(const KernelResult& r, const ir::KernelInfo& info);
  uint64_t progress_count() const;
  void check_progress(const std::string& kernel, uint64_t& moved, Cycle& moved_at) const;
  std::string stuck_report() const;
  [[noreturn]] void stop_kernel(Running& k, const std::string& why);

  struct Watch {   // progress bookkeeping of a run loop
    uint64_t steps = 0, moved = 0;
    Cycle moved_at = 0;
  };
  std::unique_ptr<Running> begin(ir::KernelSource& kernel, Cycle gap, Cycle start, bool alone);
  KernelResult end(Running& k);
  void step(Running& oldest, Watch& watch, const ProgressFn& progress);
  bool sync_reached(const SyncPoint& until) const;
  void start_ready_work();
  bool start_copy(StreamQueue::Seq s);
  void end_copies();
  void warm_l2(Addr dst, uint64_t bytes);
  struct Queued {  // a launch waiting for its turn
    ir::KernelSource* source;
    bool after_host_sync;
  };
  stats::Registry stats_;
  // The engines (docs/parallel.md): one, or with gpu.partitions = sm-memory
  // one for the SMs (with the dispatcher and the copy engines) and one for
  // the memory system, advanced window by window on gpu.threads threads.
  // With gpu.sm_groups > 1, one engine (and core clock domain) per group of
  // consecutive SMs, the first with the copy engines, and the dispatcher
  // planning CTAs between windows.
  std::unique_ptr<Partitions> parts_;
  std::vector<Engine*> sm_engines_;
  std::vector<ClockDomain*> cores_;
  Engine* sm_engine_ = nullptr;   // the first group's
  Engine* mem_engine_ = nullptr;  // the same as sm_engine_ without partitions
  bool windowed_ = false;
  ClockDomain *core_, *icnt_, *l2_, *dram_;  // core_: the first group's
  uint32_t group_of(uint32_t sm, uint32_t n_sms) const {
    return static_cast<uint32_t>(uint64_t{sm} * sm_engines_.size() / n_sms);
  }
  bool dispatch_between_windows() const { return sm_engines_.size() > 1; }
  bool advance_groups();
  SmLimits limits_;
  double core_mhz_;
  Cycle launch_latency_, launch_overhead_;
  Cycle fixed_cycles_;  // gpu.kernel_fixed_cycles: inside each kernel's cycles, before its first CTA
  bool host_synced_ = true;  // nothing queued behind a running kernel yet
  std::unordered_map<std::string, uint32_t> code_regions_;
  uint64_t max_cycles_;
  uint64_t l2_bytes_ = 0;  // total L2 capacity
  uint64_t progress_timeout_;  // gpu.progress_timeout_cycles
  std::string max_cycles_param_ = "gpu.max_cycles";  // what set max_cycles_
  StopCheck stop_check_;
  std::vector<std::unique_ptr<Sm>> sms_;
  std::unique_ptr<Crossbar> req_net_, reply_net_;
  std::vector<std::unique_ptr<L2Slice>> slices_;
  std::vector<std::unique_ptr<DramChannel>> channels_;
  std::unique_ptr<Dispatcher> dispatcher_;
  std::unique_ptr<CopyEngines> copies_;
  std::map<StreamQueue::Seq, CopyWork> copy_work_;  // copies queued or on an engine
  KernelProjector projector_;
  uint32_t max_concurrent_;  // gpu.max_concurrent_kernels
  StreamQueue streams_;
  std::map<StreamQueue::Seq, Queued> queued_;
  std::vector<std::unique_ptr<Running>> running_;  // in start order
  Cycle last_start_ = 0;  // of the kernel started last
  std::vector<KernelResult> ended_;  // by the synchronize() under way
};

struct Gpu::Running {
  ir::KernelSource* source = nullptr;
  StreamQueue::Seq seq = 0;  // 0: run_kernel's
  SmKernel ctx;
  KernelResult result;
};

}  // namespace ws::timing
