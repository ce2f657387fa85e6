// Partitions of a parallel run (docs/parallel.md): each partition has its
// own Engine (and its own clock domains), and they advance together window
// by window. Windows lie on a fixed grid (window k covers [k w, (k+1) w),
// w = `window` ps); a run skips the windows in which no partition has a
// step, so where they fall does not depend on what is skipped (activity
// gating skips idle stretches, ungated runs step through them: both must
// see the same windows). `window` must not exceed the latency of any link between
// partitions: a message sent inside a window then arrives after it, so each
// partition can simulate the window without seeing the others. Links
// between partitions are remote ports (Port::make_remote); at the end of a
// window they exchange their staged messages and pops, one link after the
// other in the order they were added, on one thread.
//
// The partitions of a window are handed to `threads` threads, the one that
// took longest in the last windows first; which thread runs which, and in
// what order, changes nothing, so results do not depend on the thread count.
// With one thread (or set_serial) they run in the order added.
// An error thrown in a partition is rethrown after the window (the lowest
// partition's, if several threw).
#pragma once
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <deque>
#include <exception>
#include <functional>
#include <memory>
#include <thread>
#include <vector>

#include "timing/engine/engine.h"
#include "timing/engine/port.h"

namespace ws::timing {

// A barrier for a few threads meeting thousands of times a second: it
// spins first (a window is microseconds of work), then sleeps.
class SpinBarrier {
 public:
  SpinBarrier(unsigned threads, uint32_t spins) : threads_(threads), spins_(spins), budget_(spins) {}
  void arrive_and_wait();

 private:
  static constexpr uint32_t kMinSpins = 16;
  const unsigned threads_;
  const uint32_t spins_;             // the most checks before sleeping
  std::atomic<uint32_t> budget_;     // checks before sleeping now (adapts, see arrive_and_wait)
  std::atomic<unsigned> arrived_{0};
  std::atomic<uint64_t> generation_{0};
};

class Partitions {
 public:
  Partitions(Tick window, unsigned threads);
  ~Partitions();
  Partitions(const Partitions&) = delete;
  Partitions& operator=(const Partitions&) = delete;

  // A new partition's engine (it never moves).
  Engine& add();
  Engine& partition(size_t i) { return *engines_[i]; }
  size_t size() const { return engines_.size(); }
  // Makes `port` a link between partitions with a wire of `delay` and an
  // allowance of `slack` messages (see Port::make_remote).
  template <class T>
  void link(Port<T>& port, Tick delay = 0, size_t slack = 0) {
    port.make_remote(delay, slack);
    links_.push_back([&port](Tick end) { port.exchange(end); });
  }

  // Runs one window and the exchange after it. False, with nothing done,
  // when no partition has work (links hold nothing between windows).
  bool run_window();
  // The same in steps, for work done between windows on the calling thread
  // (the GPU's CTA dispatch): the earliest next step of any partition
  // (kNever: none has work); the start of the window that holds work at
  // `t`, which run_window_at(t) then runs.
  Tick next_time();
  Tick window_start(Tick t) const { return std::max(t - t % window_, end_); }
  void run_window_at(Tick t);
  Tick window() const { return window_; }
  // The end of the last window run (0 before the first).
  Tick end() const { return end_; }
  // The engine stepping on the calling thread (nullptr outside a window).
  static const Engine* current();
  // CPUs this process may run on.
  static unsigned host_cpus();
  // Threads that run the windows: gpu.threads, at most one per partition.
  unsigned threads() const { return std::min<unsigned>(threads_, static_cast<unsigned>(engines_.size())); }
  // Runs each window's partitions one after the other on the calling
  // thread, in the order added, whatever the thread count (for work that
  // must not run concurrently: the same results either way).
  void set_serial(bool on) { serial_ = on; }

 private:
  using Link = std::function<void(Tick)>;  // a link's exchange at a window's end
  void start_threads();
  void run_partition(size_t i);
  void run_partitions();  // on each thread: takes partitions until none is left
  void worker();
  void exchange();
  void reorder();

  Tick window_;
  unsigned threads_;
  std::deque<std::unique_ptr<Engine>> engines_;
  std::vector<Link> links_;
  Tick end_ = 0;
  // This window's work: partitions are taken in `order_` (longest host time
  // in the last windows first, so that the longest one does not start last);
  // each one's error and host time.
  std::atomic<size_t> next_{0};
  std::vector<size_t> order_;
  std::vector<double> cost_;
  std::vector<std::exception_ptr> errors_;
  bool stop_ = false, started_ = false, serial_ = false;
  std::unique_ptr<SpinBarrier> start_, done_;
  std::vector<std::thread> workers_;
};

}  // namespace ws::timing
