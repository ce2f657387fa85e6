// A resource of the abstract model (an L2 slice's pipeline) booked by
// requests that do not arrive in time order: the model computes each SM's
// accesses when that SM gets to them, so a request booked later may arrive
// earlier. A single next-free time would make such a request queue behind
// bookings for the future; here time is cut into windows of kWindow cycles,
// each able to serve kWindow cycles of work, and a request is served in the
// first windows at or after its arrival that have room (a window's time
// before the arrival is lost to it). Requests in one window are served in
// booking order; their waits are exact to a window.
#pragma once
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>

namespace ws::timing::abstract {

class Calendar {
 public:
  static constexpr uint32_t kWindow = 16;    // cycles
  static constexpr uint32_t kWindows = 512;  // kept ahead of the latest booking (8,192 cycles)

  // Books `cycles` of service for a request arriving at `at`; returns when
  // its service starts.
  double book(double at, double cycles) {
    uint64_t w = window_of(at);
    // Time of the arrival's own window before it cannot serve it.
    double idle = std::max(0.0, at - static_cast<double>(w * kWindow));
    while (std::max(used(w), idle) >= kWindow) {
      ++w;
      idle = 0;
    }
    double& first = used(w);
    first = std::max(first, idle);
    double start = static_cast<double>(w * kWindow) + first;
    for (double left = cycles; left > 0; ++w) {
      double take = std::min(left, kWindow - used(w));
      used(w) += take;
      left -= take;
    }
    return start;
  }

  // The resource serves nothing from `from` until `until` (a stalled pipeline).
  void hold(double from, double until) {
    for (uint64_t w = window_of(from); static_cast<double>(w * kWindow) < until; ++w) {
      double begin = std::max(from, static_cast<double>(w * kWindow));
      double end = std::min(until, static_cast<double>((w + 1) * kWindow));
      used(w) = std::min<double>(kWindow, used(w) + (end - begin));
    }
  }

 private:
  // The window holding `t`; windows older than the ring are full (nothing
  // is booked there any more), those it has not reached yet empty.
  uint64_t window_of(double t) {
    auto w = static_cast<uint64_t>(std::max(0.0, std::floor(t / kWindow)));
    if (w >= first_ + kWindows) advance(w + 1 - kWindows);
    return std::max(w, first_);
  }
  void advance(uint64_t first) {
    for (uint64_t w = first_; w < std::min(first, first_ + kWindows); ++w) used_[w % kWindows] = 0;
    first_ = first;
  }
  double& used(uint64_t w) {
    if (w >= first_ + kWindows) advance(w + 1 - kWindows);
    return used_[w % kWindows];
  }

  std::array<double, kWindows> used_{};  // cycles booked per window, a ring from window first_
  uint64_t first_ = 0;
};

}  // namespace ws::timing::abstract
