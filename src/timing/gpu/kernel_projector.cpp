#include "timing/gpu/kernel_projector.h"

#include <cmath>
#include <numeric>

#include "config/param.h"
#include "timing/core/sm.h"

namespace ws::timing {
namespace {
const config::Param<bool> kProject{"sampling.project_kernels", false, "",
                                   "stop dispatching a kernel's CTAs once its IPC is stable and project the rest "
                                   "(`warpsim run --project-kernels`; docs/sampling.md)"};
const config::Param<int64_t> kWindow{"sampling.ipc_window_cycles", 3000, "core cycles",
                                     "window over which the IPC must be stable, in 10 equal stretches",
                                     {10, 100000000}};
const config::Param<double> kMaxCv{"sampling.ipc_stdev", 0.25, "",
                                   "largest standard deviation of the stretches' IPC, relative to their mean, "
                                   "that counts as stable",
                                   {0, 10}};
const config::Param<double> kWorkTolerance{
    "sampling.cta_work_tolerance", 0.05, "",
    "largest difference, relative to the simulated CTAs', between the mean warp instructions per CTA of the CTAs "
    "not simulated and of those simulated for a projection to count as homogeneous (stats.json: "
    "projection.homogeneous)",
    {0, 10}};
constexpr size_t kStretches = 10;
}  // namespace

KernelProjector::KernelProjector(const config::Config& cfg)
    : enabled_(kProject.get(cfg)),
      window_(static_cast<Cycle>(kWindow.get(cfg))),
      step_(std::max<Cycle>(1, window_ / kStretches)),
      max_cv_(kMaxCv.get(cfg)),
      work_tolerance_(kWorkTolerance.get(cfg)) {}

uint64_t KernelProjector::insts() const {
  uint64_t n = 0;
  for (const Sm* sm : sms_) n += sm->warp_insts();
  return n;
}

uint64_t KernelProjector::ctas_done() const {
  uint64_t n = 0;
  for (const Sm* sm : sms_) n += sm->ctas_done();
  return n;
}

void KernelProjector::begin(Cycle start, uint64_t ctas_total, uint64_t wave, const std::vector<Sm*>& sms) {
  sms_ = sms;
  start_ = start;
  next_sample_ = start + step_;
  ctas_total_ = ctas_total;
  wave_ = std::max<uint64_t>(wave, 1);
  insts0_ = last_insts_ = insts();
  ctas0_ = ctas_done();
  ipcs_.clear();
  stopped_ = false;
}

// Samples the IPC at each stretch boundary; stable when the last kStretches
// stretches' IPC varies little and a whole wave of CTAs has finished.
bool KernelProjector::stable(Cycle now, uint64_t ctas_dispatched) {
  if (!enabled_ || stopped_ || now < next_sample_) return false;
  uint64_t n = insts();
  Cycle span = now - (next_sample_ - step_);
  ipcs_.push_back(static_cast<double>(n - last_insts_) / static_cast<double>(std::max<Cycle>(span, 1)));
  last_insts_ = n;
  next_sample_ = now + step_;
  if (ipcs_.size() > kStretches) ipcs_.erase(ipcs_.begin());
  uint64_t finished = ctas_done() - ctas0_;
  if (ipcs_.size() < kStretches || finished < wave_ || ctas_dispatched >= ctas_total_) return false;
  double mean = std::accumulate(ipcs_.begin(), ipcs_.end(), 0.0) / kStretches;
  double var = 0;
  for (double x : ipcs_) var += (x - mean) * (x - mean);
  if (mean <= 0 || std::sqrt(var / kStretches) / mean > max_cv_) return false;
  stopped_ = true;
  steady_ipc_ = mean;
  return true;
}

// The dispatched CTAs ran to their end; the rest would have run their
// instructions (read from the source, so known exactly) at the steady IPC.
// The stop rule saw only the CTAs simulated: nothing it measures tells
// whether later CTAs do other work, so the projection checks it here, once
// the rest have been read, and says so when they differ.
KernelProjection KernelProjector::project(Cycle end, uint64_t ctas_dispatched, uint64_t rest_insts) const {
  KernelProjection p;
  if (!stopped_) return p;
  p.projected = true;
  p.ctas_total = ctas_total_;
  p.ctas_simulated = ctas_dispatched;
  uint64_t simulated = insts() - insts0_;
  p.warp_insts = simulated + rest_insts;
  p.cycles = (end - start_) + static_cast<Cycle>(std::llround(static_cast<double>(rest_insts) / steady_ipc_));
  p.scale = static_cast<double>(ctas_total_) / static_cast<double>(ctas_dispatched);
  p.insts_per_cta_simulated = static_cast<double>(simulated) / static_cast<double>(ctas_dispatched);
  uint64_t rest_ctas = ctas_total_ - ctas_dispatched;  // > 0: dispatch stopped before the last CTA
  p.insts_per_cta_rest = rest_ctas ? static_cast<double>(rest_insts) / static_cast<double>(rest_ctas) : 0.0;
  p.homogeneous =
      std::abs(p.insts_per_cta_rest - p.insts_per_cta_simulated) <= work_tolerance_ * p.insts_per_cta_simulated;
  return p;
}

}  // namespace ws::timing
