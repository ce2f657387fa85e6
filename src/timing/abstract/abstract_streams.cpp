// Streams in the abstract model: queued work runs one item at a time, in the
// order it was queued (docs/abstract-model.md). That order is one that CUDA's
// stream rules allow, so results and event times are those of a GPU that
// never overlaps kernels; the detailed model runs them together.
#include <utility>

#include "timing/abstract/abstract_gpu.h"

namespace ws::timing::abstract {

void AbstractGpu::launch(ir::KernelSource& kernel, StreamId stream, bool /*blocking_stream*/) {
  queue_.push_back(Queued{&kernel, 0, stream, host_synced_});
  host_synced_ = false;
}

void AbstractGpu::record_event(uint64_t event, StreamId stream, bool /*blocking_stream*/) {
  queue_.push_back(Queued{nullptr, event, stream, false});
  ++pending_records_[event];
}

// Everything queued before the wait runs before what follows it: nothing to do.
void AbstractGpu::wait_event(StreamId /*stream*/, uint64_t /*event*/, bool /*blocking_stream*/) {}

std::optional<Cycle> AbstractGpu::event_cycle(uint64_t event) const {
  auto pending = pending_records_.find(event);
  if (pending != pending_records_.end() && pending->second > 0) return std::nullopt;
  auto it = event_cycles_.find(event);
  if (it == event_cycles_.end()) return std::nullopt;
  return it->second;
}

// How many queued items must run for the sync point: all of them, or up to
// the last one on the stream, or up to the event's last record.
size_t AbstractGpu::items_until(const SyncPoint& until) const {
  if (until.kind == SyncPoint::Kind::Device) return queue_.size();
  size_t n = 0;
  for (size_t i = 0; i < queue_.size(); ++i) {
    const Queued& q = queue_[i];
    bool stream_item = until.kind == SyncPoint::Kind::Stream && q.stream == until.id;
    bool event_record = until.kind == SyncPoint::Kind::Event && !q.kernel && q.event == static_cast<uint64_t>(until.id);
    if (stream_item || event_record) n = i + 1;
  }
  return n;
}

std::vector<KernelResult> AbstractGpu::synchronize(SyncPoint until, const ProgressFn& progress) {
  ended_.clear();
  for (size_t n = items_until(until); n > 0; --n) {
    Queued q = queue_.front();
    queue_.pop_front();
    if (!q.kernel) {
      event_cycles_[q.event] = now_;
      --pending_records_[q.event];
      continue;
    }
    host_synced_ = q.after_host_sync;
    ended_.push_back(run_kernel(*q.kernel, progress));  // a throw leaves ended_ to take_ended()
  }
  return std::exchange(ended_, {});
}

}  // namespace ws::timing::abstract
