#include "timing/model.h"

#include <cmath>

#include "timing/abstract/abstract_gpu.h"
#include "timing/gpu/gpu.h"

namespace ws::timing {

namespace {
const config::Param<std::string> kModel{"gpu.model", "detailed", "",
                                        "timing model: detailed (cycle-level) or abstract (event-driven, "
                                        "docs/abstract-model.md); warpsim run/exec --model sets it"};
const config::Param<int64_t> kFixedCycles{
    "gpu.kernel_fixed_cycles", 0, "core cycles",
    "cycles every kernel spends in the GPU before its first CTA is dispatched (launch processing inside the "
    "GPU), counted in its kernel cycles as a profiler counts them in gpc__cycles_elapsed.max: an empty kernel's "
    "profiled cycles less what the model gives it (docs/validation.md); added to gpu.kernel_fixed_ns",
    {0, 100000000}};
const config::Param<double> kFixedNs{
    "gpu.kernel_fixed_ns", 0.0, "ns",
    "the same per-kernel work given as a time, turned into cycles at clock.core_mhz (for GPUs whose empty "
    "kernel was not measured in cycles: a preset states the time it assumes); added to gpu.kernel_fixed_cycles",
    {0, 1e8}};
}  // namespace

Cycle kernel_fixed_cycles(const config::Config& cfg) {
  double ns = kFixedNs.get(cfg);
  auto from_time = static_cast<Cycle>(std::ceil(ns * cfg.get<double>("clock.core_mhz") / 1000.0 - 1e-9));
  return static_cast<Cycle>(kFixedCycles.get(cfg)) + from_time;
}

std::string model_name(const config::Config& cfg) { return kModel.get(cfg); }

std::unique_ptr<TimingModel> make_timing_model(const config::Config& cfg, const std::string& name) {
  if (name == "detailed") return std::make_unique<Gpu>(cfg);
  if (name == "abstract") return std::make_unique<abstract::AbstractGpu>(cfg);
  throw ConfigError(kModel.name(), "unknown timing model '" + name + "' (known: " + kModelNames + ")");
}

std::unique_ptr<TimingModel> make_timing_model(const config::Config& cfg) {
  return make_timing_model(cfg, model_name(cfg));
}

}  // namespace ws::timing
