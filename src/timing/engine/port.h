// A FIFO link between two components. A message pushed with a latency is on
// the wire until `ready`, then waits in the receiver's buffer. The buffer is
// bounded (a full buffer is back-pressure the sender must respect: check
// can_push(now) first); messages still on the wire do not take buffer slots,
// so a long pipelined link is not throttled by a small receive buffer.
//
// A port between two partitions of a parallel run (docs/parallel.md) is
// made remote, so that neither end reads what the other end's thread writes
// during a window: the producer's pushes wait in a staging list, and it
// judges room from its own copy of the buffer (the arrival times of what it
// sent), from which the consumer's pops are removed only at the window's
// end. At the window's end (one thread) exchange() moves the staged
// messages into the buffer and tells the producer of the pops since the
// last exchange. So room is the same rule as for a local port, with an
// allowance (`slack`) for the pops the consumer can have made that the
// producer does not know of yet: a producer is never held back where it
// would not be with one engine; it may overfill a stalled consumer's buffer
// by the allowance (those messages wait in it).
#pragma once
#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "common/error.h"
#include "common/types.h"
#include "timing/engine/clocked.h"

namespace ws::timing {

template <class T>
class Port {
 public:
  explicit Port(size_t capacity = 16) : capacity_(capacity) {}

  // Whether the receiver's buffer has room for what has arrived by `now`.
  // Delivery times are non-decreasing, so the buffer is full exactly when the
  // capacity-th oldest message has arrived.
  bool can_push(Tick now) const {
    if (remote_) [[unlikely]] {
      size_t n = sent_.size() - sent_head_, room = capacity_ + slack_;
      return n < room || sent_[sent_head_ + room - 1] > now;
    }
    return size_ < capacity_ || at(capacity_ - 1).ready > now;
  }
  bool empty() const { return size_ == 0; }
  size_t size() const { return size_; }
  size_t capacity() const { return capacity_; }

  // Every push sets `bit` in `*word`: a receiver with many input ports keeps
  // a mask of the non-empty ones instead of polling each (it clears the bit).
  void notify_on_push(uint64_t* word, uint64_t bit) {
    notify_word_ = word;
    notify_bit_ = bit;
  }

  // The components at either end, for the engine's event caching: a push
  // moves the consumer's next event to the message's arrival; a pop wakes
  // the producers that wait for room (wait_for_room). Either may stay
  // unset. Up to kMaxProducers senders sharing the port can be woken;
  // wire_producer() returns false beyond that, and such a sender must not
  // rely on pops to wake it.
  static constexpr size_t kMaxProducers = 4;
  bool wire_producer(Clocked* c) {
    if (n_producers_ == kMaxProducers) return false;
    producers_[n_producers_++] = c;
    return true;
  }
  void wire_consumer(Clocked* c) { consumer_ = c; }
  // A wired producer whose next event waits for room in this port says so
  // (from its next_event()): only such producers are woken by the next pop.
  void wait_for_room(const Clocked* c) {
    for (size_t i = 0; i < n_producers_; ++i)
      if (producers_[i] == c) waiting_ |= static_cast<uint8_t>(1u << i);
  }

  void push(T msg, Tick ready) {
    if (remote_) [[unlikely]] {
      ready = std::max(ready + delay_, sent_.size() > sent_head_ ? sent_.back() : Tick{0});  // FIFO, as deliver() keeps it
      staged_.push_back(Slot{std::move(msg), ready, kNoNote});
      sent_.push_back(ready);
      return;
    }
    deliver(std::move(msg), ready);
  }
  // Remote mode (see the top of this file), with a wire that adds `delay`
  // to each message's arrival and an allowance of `slack` messages.
  void make_remote(Tick delay = 0, size_t slack = 0) {
    remote_ = true;
    delay_ = delay;
    slack_ = slack;
  }
  // Remote mode, between windows: delivers the staged messages, none of
  // which may arrive before `window_end` (the receiver has simulated up to
  // there), and removes the pops since the last exchange from the
  // producer's copy, waking producers that waited for room.
  void exchange(Tick window_end) {
    for (Slot& s : staged_) {
      if (s.ready < window_end)
        throw Error("internal error: a message between partitions arrives inside the window it was sent in");
      deliver(std::move(s.msg), s.ready);
    }
    staged_.clear();
    sent_head_ += returned_;
    if (sent_head_ >= 1024 && sent_head_ * 2 >= sent_.size()) {  // drop what was popped
      sent_.erase(sent_.begin(), sent_.begin() + static_cast<std::ptrdiff_t>(sent_head_));
      sent_head_ = 0;
    }
    if (returned_ > 0) wake_waiting();
    returned_ = 0;
  }

