#include "timing/dram/dram_scheduler.h"

#include <memory>

namespace ws::timing {
namespace {

// Strict arrival order: only the oldest eligible request may issue.
class FcfsScheduler : public DramScheduler {
 public:
  int pick(const std::vector<DramCandidate>& q) const override {
    for (size_t i = 0; i < q.size(); ++i)
      if (q[i].eligible) return q[i].issuable ? static_cast<int>(i) : -1;
    return -1;
  }
};

// First-ready FCFS: the oldest ready row hit, else the oldest request whose
// next command can issue without closing a row that others still hit.
class FrFcfsScheduler : public DramScheduler {
 public:
  int pick(const std::vector<DramCandidate>& q) const override {
    for (size_t i = 0; i < q.size(); ++i)
      if (q[i].eligible && q[i].row_hit && q[i].issuable) return static_cast<int>(i);
    for (size_t i = 0; i < q.size(); ++i)
      if (q[i].eligible && q[i].issuable && !q[i].closes_hit_row) return static_cast<int>(i);
    return -1;
  }
};

const PluginRegistrar<DramScheduler> kFcfsReg{"fcfs", "first come, first served",
                                              [] { return std::make_unique<FcfsScheduler>(); }};
const PluginRegistrar<DramScheduler> kFrFcfsReg{"frfcfs", "open-row hits first, then oldest",
                                                [] { return std::make_unique<FrFcfsScheduler>(); }};

}  // namespace
}  // namespace ws::timing
