#include "timing/model.h"

#include "timing/abstract/abstract_gpu.h"
#include "timing/gpu/gpu.h"

namespace ws::timing {

namespace {
const config::Param<std::string> kModel{"gpu.model", "detailed", "",
                                        "timing model: detailed (cycle-level) or abstract (event-driven, "
                                        "docs/abstract-model.md); warpsim run/exec --model sets it"};
}  // namespace

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
