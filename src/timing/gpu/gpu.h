// The whole simulated GPU, wired from a configuration: SMs (with their L1Ds),
// request and reply crossbars, L2 slices and DRAM channels, the CTA
// dispatcher and the engine that ticks them. This is the one place that wires
// components together; tests build GPUs through it too.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "common/error.h"
#include "config/config.h"
#include "ir/source.h"
#include "stats/stats.h"
#include "timing/gpu/kernel_projector.h"
#include "timing/engine/engine.h"
#include "timing/gpu/dispatcher.h"
#include "timing/gpu/occupancy.h"
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
  // The current core-clock cycle (simulated time since the GPU was built).
  Cycle core_cycle() const override { return core_now(); }  // as configured (the period is rounded to 1 ps)

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
  // KernelStopped past gpu.max_cycles or when the stop check says so.
  KernelResult run_kernel(ir::KernelSource& kernel, const ProgressFn& progress = {}) override;
  void set_stop_check(StopCheck check) override { stop_check_ = std::move(check); }
  // A second cycle limit for kernels, named after the parameter that set it
  // (exec's watchdog); the lower of it and gpu.max_cycles applies.
  void set_watchdog(uint64_t cycles, const std::string& param) override;

 private:
  void build_memory(const config::Config& cfg);
  Cycle core_now() const;
  bool memory_quiescent() const;
  void finish_result(KernelResult& r) const;
  void begin_projection(const KernelResult& r, const ir::KernelInfo& info);
  uint64_t progress_count() const;
  void check_progress(const std::string& kernel, uint64_t& moved, Cycle& moved_at) const;
  std::string stuck_report() const;
  [[noreturn]] void stop_kernel(KernelResult& r, const std::string& why);

  stats::Registry stats_;
  Engine engine_;
  ClockDomain *core_, *icnt_, *l2_, *dram_;
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
  KernelProjector projector_;
};

}  // namespace ws::timing
