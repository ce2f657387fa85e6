// stats.json's "sampling" section for a run under a plan (docs/sampling.md).
#pragma once
#include <nlohmann/json.hpp>

#include "tools/report.h"

namespace ws::tools {

nlohmann::ordered_json sampling_json(const RunReport& run, const stats::Registry& reg);

}  // namespace ws::tools
