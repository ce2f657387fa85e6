// The built-in warp schedulers.
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
    uint32_t start = (last_ + 1) % slots_;
    uint64_t upper = ready & (~uint64_t{0} << start);
    last_ = static_cast<uint32_t>(std::countr_zero(upper ? upper : ready));
    return last_;
  }

 private:
  uint32_t slots_;
  uint32_t last_ = 0;
};

// Greedy then oldest: keep issuing from the same warp until it stalls, then
// switch to the oldest ready warp.
class GtoScheduler : public WarpScheduler {
 public:
  explicit GtoScheduler(const SchedulerArgs& a) : age_(a.slots, 0) {}
  void on_warp_added(uint32_t slot, uint64_t age) override { age_[slot] = age; }
  uint32_t pick(uint64_t ready) override {
    if (has_last_ && (ready >> last_ & 1)) return last_;
    uint32_t best = static_cast<uint32_t>(std::countr_zero(ready));
    for (uint64_t m = ready & (ready - 1); m; m &= m - 1) {
      uint32_t s = static_cast<uint32_t>(std::countr_zero(m));
      if (age_[s] < age_[best]) best = s;
    }
    last_ = best;
    has_last_ = true;
    return best;
  }

 private:
  std::vector<uint64_t> age_;
  uint32_t last_ = 0;
  bool has_last_ = false;
};

const SchedulerRegistrar kLrr{"lrr", "loose round robin over ready warps",
                              [](const SchedulerArgs& a) { return std::make_unique<LrrScheduler>(a); }};
const SchedulerRegistrar kGto{"gto", "greedy-then-oldest",
                              [](const SchedulerArgs& a) { return std::make_unique<GtoScheduler>(a); }};

}  // namespace
}  // namespace ws::timing
