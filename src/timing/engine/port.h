// A FIFO link between two components. A message pushed with a latency is on
// the wire until `ready`, then waits in the receiver's buffer. The buffer is
// bounded (a full buffer is back-pressure the sender must respect: check
// can_push(now) first); messages still on the wire do not take buffer slots,
// so a long pipelined link is not throttled by a small receive buffer.
#pragma once
#include <cassert>
#include <cstddef>
#include <deque>

#include "common/types.h"

namespace ws::timing {

template <class T>
class Port {
 public:
  explicit Port(size_t capacity = 16) : capacity_(capacity) {}

  // Whether the receiver's buffer has room for what has arrived by `now`.
  // Delivery times are non-decreasing, so the buffer is full exactly when the
  // capacity-th oldest message has arrived.
  bool can_push(Tick now) const { return q_.size() < capacity_ || q_[capacity_ - 1].ready > now; }
  bool empty() const { return q_.empty(); }
  size_t size() const { return q_.size(); }
  size_t capacity() const { return capacity_; }

  void push(T msg, Tick ready) {
    // Keep delivery order FIFO even if a later message has a shorter latency.
    if (!q_.empty() && ready < q_.back().ready) ready = q_.back().ready;
    q_.push_back(Slot{std::move(msg), ready});
  }
  bool ready(Tick now) const { return !q_.empty() && q_.front().ready <= now; }
  // Time the front message becomes visible, kNever when empty.
  Tick next_ready() const { return q_.empty() ? kNever : q_.front().ready; }
  T& front() { return q_.front().msg; }
  const T& front() const { return q_.front().msg; }
  void pop() { q_.pop_front(); }

 private:
  struct Slot {
    T msg;
    Tick ready;
  };
  std::deque<Slot> q_;
  size_t capacity_;
};

}  // namespace ws::timing
