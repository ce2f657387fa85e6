// Intra-kernel projection (principal kernel projection, docs/sampling.md):
// once a kernel's IPC has settled and a full wave of CTAs has finished, the
// CTAs not yet dispatched are not simulated; their cycles and counts are
// projected from the steady rate.
#pragma once
#include <cstdint>
#include <vector>

#include "common/types.h"
#include "config/config.h"

namespace ws::timing {

class Sm;

// What was projected for a kernel stopped early (all zero when it ran whole).
struct KernelProjection {
  bool projected = false;
  uint64_t ctas_total = 0, ctas_simulated = 0;
  Cycle cycles = 0;        // projected kernel cycles (simulated + the rest)
  double scale = 1.0;      // ctas_total / ctas_simulated: counts scale by it
  // Warp instructions per CTA of the CTAs simulated and of the rest (read,
  // not timed). The rest run at the simulated CTAs' steady IPC only if they
  // do the same work: `homogeneous` says whether the two means agree within
  // sampling.cta_work_tolerance; when not, the projected cycles are suspect.
  double insts_per_cta_simulated = 0, insts_per_cta_rest = 0;
  uint64_t warp_insts = 0;  // the whole kernel's, exactly (simulated + read)
  bool homogeneous = true;
};

class KernelProjector {
 public:
  explicit KernelProjector(const config::Config& cfg);
  bool enabled() const { return enabled_; }

  // A kernel of `ctas_total` CTAs starts at `start`; `wave` CTAs fit at once.
  void begin(Cycle start, uint64_t ctas_total, uint64_t wave, const std::vector<Sm*>& sms);
  // Called as simulated time passes; true once dispatch should stop.
  bool stable(Cycle now, uint64_t ctas_dispatched);
  // The projection for a kernel whose dispatch stopped and whose dispatched
  // CTAs all finished at `end`; the CTAs never dispatched hold `rest_insts`
  // warp instructions.
  KernelProjection project(Cycle end, uint64_t ctas_dispatched, uint64_t rest_insts) const;

 private:
  uint64_t insts() const;
  uint64_t ctas_done() const;

  bool enabled_;
  Cycle window_, step_;
  double max_cv_, work_tolerance_;
  std::vector<Sm*> sms_;
  Cycle start_ = 0, next_sample_ = 0;
  uint64_t ctas_total_ = 0, wave_ = 0, insts0_ = 0, ctas0_ = 0, last_insts_ = 0;
  std::vector<double> ipcs_;  // IPC of each of the last window / step stretches
  bool stopped_ = false;
  double steady_ipc_ = 0;  // warp instructions per cycle when dispatch stopped
};

}  // namespace ws::timing
