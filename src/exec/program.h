// PTX modules loaded onto the device: their global and constant variables get
// device addresses, kernels are looked up by name.
#pragma once
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/types.h"
#include "frontend/ptx/ast.h"
#include "frontend/ptx/fuse.h"
#include "frontend/ptx/schedule.h"

namespace ws::exec {

class DeviceMemory;

struct LoadedModule {
  ptx::Module ast;
  std::map<std::string, Addr> symbols;  // .global/.const variables -> device address
  std::map<std::string, uint64_t> symbol_sizes;
};

class Program {
 public:
  explicit Program(DeviceMemory& mem) : mem_(mem) {}
  // Reorder each module's basic blocks as the assembler would before it runs
  // (frontend/ptx/schedule.h); off, kernels issue in PTX source order.
  void set_schedule(bool on, const ptx::ScheduleOptions& o = {}) {
    schedule_ = on;
    schedule_options_ = o;
  }
  // Unroll small counted loops by `factor` as the assembler would
  // (frontend/ptx/unroll.h); below 2, loops run as written.
  void set_unroll(unsigned factor) { unroll_ = factor; }
  // Whether steps ptxas merges into their neighbours run without issuing
  // (frontend/ptx/fuse.h), with the merges the target ISA has.
  void set_fuse(bool on, const ptx::FuseOptions& o = {}) {
    fuse_ = on;
    fuse_options_ = o;
  }
  // Forward branches over at most this many instructions run predicated
  // (frontend/ptx/fuse.h, if_convert_module); 0: as written.
  void set_if_convert(unsigned max_region) { if_convert_ = max_region; }
  // Branches around unpredicated regions issue BSSY and BSYNC
  // (frontend/ptx/fuse.h, mark_reconvergence_module).
  void set_reconvergence(bool on) { reconvergence_ = on; }
  // Neighbouring shared loads ptxas merges issue as one vector load
  // (frontend/ptx/vectorize.h).
  void set_vectorize(bool on) { vectorize_ = on; }
  // Global loads share this many dependency counters as ptxas assigns them
  // (frontend/ptx/scoreboards.h); 0: none.
  void set_load_scoreboards(unsigned counters) { load_scoreboards_ = counters; }
  // Allocates and initialises the module's variables. Throws InputError
  // (naming the module and variable) when that is impossible.
  // `ptx_text`, when given, is the module's source: with a ptxas (set_ptxas)
  // each kernel learns the registers ptxas allocates it.
  LoadedModule& load(ptx::Module module, const std::string& ptx_text = {});
  // The ptxas to ask for registers per thread, and the device's SM version.
  void set_ptxas(std::optional<std::string> ptxas, unsigned sm) {
    ptxas_ = std::move(ptxas);
    sm_ = sm;
  }
  // The module defining kernel/function `name`, or nullptr.
  const LoadedModule* module_of(const std::string& function_name) const;
  // Device address of a module-scope variable, searching every module.
  std::optional<std::pair<Addr, uint64_t>> symbol(const std::string& name) const;
  const std::vector<std::unique_ptr<LoadedModule>>& modules() const { return modules_; }

 private:
  DeviceMemory& mem_;
  bool schedule_ = true;
  ptx::ScheduleOptions schedule_options_;
  unsigned unroll_ = 4;
  bool fuse_ = true;
  ptx::FuseOptions fuse_options_;
  unsigned if_convert_ = 8;
  bool reconvergence_ = true;
  bool vectorize_ = true;
  unsigned load_scoreboards_ = 0;
  std::optional<std::string> ptxas_;
  unsigned sm_ = 70;
  std::vector<std::unique_ptr<LoadedModule>> modules_;
};

}  // namespace ws::exec
