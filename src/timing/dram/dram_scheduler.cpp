#include "timing/dram/dram_scheduler.h"

#include <memory>

namespace ws::timing {
namespace {

// Both picks keep the smallest key, an arrival number or kNone for a view
// that does not qualify, so the loops compile to conditional moves: which
// banks qualify changes every cycle and defeats the branch predictor.
constexpr uint64_t kNone = ~uint64_t{0};

// Strict arrival order: only the oldest eligible request may issue.
class FcfsScheduler : public DramScheduler {
 public:
  DramChoice pick(std::span<const DramBankView> banks) const override {
    uint64_t best = kNone;
    int bank = -1;
    bool issuable = false;
    for (const DramBankView& v : banks)
      if (v.oldest_age < best) best = v.oldest_age, bank = v.bank, issuable = v.oldest_issuable;
    if (!issuable) return {};
    return {bank, false};
  }
};

// First-ready FCFS: the oldest ready row hit, else the oldest request whose
// next command can issue without closing a row that others still hit.
class FrFcfsScheduler : public DramScheduler {
 public:
  DramChoice pick(std::span<const DramBankView> banks) const override {
    uint64_t best_hit = kNone, best_other = kNone;
    int hit = -1, other = -1;
    for (const DramBankView& v : banks) {
      uint64_t hit_key = v.has_hit & v.hit_issuable ? v.hit_age : kNone;
      uint64_t other_key = v.oldest_issuable & !v.has_hit ? v.oldest_age : kNone;
      if (hit_key < best_hit) best_hit = hit_key, hit = v.bank;
      if (other_key < best_other) best_other = other_key, other = v.bank;
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
