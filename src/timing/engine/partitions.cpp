#include "timing/engine/partitions.h"

#include <algorithm>
#include <chrono>
#include <thread>
#include <utility>

#include <sched.h>

#include "common/error.h"

namespace ws::timing {

// The last to arrive starts the next generation; the others watch for it,
// spinning for a while (up to tens of microseconds) before they sleep on it.
// The spin budget adapts: a wait that ended in sleep cuts it (the thread
// waited for was not running: other processes share the cores, as under
// `ctest -j` or a sweep's parallel points), one that ended while spinning
// doubles it back towards the ceiling.
void SpinBarrier::arrive_and_wait() {
  uint64_t gen = generation_.load(std::memory_order_acquire);
  if (arrived_.fetch_add(1, std::memory_order_acq_rel) + 1 == threads_) {
    arrived_.store(0, std::memory_order_relaxed);
    generation_.fetch_add(1, std::memory_order_release);
    generation_.notify_all();
    return;
  }
  const uint32_t budget = budget_.load(std::memory_order_relaxed);
  bool slept = false;
  for (uint32_t spins = 0; generation_.load(std::memory_order_acquire) == gen; ++spins) {
    if (spins < budget) {
#if defined(__x86_64__) || defined(__i386__)
      __builtin_ia32_pause();
#else
      std::this_thread::yield();
#endif
    } else {
      slept = true;
      generation_.wait(gen, std::memory_order_acquire);
    }
  }
  if (spins_ == 0) return;
  uint32_t next = slept ? std::max(budget / 4, kMinSpins) : std::min(budget * 2, spins_);
  if (next != budget) budget_.store(next, std::memory_order_relaxed);
}

// The affinity mask, which a container or `taskset` narrows, else what the
// library reports.
unsigned Partitions::host_cpus() {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof(set), &set) == 0 && CPU_COUNT(&set) > 0) return static_cast<unsigned>(CPU_COUNT(&set));
  return std::max(1u, std::thread::hardware_concurrency());
}

Partitions::Partitions(Tick window, unsigned threads) : window_(window), threads_(std::max(1u, threads)) {
  if (window_ == 0) throw Error("internal error: a parallel run needs a window of at least 1 ps");
}

// At the first window: no more threads than partitions (a thread without
// one would only wait at the barriers).
void Partitions::start_threads() {
  threads_ = std::min<unsigned>(threads_, static_cast<unsigned>(engines_.size()));
  started_ = true;
  if (threads_ <= 1) return;
  // Spinning on a host with fewer cores than threads only delays the thread
  // being waited for.
  uint32_t spins = host_cpus() >= threads_ ? 20000 : 0;
  start_ = std::make_unique<SpinBarrier>(threads_, spins);
  done_ = std::make_unique<SpinBarrier>(threads_, spins);
  for (unsigned i = 1; i < threads_; ++i) workers_.emplace_back([this] { worker(); });
}

Partitions::~Partitions() {
  if (workers_.empty()) return;
  stop_ = true;
  start_->arrive_and_wait();
  for (std::thread& t : workers_) t.join();
}

Engine& Partitions::add() {
  engines_.push_back(std::make_unique<Engine>());
  errors_.resize(engines_.size());
  order_.push_back(order_.size());
  cost_.push_back(0);
  return *engines_.back();
}

void Partitions::worker() {
  for (;;) {
    start_->arrive_and_wait();
    if (stop_) return;
    run_partitions();
    done_->arrive_and_wait();
  }
}

// Each partition steps through every event before the window's end. The
// engines share nothing inside a window, so they may run on any thread.
namespace {
thread_local const Engine* tls_current = nullptr;
}  // namespace

const Engine* Partitions::current() { return tls_current; }

void Partitions::run_partition(size_t i) {
  tls_current = engines_[i].get();
  try {
    while (engines_[i]->step_before(end_)) {
    }
  } catch (...) {
    errors_[i] = std::current_exception();
  }
  tls_current = nullptr;
}

void Partitions::run_partitions() {
  for (size_t n; (n = next_.fetch_add(1, std::memory_order_relaxed)) < engines_.size();) {
    size_t i = order_[n];
    auto begin = std::chrono::steady_clock::now();
    run_partition(i);
    std::chrono::duration<double> took = std::chrono::steady_clock::now() - begin;
    cost_[i] = 0.9 * cost_[i] + 0.1 * took.count();  // smoothed over the last windows
  }
}

// Longest first (a stable sort: ties keep the order added). Only the host
// time of the threads changes with the order, never a result.
void Partitions::reorder() {
  std::stable_sort(order_.begin(), order_.end(), [this](size_t a, size_t b) { return cost_[a] > cost_[b]; });
}

bool Partitions::run_window() {
  Tick t = next_time();
  if (t == kNever) return false;
  run_window_at(t);
  return true;
}

// Links hold nothing between windows (each window ends with an exchange), so
// the partitions' next steps say all there is to do.
Tick Partitions::next_time() {
  Tick t = kNever;
  for (auto& e : engines_) t = std::min(t, e->next_time());
  return t;
}

void Partitions::run_window_at(Tick t) {
  if (!started_) start_threads();
  end_ = window_start(t) + window_;
  next_.store(0, std::memory_order_relaxed);
  if (workers_.empty() || serial_) {
    for (size_t i = 0; i < engines_.size(); ++i) run_partition(i);
  } else {
    reorder();
    start_->arrive_and_wait();  // the workers see end_, next_ and order_ (the barrier orders memory)
    run_partitions();
    done_->arrive_and_wait();
  }
  for (std::exception_ptr& e : errors_)
    if (e) std::rethrow_exception(std::exchange(e, nullptr));
  exchange();
}

// Every partition is done with the window: its time moves to the window's
// end (a member woken by the exchange must not tick before it), then the
// links deliver.
void Partitions::exchange() {
  for (auto& e : engines_) e->advance_to(end_);
  for (Link& l : links_) l(end_);
}

}  // namespace ws::timing
