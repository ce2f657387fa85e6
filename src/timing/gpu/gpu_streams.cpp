// Kernels between their start and end, run alone (run_kernel) or together
// on streams (launch, synchronize).
#include <algorithm>

#include "timing/core/sm.h"
#include "timing/gpu/gpu.h"

namespace ws::timing {

std::unique_ptr<Gpu::Running> Gpu::begin(ir::KernelSource& kernel, Cycle gap, Cycle start, bool alone) {
  const ir::KernelInfo& info = kernel.info();
  auto k = std::make_unique<Running>();
  k->source = &kernel;
  k->result = start_result(info, limits_);
  KernelResult& r = k->result;
  SmKernel& c = k->ctx;
  c.id = info.id;
  c.code_base = code_base(info.name);
  c.unit_of = sms_.front()->map_units(info, kernel.unit_names());
  c.needs = cta_needs(limits_, info);
  c.max_ctas_per_sm = r.occupancy.ctas_per_sm;
  c.shared_kb = r.occupancy.shared_kb;
  c.l1_kb = r.occupancy.l1_kb;
  c.size_for(sms_.size());
  // A kernel with the GPU to itself starts with fresh per-kernel SM state;
  // one joining running kernels takes each SM as it is.
  if (alone)
    for (auto& sm : sms_) sm->prepare_alone(c);
  r.before = stats_.snapshot();
  r.launch_gap = gap;
  r.start_cycle = start;
  r.attributed = true;
  dispatcher_->add(kernel, c, start + fixed_cycles_);
  wake_all();
  return k;
}

KernelResult Gpu::end(Running& k) {
  finish_result(k);
  if (projector_.enabled()) {
    // An execution-driven source still runs the CTAs not dispatched
    // (functionally); reading them tells the projection what work they hold.
    uint64_t rest = dispatcher_->drain_undispatched(k.ctx);
    k.result.projection = projector_.project(core_now(), dispatcher_->ctas_dispatched(k.ctx), rest);
  }
  dispatcher_->remove(k.ctx);
  if (k.seq) streams_.end(k.seq, core_now());
  return k.result;
}

// One engine step, with the checks that stop a run: a deadlock, the cycle
// limit, no progress, the stop check (for the oldest running kernel).
void Gpu::step(Running& oldest, Watch& watch, const ProgressFn& progress) {
  const std::string& name = oldest.result.name;
  if (!advance())
    throw Error("simulation deadlock in kernel '" + name + "': nothing can make progress at core cycle " +
                std::to_string(core_now()) + stuck_report());
  if (projector_.stable(core_now(), dispatcher_->ctas_dispatched(oldest.ctx))) dispatcher_->stop_dispatch(oldest.ctx);
  Cycle now = reached_cycle();
  Cycle elapsed = now > oldest.result.start_cycle ? now - oldest.result.start_cycle : 0;
  if (max_cycles_ && elapsed > max_cycles_)
    stop_kernel(oldest, "kernel '" + name + "' exceeded " + max_cycles_param_ + " = " + std::to_string(max_cycles_) +
                            " (its partial results are kept)");
  if ((++watch.steps & (windowed_ ? 0xff : 0x3fff)) == 0) {
    check_progress(name, watch.moved, watch.moved_at);
    if (progress) progress(elapsed);
    if (stop_check_)
      if (std::string why = stop_check_(); !why.empty()) stop_kernel(oldest, why + " in kernel '" + name + "'");
  }
}

void Gpu::launch(ir::KernelSource& kernel, StreamId stream, bool blocking_stream) {
  StreamQueue::Seq s = streams_.add_kernel(stream, blocking_stream, core_now());
  queued_.emplace(s, Queued{&kernel, host_synced_});
  host_synced_ = false;
}

void Gpu::record_event(uint64_t event, StreamId stream, bool blocking_stream) {
  streams_.record_event(event, stream, blocking_stream, core_now());
}

void Gpu::wait_event(StreamId stream, uint64_t event, bool blocking_stream) {
  streams_.wait_event(stream, event, blocking_stream, core_now());
}

std::optional<Cycle> Gpu::event_cycle(uint64_t event) const {
  auto marker = streams_.event_marker(event);
  return marker ? streams_.end_of(*marker) : std::nullopt;
}

bool Gpu::queue_copy(CopyWork work, StreamId stream, bool blocking_stream) {
  StreamQueue::Seq s = streams_.add_copy(stream, blocking_stream, core_now());
  copy_work_.emplace(s, std::move(work));
  host_synced_ = false;  // a launch after it is queued behind it, not behind a host wait
  return true;
}

// Starts the work whose turn has come, in the order it was queued: copies on
// their engines (no limit), kernels up to gpu.max_concurrent_kernels (under
// sampling.project_kernels, one at a time). A launch made after a host
// synchronisation pays the launch latency; one queued behind other work
// pays the launch overhead after its turn comes, and starts no sooner than
// that after the kernel started before it (the front end takes launches one
// at a time).
void Gpu::start_ready_work() {
  for (StreamQueue::Seq s : streams_.ready_work()) {
    if (start_copy(s)) continue;
    if (running_.size() >= max_concurrent_ || (projector_.enabled() && !running_.empty())) continue;
    Queued q = queued_.at(s);
    queued_.erase(s);
    streams_.start(s);
    Cycle now = core_now();
    Cycle start = now + (q.after_host_sync ? launch_latency_ : launch_overhead_);
    if (!q.after_host_sync && !running_.empty()) start = std::max(start, last_start_ + launch_overhead_);
    last_start_ = start;
    running_.push_back(begin(*q.source, start - now, start, running_.empty()));
    running_.back()->seq = s;
    if (projector_.enabled()) begin_projection(running_.back()->result, q.source->info());
    if (running_.size() > 1)
      for (auto& k : running_) k->result.shared_gpu = true;
  }
}

// A copy's data moves when it starts (what it waits for has ended); its
// engine then holds it for its duration. False: `s` is not a copy.
bool Gpu::start_copy(StreamQueue::Seq s) {
  auto it = copy_work_.find(s);
  if (it == copy_work_.end()) return false;
  CopyWork& w = it->second;
  streams_.start(s);
  if (w.perform) std::exchange(w.perform, {})();
  copies_->start(s, w.dir, w.bytes, core_now());
  wake_all();
  return true;
}

// Copies that ended: their stream turn passes on; an upload's lines are in
// the L2 now (written through it, as gpu-facts.md says the copy engine does).
void Gpu::end_copies() {
  if (!copies_->any_ended()) return;  // (every engine step comes here)
  std::vector<CopyEngines::Ended> ended = copies_->take_ended();
  for (const CopyEngines::Ended& c : ended) {
    const CopyWork& w = copy_work_.at(c.id);
    if (w.dir == CopyDirection::HostToDevice) warm_l2(w.device_addr, w.bytes);
    streams_.end(c.id, c.at);
    copy_work_.erase(c.id);
  }
  if (!ended.empty()) {
    wake_all();
    start_ready_work();
  }
}

bool Gpu::sync_reached(const SyncPoint& until) const {
  switch (until.kind) {
    case SyncPoint::Kind::Stream: return streams_.done(until.id);
    case SyncPoint::Kind::Event: {
      auto marker = streams_.event_marker(static_cast<uint64_t>(until.id));
      return !marker || streams_.ended(*marker);
    }
    case SyncPoint::Kind::Device: break;
  }
  return streams_.done();
}

// A kernel ends when its CTAs are done; the last one running also waits for
// its stores to reach the L2 (as in run_kernel). One that ends while others
// run does not: the memory system is never idle then, and its stores drain
// among theirs.
std::vector<KernelResult> Gpu::synchronize(SyncPoint until, const ProgressFn& progress) {
  ended_.clear();
  start_ready_work();
  Watch watch{0, progress_count(), reached_cycle()};
  while (!sync_reached(until)) {
    if (!running_.empty()) step(*running_.front(), watch, progress);
    else if (!copies_->busy() || !advance())
      throw Error("internal: stream work waits with no kernel or copy running");
    end_copies();
    for (size_t i = 0; i < running_.size();) {
      Running& k = *running_[i];
      if (!dispatcher_->done(k.ctx) || (running_.size() == 1 && !memory_quiescent())) {
        ++i;
        continue;
      }
      ended_.push_back(end(k));
      running_.erase(running_.begin() + static_cast<std::ptrdiff_t>(i));
      start_ready_work();
    }
  }
  return std::exchange(ended_, {});
}

}  // namespace ws::timing
