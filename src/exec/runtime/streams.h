// Streams and events as the runtime hands them out. Functional mode runs
// every operation when issued; timing mode queues kernels on their streams
// (exec::Device), which know each other by number: 0 the legacy default
// stream, 1 the per-thread default stream, 2, 3, ... the created streams in
// order of creation (numbers, not handles, so that traces are the same on
// every run). Events carry the simulated time at which they completed.
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <optional>

namespace ws::runtime {

// Objects owned by the table, known to the program by their address.
template <typename T>
class HandleTable {
 public:
  void* add(T value) {
    auto owned = std::make_unique<T>(std::move(value));
    void* handle = owned.get();
    items_.emplace(handle, std::move(owned));
    return handle;
  }
  bool remove(const void* handle) { return items_.erase(handle) != 0; }
  T* find(const void* handle) const {
    auto it = items_.find(handle);
    return it == items_.end() ? nullptr : it->second.get();
  }
  size_t size() const { return items_.size(); }

 private:
  std::map<const void*, std::unique_ptr<T>> items_;
};

class StreamTable {
 public:
  // An opaque, unique handle (never 0, 1 or 2, which name the default streams).
  static constexpr unsigned kNonBlocking = 0x01;  // cudaStreamNonBlocking
  void* create(unsigned flags) {
    nonblocking_ += (flags & kNonBlocking) != 0;
    return streams_.add(Stream{flags, next_id_++});
  }
  bool destroy(void* stream) {
    const Stream* s = streams_.find(stream);
    if (s && (s->flags & kNonBlocking)) --nonblocking_;
    return streams_.remove(stream);
  }
  // Live streams created with cudaStreamNonBlocking.
  size_t nonblocking() const { return nonblocking_; }
  // Live handles and the default streams (0, cudaStreamLegacy, cudaStreamPerThread).
  bool valid(const void* stream) const;
  size_t live() const { return streams_.size(); }
  // The stream's number, and whether it synchronises with the legacy stream
  // (the handle must be valid).
  int64_t number(const void* stream) const;
  bool blocking(const void* stream) const;

 private:
  struct Stream {
    unsigned flags = 0;
    int64_t number = 0;
  };
  HandleTable<Stream> streams_;
  int64_t next_id_ = 2;
  size_t nonblocking_ = 0;
};

class EventTable {
 public:
  static constexpr unsigned kDisableTiming = 0x02;  // cudaEventDisableTiming
  void* create(unsigned flags) { return events_.add(Event{flags, std::nullopt}); }
  bool destroy(void* event) { return events_.remove(event); }
  bool valid(const void* event) const { return events_.find(event) != nullptr; }
  // false when the handle is unknown.
  bool record(void* event, double now_ns);
  bool recorded(const void* event) const;
  // Milliseconds from `start` to `end`; nullopt when either is unknown, not
  // yet recorded, or created with timing disabled (CUDA answers all three
  // with cudaErrorInvalidResourceHandle).
  std::optional<float> elapsed_ms(const void* start, const void* end) const;

 private:
  struct Event {
    unsigned flags = 0;
    std::optional<double> recorded_ns;
  };
  HandleTable<Event> events_;
};

}  // namespace ws::runtime
