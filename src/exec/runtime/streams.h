// Streams and events as the runtime hands them out. Every operation runs to
// completion when issued, so streams only need to exist; events carry the
// simulated time at which they were recorded.
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <optional>

namespace ws::runtime {

class StreamTable {
 public:
  // An opaque, unique handle (never 0, 1 or 2, which name the default streams).
  void* create(unsigned flags);
  bool destroy(void* stream);
  // Live handles and the default streams (0, cudaStreamLegacy, cudaStreamPerThread).
  bool valid(const void* stream) const;
  size_t live() const { return streams_.size(); }

 private:
  struct Stream { unsigned flags = 0; };
  std::map<const void*, std::unique_ptr<Stream>> streams_;
};

class EventTable {
 public:
  static constexpr unsigned kDisableTiming = 0x02;  // cudaEventDisableTiming
  void* create(unsigned flags);
  bool destroy(void* event);
  bool valid(const void* event) const { return events_.count(event) != 0; }
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
  const Event* find(const void* event) const;
  std::map<const void*, std::unique_ptr<Event>> events_;
};

}  // namespace ws::runtime