 private:
  void deliver(T msg, Tick ready) {
    if (notify_word_) *notify_word_ |= notify_bit_;
    // Keep delivery order FIFO even if a later message has a shorter latency.
    if (size_ > 0 && ready < at(size_ - 1).ready) ready = at(size_ - 1).ready;
    // The message is visible to the consumer from `ready` on, and nothing
    // else about the consumer changed.
    if (consumer_) consumer_->wake_at(ready);
    if (size_ == ring_.size()) grow();
    ring_[(head_ + size_) & mask_] = Slot{std::move(msg), ready, kNoNote};
    ++size_;
  }

 public:
  bool ready(Tick now) const { return size_ > 0 && ring_[head_].ready <= now; }
  // Time the front message becomes visible, kNever when empty.
  Tick next_ready() const { return size_ == 0 ? kNever : ring_[head_].ready; }
  T& front() { return ring_[head_].msg; }
  const T& front() const { return ring_[head_].msg; }
  // Look-ahead for a consumer that may take a message other than the front
  // (a crossbar with virtual output queues): the i-th oldest message, the
  // time it becomes visible, and its removal (the others keep their order).
  const T& peek(size_t i) const { return at(i).msg; }
  Tick ready_of(size_t i) const { return at(i).ready; }
  // A word the consumer may attach to the i-th oldest waiting message (what
  // it worked out about it once, such as its route); kNoNote until set.
  static constexpr uint32_t kNoNote = ~0u;
  uint32_t note_of(size_t i) const { return at(i).note; }
  void set_note(size_t i, uint32_t v) { ring_[(head_ + i) & mask_].note = v; }
  void erase(size_t i) {
    for (size_t k = i; k > 0; --k) ring_[(head_ + k) & mask_] = std::move(ring_[(head_ + k - 1) & mask_]);
    pop();
  }
  void pop() {
    // Kept in release builds (NDEBUG): popping an empty ring would corrupt
    // its indices silently; the branch is never taken in a correct model.
    if (size_ == 0) [[unlikely]]
      throw Error("internal error: a component popped an empty port");
    head_ = (head_ + 1) & mask_;
    --size_;
    if (remote_) [[unlikely]] {
      ++returned_;  // the producer learns of it at the next exchange
      return;
    }
    wake_waiting();
  }

 private:
  struct Slot {
    T msg;
    Tick ready;
    uint32_t note;
  };
  // A ring buffer (power-of-two size) rather than a deque: every component
  // polls its ports each cycle, and this keeps those reads to one index.
  const Slot& at(size_t i) const { return ring_[(head_ + i) & mask_]; }
  void wake_waiting() {
    if (waiting_ == 0) return;
    for (size_t i = 0; i < n_producers_; ++i)
      if (waiting_ >> i & 1) producers_[i]->wake();
    waiting_ = 0;
  }
  void grow() {
    std::vector<Slot> bigger(std::max<size_t>(8, ring_.size() * 2));
    for (size_t i = 0; i < size_; ++i) bigger[i] = std::move(ring_[(head_ + i) & mask_]);
    ring_ = std::move(bigger);
    head_ = 0;
    mask_ = ring_.size() - 1;
  }
  std::vector<Slot> ring_;
  size_t head_ = 0, size_ = 0, mask_ = 0;
  size_t capacity_;
  uint64_t* notify_word_ = nullptr;
  uint64_t notify_bit_ = 0;
  std::array<Clocked*, kMaxProducers> producers_{};
  size_t n_producers_ = 0;
  uint8_t waiting_ = 0;  // bit i: producers_[i] waits for room
  Clocked* consumer_ = nullptr;
  // Remote mode: the producer's side (staged_, sent_) and the consumer's
  // (the buffer, returned_) are written by different threads within a
  // window and meet only in exchange().
  bool remote_ = false;
  size_t returned_ = 0, slack_ = 0;
  Tick delay_ = 0;
  std::vector<Tick> sent_;  // arrival times of the messages sent and not known to be popped, from sent_head_
  size_t sent_head_ = 0;
  std::vector<Slot> staged_;
};

}  // namespace ws::timing
