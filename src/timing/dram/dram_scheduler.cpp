#include "timing/dram/dram_scheduler.h"

#include <memory>

namespace ws::timing {
namespace {

// Strict arrival order: only the oldest eligible request may issue.
class FcfsScheduler : public DramScheduler {
 public:
  DramChoice pick(const std::vector<DramBankView>& banks) const override {
    int best = -1;
    for (size_t b = 0; b < banks.size(); ++b)
      if (banks[b].has_request && (best < 0 || banks[b].oldest_age < banks[size_t(best)].oldest_age))
        best = static_cast<int>(b);
    if (best < 0 || !banks[size_t(best)].oldest_issuable) return {};
    return {best, false};
  }
};

// First-ready FCFS: the oldest ready row hit, else the oldest request whose
// next command can issue without closing a row that others still hit.
class FrFcfsScheduler : public DramScheduler {
 public:
  DramChoice pick(const std::vector<DramBankView>& banks) const override {
    int hit = -1, other = -1;
    for (size_t b = 0; b < banks.size(); ++b) {
      const DramBankView& v = banks[b];
      if (v.has_hit && v.hit_issuable && (hit < 0 || v.hit_age < banks[size_t(hit)].hit_age))
        hit = static_cast<int>(b);
      if (v.has_request && v.oldest_issuable && !v.has_hit &&
          (other < 0 || v.oldest_age < banks[size_t(other)].oldest_age))
        other = static_cast<int>(b);
    }
    if (hit >= 0) return {hit, true};
    return {other, false};
  }
};

const PluginRegistrar<DramScheduler> kFcfsReg{"fcfs", "first come, first served",
                                              [] { return std::make_unique<FcfsScheduler>(); }};
const PluginRegistrar<DramScheduler> kFrFcfsReg{"frfcfs", "open-row hits first, then oldest",
                                                [] { return std::make_unique<FrFcfsScheduler>(); }};

}  // namespace
}  // namespace ws::timing
