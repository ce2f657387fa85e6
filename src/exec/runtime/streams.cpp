#include "exec/runtime/streams.h"

namespace ws::runtime {

void* StreamTable::create(unsigned flags) {
  auto s = std::make_unique<Stream>();
  s->flags = flags;
  void* handle = s.get();
  streams_.emplace(handle, std::move(s));
  return handle;
}

bool StreamTable::destroy(void* stream) { return streams_.erase(stream) != 0; }

bool StreamTable::valid(const void* stream) const {
  auto v = reinterpret_cast<uintptr_t>(stream);
  return v <= 2 || streams_.count(stream) != 0;
}

void* EventTable::create(unsigned flags) {
  auto e = std::make_unique<Event>();
  e->flags = flags;
  void* handle = e.get();
  events_.emplace(handle, std::move(e));
  return handle;
}

bool EventTable::destroy(void* event) { return events_.erase(event) != 0; }

const EventTable::Event* EventTable::find(const void* event) const {
  auto it = events_.find(event);
  return it == events_.end() ? nullptr : it->second.get();
}

bool EventTable::record(void* event, double now_ns) {
  auto it = events_.find(event);
  if (it == events_.end()) return false;
  it->second->recorded_ns = now_ns;
  return true;
}

bool EventTable::recorded(const void* event) const {
  const Event* e = find(event);
  return e != nullptr && e->recorded_ns.has_value();
}

std::optional<float> EventTable::elapsed_ms(const void* start, const void* end) const {
  const Event* a = find(start);
  const Event* b = find(end);
  if (!a || !b || !a->recorded_ns || !b->recorded_ns) return std::nullopt;
  if ((a->flags | b->flags) & kDisableTiming) return std::nullopt;
  return static_cast<float>((*b->recorded_ns - *a->recorded_ns) / 1e6);
}

}  // namespace ws::runtime
