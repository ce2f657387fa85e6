#include "timing/gpu/stream_queue.h"

#include <algorithm>

namespace ws::timing {

StreamQueue::Seq StreamQueue::add(StreamId stream, bool blocking, bool work, Cycle called_at,
                                  std::optional<Seq> also_after) {
  Item item{stream, work, {}, called_at};
  auto wait_for = [&](Seq s) {
    if (s != 0 && !ended(s)) item.after.push_back(s);
  };
  if (auto it = last_.find(stream); it != last_.end()) wait_for(it->second);
  if (stream == kLegacyStream) {
    for (const auto& [other, seq] : last_)
      if (other != kLegacyStream && blocking_[other]) wait_for(seq);
  } else {
    blocking_[stream] = blocking;
    if (blocking)
      if (auto it = last_.find(kLegacyStream); it != last_.end()) wait_for(it->second);
  }
  if (also_after) wait_for(*also_after);
  Seq s = next_++;
  items_.emplace(s, std::move(item));
  last_[stream] = s;
  return s;
}

StreamQueue::Seq StreamQueue::add_kernel(StreamId stream, bool blocking, Cycle called_at) {
  return add(stream, blocking, true, called_at, std::nullopt);
}

StreamQueue::Seq StreamQueue::record_event(uint64_t event, StreamId stream, bool blocking, Cycle called_at) {
  Seq s = add(stream, blocking, false, called_at, std::nullopt);
  events_[event] = s;
  return s;
}

StreamQueue::Seq StreamQueue::wait_event(StreamId stream, uint64_t event, bool blocking, Cycle called_at) {
  return add(stream, blocking, false, called_at, event_marker(event));
}

bool StreamQueue::deps_ended(const Item& i) const {
  return std::all_of(i.after.begin(), i.after.end(), [&](Seq d) { return ended(d); });
}

Cycle StreamQueue::ready_at(Seq s) const {
  const Item& i = items_.at(s);
  Cycle at = i.called_at;
  for (Seq d : i.after) at = std::max(at, ends_.at(d));
  return at;
}

std::vector<StreamQueue::Seq> StreamQueue::ready_work() {
  std::vector<Seq> ready;
  // Items only wait for earlier ones: one pass in order ends every marker
  // whose dependencies (markers ended earlier in the pass included) have.
  for (auto it = items_.begin(); it != items_.end();) {
    Seq s = it->first;
    const Item& item = it->second;
    ++it;  // (end() erases a marker)
    if (item.started || !deps_ended(item)) continue;
    if (item.work) ready.push_back(s);
    else end(s, ready_at(s));
  }
  return ready;
}

void StreamQueue::end(Seq s, Cycle at) {
  items_.erase(s);
  ends_[s] = at;
}

bool StreamQueue::ended(Seq s) const { return s < next_ && !items_.count(s); }

bool StreamQueue::done(std::optional<StreamId> stream) const {
  if (!stream) return items_.empty();
  return std::none_of(items_.begin(), items_.end(), [&](const auto& i) { return i.second.stream == *stream; });
}

std::optional<StreamQueue::Seq> StreamQueue::event_marker(uint64_t event) const {
  auto it = events_.find(event);
  if (it == events_.end()) return std::nullopt;
  return it->second;
}

std::optional<Cycle> StreamQueue::end_of(Seq s) const {
  auto it = ends_.find(s);
  if (it == ends_.end()) return std::nullopt;
  return it->second;
}

}  // namespace ws::timing
