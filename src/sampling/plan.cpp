#include "sampling/plan.h"

#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "common/error.h"

namespace ws::sampling {
namespace {

using nlohmann::json;

json read_json(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw InputError(path + ": cannot read the plan");
  try {
    return json::parse(in);
  } catch (const json::parse_error& e) {
    throw InputError(path + ": not a plan (JSON): " + e.what());
  }
}

template <class T>
T field(const json& j, const std::string& path, const std::string& name) {
  if (!j.contains(name)) throw InputError(path + ": field '" + name + "' is missing");
  try {
    return j.at(name).get<T>();
  } catch (const json::exception&) {
    throw InputError(path + ": field '" + name + "' has the wrong type");
  }
}

}  // namespace

KernelPlan KernelPlan::load(const std::string& path) {
  json j = read_json(path);
  if (!j.is_object()) throw InputError(path + ": not a plan (expected a JSON object)");
  KernelPlan p;
  p.path_ = path;
  if (field<int>(j, path, "version") != 1) throw InputError(path + ": field 'version': only version 1 is known");
  p.names_ = field<std::vector<std::string>>(j, path, "names");
  if (field<uint32_t>(j, path, "launches") != p.names_.size())
    throw InputError(path + ": field 'launches' differs from the number of 'names'");
  p.rep_group_.assign(p.names_.size(), -1);
  uint64_t covered = 0;
  for (const json& g : field<json>(j, path, "groups")) {
    PlanGroup pg{field<uint32_t>(g, path, "group"), field<uint32_t>(g, path, "representative"),
                 field<uint32_t>(g, path, "weight"), field<std::string>(g, path, "name"), {}};
    std::string where = path + ": group " + std::to_string(pg.group) + ": ";
    if (pg.representative < 1 || pg.representative > p.names_.size())
      throw InputError(where + "field 'representative' is not a launch of the plan");
    if (p.rep_group_[pg.representative - 1] >= 0) throw InputError(where + "its representative is another group's");
    if (pg.weight < 1) throw InputError(where + "field 'weight' must be at least 1");
    if (g.contains("members")) {
      pg.members = field<std::vector<uint32_t>>(g, path, "members");
      if (pg.members.size() != pg.weight)
        throw InputError(where + "field 'members' lists " + std::to_string(pg.members.size()) +
                         " launches, its weight is " + std::to_string(pg.weight));
      for (uint32_t m : pg.members)
        if (m < 1 || m > p.names_.size()) throw InputError(where + "field 'members' holds a launch not in the plan");
    }
    p.rep_group_[pg.representative - 1] = static_cast<int>(p.groups_.size());
    covered += pg.weight;
    p.groups_.push_back(std::move(pg));
  }
  if (p.groups_.empty()) throw InputError(path + ": field 'groups' is empty");
  if (covered != p.names_.size())
    throw InputError(path + ": the groups' weights add up to " + std::to_string(covered) + ", not the " +
                     std::to_string(p.names_.size()) + " launches");
  return p;
}

int KernelPlan::group_of_representative(uint32_t launch) const {
  return launch >= 1 && launch <= rep_group_.size() ? rep_group_[launch - 1] : -1;
}

void KernelPlan::check_launch(uint32_t launch, const std::string& name) const {
  if (launch > names_.size())
    throw PlanMismatch(path_ + ": field 'launches': the plan has " + std::to_string(names_.size()) +
                     " launches, the workload more: a plan for another workload");
  if (names_[launch - 1] != name)
    throw PlanMismatch(path_ + ": field 'names': launch " + std::to_string(launch) + " is '" + names_[launch - 1] +
                     "' in the plan and '" + name + "' in the workload: a plan for another workload");
}

void KernelPlan::check_count(uint32_t launches) const {
  if (launches != names_.size())
    throw PlanMismatch(path_ + ": field 'launches': the plan has " + std::to_string(names_.size()) + " launches, the workload " +
                     std::to_string(launches) + ": a plan for another workload");
}

}  // namespace ws::sampling
