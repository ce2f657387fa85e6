// The built-in warp schedulers.
#include <algorithm>
#include <bit>
#include <vector>

#include "timing/core/warp_scheduler.h"

namespace ws::timing {
namespace {

// Loose round robin: the first ready slot after the one that issued last.
class LrrScheduler : public WarpScheduler {
 public:
  explicit LrrScheduler(const SchedulerArgs& a) : slots_(a.slots) {}
  void on_warp_added(uint32_t, uint64_t) override {}
  uint32_t pick(uint64_t ready) override {
    uint64_t upper = ready & after_last();
    last_ = static_cast<uint32_t>(std::countr_zero(upper ? upper : ready));
    return last_;
  }
  int pick_first(uint64_t candidates, ReadyTest& ready) override {
    uint64_t upper = candidates & after_last();
    for (uint64_t part : {upper, candidates & ~upper})
      for (uint64_t m = part; m; m &= m - 1) {
        auto slot = static_cast<uint32_t>(std::countr_zero(m));
        if (ready(slot)) return static_cast<int>(last_ = slot);
      }
    return -1;
  }

 private:
  uint64_t after_last() const {
    uint32_t start = (last_ + 1) % slots_;
    return ~uint64_t{0} << start;
  }
  uint32_t slots_;
  uint32_t last_ = 0;
};

// Greedy then oldest: keep issuing from the same warp until it stalls, then
// switch to the oldest ready warp.
class GtoScheduler : public WarpScheduler {
 public:
  explicit GtoScheduler(const SchedulerArgs& a) : age_(a.slots, 0) {}
  void on_warp_added(uint32_t slot, uint64_t age) override {
    age_[slot] = age;
    // Ages only grow, so the newest warp goes last in the age order.
    by_age_.erase(std::remove(by_age_.begin(), by_age_.end(), slot), by_age_.end());
    auto at = std::find_if(by_age_.begin(), by_age_.end(), [&](uint32_t s) { return age_[s] > age; });
    by_age_.insert(at, slot);
  }
  uint32_t pick(uint64_t ready) override {
    if (has_last_ && (ready >> last_ & 1)) return last_;
    uint32_t best = static_cast<uint32_t>(std::countr_zero(ready));
    for (uint64_t m = ready & (ready - 1); m; m &= m - 1) {
      uint32_t s = static_cast<uint32_t>(std::countr_zero(m));
      if (age_[s] < age_[best]) best = s;
    }
    return remember(best);
  }
  int pick_first(uint64_t candidates, ReadyTest& ready) override {
    uint64_t last_bit = has_last_ ? uint64_t{1} << last_ : 0;
    if (candidates & last_bit) {
      if (ready(last_)) return static_cast<int>(last_);
      candidates &= ~last_bit;
    }
    for (uint32_t slot : by_age_) {
      if (!candidates) break;
      if (!(candidates >> slot & 1)) continue;
      candidates &= ~(uint64_t{1} << slot);
      if (ready(slot)) return static_cast<int>(remember(slot));
    }
    return -1;
  }

 private:
  uint32_t remember(uint32_t slot) {
    last_ = slot;
    has_last_ = true;
    return slot;
  }
  std::vector<uint64_t> age_;
  std::vector<uint32_t> by_age_;  // slots ever added, oldest first
  uint32_t last_ = 0;
  bool has_last_ = false;
};

const SchedulerRegistrar kLrr{"lrr", "loose round robin over ready warps",
                              [](const SchedulerArgs& a) { return std::make_unique<LrrScheduler>(a); }};
const SchedulerRegistrar kGto{"gto", "greedy-then-oldest",
                              [](const SchedulerArgs& a) { return std::make_unique<GtoScheduler>(a); }};

}  // namespace
}  // namespace ws::timing
