// The abstract timing model (gpu.model = abstract; docs/abstract-model.md):
// the detailed model's preset, occupancy, launch accounting and counters,
// with time advanced from event to event. An event is a sub-core that may
// issue at some cycle; the queue holds one per sub-core, in time order, so
// that the memory model's next-free times are advanced in time order too.
#pragma once
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <queue>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "timing/abstract/abstract_sm.h"
#include "timing/abstract/memory_model.h"
#include "timing/model.h"

namespace ws::timing::abstract {

class AbstractGpu final : public TimingModel {
 public:
  explicit AbstractGpu(const config::Config& cfg);
  ~AbstractGpu() override;

  stats::Registry& stats() override { return stats_; }
  const stats::Registry& stats() const override { return stats_; }
  uint32_t num_sms() const override { return static_cast<uint32_t>(sms_.size()); }
  uint32_t max_warps_per_sm() const override { return limits_.max_warps; }
  double core_mhz() const override { return core_mhz_; }
  Cycle core_cycle() const override { return now_; }
  void memcpy_htod(const ir::MemcpyHtoD& copy) override;
  void host_sync() override { host_synced_ = true; }
  Addr code_base(const std::string& kernel_name) override;
  KernelResult run_kernel(ir::KernelSource& kernel, const ProgressFn& progress = {}) override;
  void set_stop_check(StopCheck check) override { stop_check_ = std::move(check); }
  void set_watchdog(uint64_t cycles, const std::string& param) override;
  const BlockTable& blocks() const { return *blocks_; }

  // Streams (abstract_streams.cpp): queued work runs one item at a time in
  // the order queued, so kernels of different streams never overlap here.
  void launch(ir::KernelSource& kernel, StreamId stream, bool blocking_stream = true) override;
  void record_event(uint64_t event, StreamId stream, bool blocking_stream = true) override;
  void wait_event(StreamId stream, uint64_t event, bool blocking_stream = true) override;
  std::vector<KernelResult> synchronize(SyncPoint until = {}, const ProgressFn& progress = {}) override;
  std::vector<KernelResult> take_ended() override { return std::exchange(ended_, {}); }
  std::optional<Cycle> event_cycle(uint64_t event) const override;
  bool streams_idle() const override { return queue_.empty(); }

 private:
  struct Queued {  // a launch (kernel set) or an event record
    ir::KernelSource* kernel;
    uint64_t event;
    StreamId stream;
    bool after_host_sync;
  };
  size_t items_until(const SyncPoint& until) const;
  struct Event {
    Cycle at;
    uint32_t sub;  // sm * subcores + sub-core
    bool operator>(const Event& o) const { return at != o.at ? at > o.at : sub > o.sub; }
  };
  void schedule(uint32_t sm, uint32_t s);
  void dispatch(uint32_t sm, Cycle now);
  void first_wave(Cycle at);
  void after_step(uint32_t sm, Cycle now);
  void check_limits(KernelResult& r, const ProgressFn& progress);
  [[noreturn]] void stop_kernel(KernelResult& r, const std::string& why);
  void finish_result(KernelResult& r, Cycle end);

  stats::Registry stats_;
  SmLimits limits_;
  double core_mhz_;
  Cycle launch_latency_, launch_overhead_, fixed_cycles_;
  uint64_t max_cycles_;
  std::string max_cycles_param_ = "gpu.max_cycles";
  StopCheck stop_check_;
  bool host_synced_ = true;
  Cycle now_ = 0;
  std::unordered_map<std::string, uint32_t> code_regions_;
  std::unique_ptr<MemoryModel> mem_;
  std::unique_ptr<BlockTable> blocks_;
  std::vector<std::unique_ptr<AbstractSm>> sms_;
  uint32_t subcores_ = 1;
  std::vector<Cycle> scheduled_;  // per sub-core: its queued event's time (kNoEvent: none)
  std::priority_queue<Event, std::vector<Event>, std::greater<>> events_;
  ir::KernelSource* kernel_ = nullptr;
  std::unique_ptr<ir::CtaSource> next_cta_;
  Cycle last_cta_end_ = 0;
  bool restart_placement_;  // gpu.cta_placement = restart: a kernel's first CTA goes to SM 0
  size_t rr_ = 0;  // the SM after the one that got the last CTA (the dispatcher's round robin)
  uint64_t steps_ = 0;
  std::deque<Queued> queue_;
  std::map<uint64_t, uint32_t> pending_records_;  // per event: records queued, not yet reached
  std::map<uint64_t, Cycle> event_cycles_;        // per event: when its last record was reached
  std::vector<KernelResult> ended_;               // by the synchronize() under way
};

}  // namespace ws::timing::abstract
