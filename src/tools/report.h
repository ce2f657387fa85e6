// Turns a finished (or interrupted) run into stats.json, Accel-Sim-style text
// and a human summary table. Only here do counters become text.
#pragma once
#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "config/config.h"
#include "sampling/plan.h"
#include "stats/stats.h"
#include "timing/model.h"

namespace ws::tools {

// A run under a sampling plan: which result (index into RunReport::kernels)
// each group's representative produced, -1 while it has not run.
struct SampledGroup {
  sampling::PlanGroup plan;
  int result = -1;
};
struct SamplingReport {
  std::string plan;
  uint32_t launches = 0;  // launches the plan covers
  std::vector<SampledGroup> groups;
};

struct RunReport {
  std::string workload;
  std::string preset;
  uint32_t sms = 0;
  double core_mhz = 0;
  uint32_t max_warps_per_sm = 0;
  uint32_t host_threads = 1;
  std::vector<timing::KernelResult> kernels;
  double wall_seconds = 0;
  std::optional<std::string> error;  // set when the run stopped early
  int signal = 0;                    // the signal that stopped it, if one did
  // Written while the run goes on (exec writes stats.json after each
  // kernel): not complete, whatever has finished so far.
  bool in_progress = false;
  // Host seconds from the start of the simulation to the end of each kernel
  // (parallel to `kernels`; empty where nobody measured them).
  std::vector<double> wall_at_kernel_end;
  std::optional<SamplingReport> sampling;  // run under a plan (--plan)
  // stats.launch_l2_read_sectors: what each launch adds to the profiler's
  // L2 read sectors beyond the kernel's own accesses (launch_l2_read_sectors()).
  uint64_t launch_l2_reads = 0;
};

// stats.launch_l2_read_sectors of `cfg` (declared with the report).
uint64_t launch_l2_read_sectors(const config::Config& cfg);

// Memory-hierarchy totals between two snapshots (sector granularity).
struct MemTotals {
  uint64_t l1_reads = 0, l1_read_hits = 0, l1_writes = 0, l1_write_hits = 0;
  uint64_t l1_read_merges = 0;  // read sectors merged into an MSHR in flight (counted as misses)
  uint64_t l2_reads = 0, l2_read_hits = 0, l2_writes = 0, l2_write_hits = 0;
  uint64_t dram_reads = 0, dram_writes = 0;
  uint64_t l1_accesses() const { return l1_reads + l1_writes; }
  uint64_t l1_hits() const { return l1_read_hits + l1_write_hits; }
  uint64_t l2_accesses() const { return l2_reads + l2_writes; }
  uint64_t l2_hits() const { return l2_read_hits + l2_write_hits; }
};
MemTotals mem_totals(const stats::Registry& reg, const stats::Snapshot& from, const stats::Snapshot& to);
uint64_t warp_insts(const stats::Registry& reg, const timing::KernelResult& k);
uint64_t thread_insts(const stats::Registry& reg, const timing::KernelResult& k);

// stats.json content (schema: docs/stats.md).
std::string stats_json(const RunReport& run, const stats::Registry& reg);
// Accel-Sim's per-kernel stat lines, cumulative totals as Accel-Sim prints them
// (accelsim_report.cpp; the mapping is in docs/stats.md).
void print_accelsim(std::ostream& os, const RunReport& run, const stats::Registry& reg);
// A short human-readable table.
void print_summary(std::ostream& os, const RunReport& run, const stats::Registry& reg);
// The summary's group table for a run under a plan (sampling_report.cpp;
// stats.json's "sampling" section: sampling_report.h).
void print_sampling(std::ostream& os, const RunReport& run, const stats::Registry& reg);

// The same workload run through two timing models (warpsim run --compare).
struct ComparedRun {
  std::string model;
  const RunReport* report;
  const stats::Registry* reg;
};
// Per kernel: cycles of each, the first's error relative to the second, L1
// and L2 hit rates of each; then the mean and largest absolute error and the
// host-time speedup of the first over the second (compare_report.cpp).
void print_comparison(std::ostream& os, const ComparedRun& first, const ComparedRun& second);

// Writes `text` to `path` through a temporary file and a rename, so that a
// reader never sees a partial file.
void write_file_atomic(const std::string& path, const std::string& text);
// Creates the --out folder (an InputError naming it when that fails) and
// removes a stats.json an earlier run left there, so that a run that dies
// early never leaves an old complete-looking result beside its config.
void prepare_out_dir(const std::string& dir);

}  // namespace ws::tools
