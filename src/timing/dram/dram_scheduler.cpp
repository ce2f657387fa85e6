#include "timing/dram/dram_scheduler.h"

#include <memory>

namespace ws::timing {
namespace {

// Strict arrival order: only the oldest eligible request may issue.
class FcfsScheduler : public DramScheduler {
 public:
  DramChoice pick(std::span<const DramBankView> banks) const override {
    const DramBankView* best = nullptr;
    for (const DramBankView& v : banks)
      if (!best || v.oldest_age < best->oldest_age) best = &v;
    if (!best || !best->oldest_issuable) return {};
    return {best->bank, false};
  }
};

// First-ready FCFS: the oldest ready row hit, else the oldest request whose
// next command can issue without closing a row that others still hit.
class FrFcfsScheduler : public DramScheduler {
 public:
  DramChoice pick(std::span<const DramBankView> banks) const override {
    const DramBankView *hit = nullptr, *other = nullptr;
    for (const DramBankView& v : banks) {
      if (v.has_hit && v.hit_issuable && (!hit || v.hit_age < hit->hit_age)) hit = &v;
      if (v.oldest_issuable && !v.has_hit && (!other || v.oldest_age < other->oldest_age)) other = &v;
    }
    if (hit) return {hit->bank, true};
    return {other ? other->bank : -1, false};
  }
};

const PluginRegistrar<DramScheduler> kFcfsReg{"fcfs", "first come, first served",
                                              [] { return std::make_unique<FcfsScheduler>(); }};
const PluginRegistrar<DramScheduler> kFrFcfsReg{"frfcfs", "open-row hits first, then oldest",
                                                [] { return std::make_unique<FrFcfsScheduler>(); }};

}  // namespace
}  // namespace ws::timing
