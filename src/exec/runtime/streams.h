// Streams and events as the runtime hands them out. Every operation runs to
// completion when issued, so streams only need to exist; events carry the
// simulated time at which they were recorded.
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
  void* create(unsigned flags) { return streams_.add(Stream{flags}); }
  bool destroy(void* stream) { return streams_.remove(stream); }
  // Live handles and the default streams (0, cudaStreamLegacy, cudaStreamPerThread).
  bool valid(const void* stream) const;
  size_t live() const { return streams_.size(); }

 private:
  struct Stream {
    unsigned flags = 0;
  };
  HandleTable<Stream> streams_;
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
