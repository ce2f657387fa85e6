// A kernel-sampling plan (`warpsim sample plan`, docs/sampling.md): which
// launches of a workload to simulate, and how many launches each stands for.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "common/error.h"

namespace ws::sampling {

// The plan was made for another workload (launch count or names differ): a
// run must stop rather than project from it.
class PlanMismatch : public InputError {
 public:
  explicit PlanMismatch(const std::string& what) : InputError(what) {}
};

struct PlanGroup {
  uint32_t group = 0;
  uint32_t representative = 0;  // launch index, 1-based, in program order
  uint32_t weight = 0;          // launches the group holds
  std::string name;
  std::vector<uint32_t> members;  // its launches (1-based), when the plan lists them
};

class KernelPlan {
 public:
  // Reads and checks the plan; an InputError names the file and the field.
  static KernelPlan load(const std::string& path);

  const std::string& path() const { return path_; }
  uint32_t launches() const { return static_cast<uint32_t>(names_.size()); }
  const std::vector<PlanGroup>& groups() const { return groups_; }
  // The group a launch represents, or -1 when it is not simulated.
  int group_of_representative(uint32_t launch) const;
  // Launch `launch` (1-based) of the workload is `name`: else a PlanMismatch
  // naming the plan file and its field.
  void check_launch(uint32_t launch, const std::string& name) const;
  // The workload has ended after `launches` launches (else a PlanMismatch).
  void check_count(uint32_t launches) const;

 private:
  std::string path_;
  std::vector<std::string> names_;
  std::vector<PlanGroup> groups_;
  std::vector<int> rep_group_;  // launch (0-based) -> group, -1
};

}  // namespace ws::sampling
