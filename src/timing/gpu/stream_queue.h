// The order CUDA streams impose on a GPU's work, apart from how the work is
// timed: each item (a kernel launch, a host<->device copy, or a marker for an
// event record or an event wait) waits for the item before it on its stream; work on the legacy
// default stream (0) also waits for all work queued before it on blocking
// streams, and work on a blocking stream for the legacy stream's work queued
// before it; an event wait makes later work on its stream wait for the work
// before the event's last record. Markers end as soon as what they wait for
// has ended; the GPU starts and ends kernels and copies (its work items).
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <vector>

#include "common/types.h"

namespace ws::timing {

using StreamId = int64_t;
inline constexpr StreamId kLegacyStream = 0;

class StreamQueue {
 public:
  using Seq = uint64_t;  // items are numbered from 1 in the order queued

  // `blocking`: false for a stream created with cudaStreamNonBlocking (the
  // legacy stream's implicit synchronisation skips it); ignored for stream 0.
  Seq add_kernel(StreamId stream, bool blocking, Cycle called_at);
  Seq add_copy(StreamId stream, bool blocking, Cycle called_at) { return add(stream, blocking, true, called_at, {}); }
  Seq record_event(uint64_t event, StreamId stream, bool blocking, Cycle called_at);
  // An event never recorded is complete: the wait is then a no-op (as in CUDA).
  Seq wait_event(StreamId stream, uint64_t event, bool blocking, Cycle called_at);

  // Work items (kernels, copies) whose dependencies have all ended and that
  // have not started, in the order queued; markers that can end are ended on
  // the way.
  std::vector<Seq> ready_work();
  // The latest end among an item's dependencies and its call (when it may start).
  Cycle ready_at(Seq s) const;
  void start(Seq s) { items_.at(s).started = true; }
  void end(Seq s, Cycle at);

  bool ended(Seq s) const;
  // Every item queued on `stream` (nullopt: on any stream) has ended.
  bool done(std::optional<StreamId> stream = std::nullopt) const;
  // The marker of the event's last record (nullopt: never recorded).
  std::optional<Seq> event_marker(uint64_t event) const;
  std::optional<Cycle> end_of(Seq s) const;

 private:
  struct Item {
    StreamId stream;
    bool work;  // a kernel or a copy (not a marker)
    std::vector<Seq> after;
    Cycle called_at;
    bool started = false;
  };
  Seq add(StreamId stream, bool blocking, bool work, Cycle called_at, std::optional<Seq> also_after);
  bool deps_ended(const Item& i) const;

  std::map<Seq, Item> items_;              // queued or running
  std::map<Seq, Cycle> ends_;              // ended, and when
  std::map<StreamId, Seq> last_;           // the last item queued on each stream
  std::map<StreamId, bool> blocking_;      // streams seen, and whether they are blocking
  std::map<uint64_t, Seq> events_;         // event -> marker of its last record
  Seq next_ = 1;
};

}  // namespace ws::timing
