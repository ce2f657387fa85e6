#include "exec/runtime/streams.h"

namespace ws::runtime {

bool StreamTable::valid(const void* stream) const {
  return reinterpret_cast<uintptr_t>(stream) <= 2 || streams_.find(stream) != nullptr;
}

int64_t StreamTable::number(const void* stream) const {
  auto h = reinterpret_cast<uintptr_t>(stream);
  if (h <= 2) return h == 2 ? 1 : 0;  // 0 and cudaStreamLegacy (1): the legacy stream; cudaStreamPerThread (2)
  return streams_.find(stream)->number;
}

bool StreamTable::blocking(const void* stream) const {
  if (reinterpret_cast<uintptr_t>(stream) <= 2) return true;
  return (streams_.find(stream)->flags & kNonBlocking) == 0;
}

bool EventTable::record(void* event, double now_ns) {
  Event* e = events_.find(event);
  if (e == nullptr) return false;
  e->recorded_ns = now_ns;
  return true;
}

bool EventTable::recorded(const void* event) const {
  const Event* e = events_.find(event);
  return e != nullptr && e->recorded_ns.has_value();
}

std::optional<float> EventTable::elapsed_ms(const void* start, const void* end) const {
  const Event* a = events_.find(start);
  const Event* b = events_.find(end);
  if (!a || !b || !a->recorded_ns || !b->recorded_ns) return std::nullopt;
  if ((a->flags | b->flags) & kDisableTiming) return std::nullopt;
  return static_cast<float>((*b->recorded_ns - *a->recorded_ns) / 1e6);
}

}  // namespace ws::runtime
