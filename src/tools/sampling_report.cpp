// Projection of a sampled run (docs/sampling.md): each simulated
// representative stands for its group's launches.
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "tools/sampling_report.h"

namespace ws::tools {
namespace {

using nlohmann::ordered_json;

struct Projection {
  double cycles = 0, warp_insts = 0, thread_insts = 0;      // projected whole program
  uint64_t sim_cycles = 0, sim_warp_insts = 0;              // what was simulated
  uint32_t groups_run = 0;
};

// A representative's whole-kernel figures: under --project-kernels too it may
// have stopped early, and then its own projection stands for it.
double whole_cycles(const timing::KernelResult& k) {
  return static_cast<double>(k.projection.projected ? k.projection.cycles : k.cycles);
}

Projection project(const RunReport& run, const stats::Registry& reg) {
  Projection p;
  for (const SampledGroup& g : run.sampling->groups) {
    if (g.result < 0) continue;
    const timing::KernelResult& k = run.kernels[static_cast<size_t>(g.result)];
    double scale = k.projection.projected ? k.projection.scale : 1.0;
    ++p.groups_run;
    p.cycles += whole_cycles(k) * g.plan.weight;
    double w = k.projection.projected ? static_cast<double>(k.projection.warp_insts)
                                      : static_cast<double>(warp_insts(reg, k));
    p.warp_insts += w * g.plan.weight;
    p.thread_insts += static_cast<double>(thread_insts(reg, k)) * scale * g.plan.weight;
    p.sim_cycles += k.cycles;
    p.sim_warp_insts += warp_insts(reg, k);
  }
  return p;
}

}  // namespace

SamplingReport sampling_report(const sampling::KernelPlan& plan) {
  SamplingReport s;
  s.plan = plan.path();
  s.launches = plan.launches();
  for (const sampling::PlanGroup& g : plan.groups()) s.groups.push_back(SampledGroup{g, -1});
  return s;
}

bool skip_launch(const sampling::KernelPlan& plan, RunReport& report, uint32_t index, const std::string& name) {
  plan.check_launch(index, name);
  int g = plan.group_of_representative(index);
  if (g < 0) return true;
  report.sampling->groups[static_cast<size_t>(g)].result = static_cast<int>(report.kernels.size());
  return false;
}

ordered_json sampling_json(const RunReport& run, const stats::Registry& reg) {
  const SamplingReport& s = *run.sampling;
  Projection p = project(run, reg);
  ordered_json groups = ordered_json::array();
  for (const SampledGroup& g : s.groups) {
    ordered_json j{{"group", g.plan.group},
                   {"representative", g.plan.representative},
                   {"weight", g.plan.weight},
                   {"name", g.plan.name},
                   {"simulated", g.result >= 0}};
    if (!g.plan.members.empty()) j["members"] = g.plan.members;
    if (g.result >= 0) {
      const timing::KernelResult& k = run.kernels[static_cast<size_t>(g.result)];
      j["cycles"] = k.cycles;
      j["warp_insts"] = warp_insts(reg, k);
      if (k.projection.projected) j["projected_cycles"] = k.projection.cycles;  // stopped early (--project-kernels)
    }
    groups.push_back(j);
  }
  bool whole = p.groups_run == s.groups.size();
  ordered_json j{{"plan", s.plan},
                 {"launches", s.launches},
                 {"launches_simulated", p.groups_run},
                 {"complete", whole},
                 {"groups", groups},
                 {"simulated", {{"cycles", p.sim_cycles}, {"warp_insts", p.sim_warp_insts}}},
                 // Every figure here is a projection: representative x weight.
                 {"projected",
                  {{"cycles", p.cycles},
                   {"warp_insts", p.warp_insts},
                   {"thread_insts", p.thread_insts},
                   {"ipc", p.cycles > 0 ? p.thread_insts / p.cycles : 0.0}}},
                 {"fraction_simulated", p.warp_insts > 0 ? static_cast<double>(p.sim_warp_insts) / p.warp_insts : 0.0},
                 // Simulation time goes with warp instructions: the speedup the plan should give.
                 {"reduction", p.sim_warp_insts > 0 ? p.warp_insts / static_cast<double>(p.sim_warp_insts) : 0.0}};
  return j;
}

void print_sampling(std::ostream& os, const RunReport& run, const stats::Registry& reg) {
  const SamplingReport& s = *run.sampling;
  Projection p = project(run, reg);
  os << fmt::format("sampling ({}): {} groups for {} launches\n", s.plan, s.groups.size(), s.launches);
  os << fmt::format("{:>5} {:>6} {:>6}  {:<34} {:>12} {:>14}\n", "group", "rep", "weight", "kernel", "cycles",
                    "x weight");
  for (const SampledGroup& g : s.groups) {
    std::string name = g.plan.name.size() > 34 ? g.plan.name.substr(0, 31) + "..." : g.plan.name;
    if (g.result < 0) {
      os << fmt::format("{:>5} {:>6} {:>6}  {:<34} {:>12}\n", g.plan.group, g.plan.representative, g.plan.weight,
                        name, "not run");
      continue;
    }
    double c = whole_cycles(run.kernels[static_cast<size_t>(g.result)]);
    os << fmt::format("{:>5} {:>6} {:>6}  {:<34} {:>12.0f} {:>14.0f}\n", g.plan.group, g.plan.representative,
                      g.plan.weight, name, c, c * g.plan.weight);
  }
  os << fmt::format("projected: {:.0f} cycles, {:.0f} warp insts ({:.1f}% of them simulated)\n", p.cycles,
                    p.warp_insts, p.warp_insts > 0 ? 100.0 * static_cast<double>(p.sim_warp_insts) / p.warp_insts : 0);
}

}  // namespace ws::tools
