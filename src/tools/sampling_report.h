// stats.json's "sampling" section for a run under a plan (docs/sampling.md).
#pragma once
#include <nlohmann/json.hpp>

#include "tools/report.h"

namespace ws::tools {

// The report of a run under `plan`: its groups, none run yet.
SamplingReport sampling_report(const sampling::KernelPlan& plan);

// Under a plan, a launch that represents no group is not simulated; one that
// does is recorded as its group's result (the next entry of report.kernels).
// Throws sampling::PlanMismatch when the launch is not the plan's.
bool skip_launch(const sampling::KernelPlan& plan, RunReport& report, uint32_t index, const std::string& name);

nlohmann::ordered_json sampling_json(const RunReport& run, const stats::Registry& reg);

}  // namespace ws::tools
