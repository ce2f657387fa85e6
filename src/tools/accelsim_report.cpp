// `--format accelsim`: the lines Accel-Sim's scripts (util/job_launching/
// get_stats.py with stats/example_stats.yml) look for, each carrying a value
// warpsim computed. Which counter feeds which line, and where the meaning
// differs from Accel-Sim's, is in docs/stats.md; python/tests/
// test_accelsim_format.py checks the output against those scripts' regexes.
#include <algorithm>
#include <cmath>
#include <string_view>

#include <fmt/format.h>

#include "tools/report.h"

namespace ws::tools {

namespace {

double ratio(uint64_t a, uint64_t b) { return b ? static_cast<double>(a) / static_cast<double>(b) : 0.0; }

// What the run had done when one kernel ended: everything Accel-Sim prints
// as a running total.
struct Totals {
  uint64_t cycles = 0, thread_insts = 0, warp_insts = 0;
  double wall_seconds = 0;
};

// "D days, H hrs, M min, S sec (T sec)" in whole seconds, as GPGPU-Sim
// prints its elapsed host time.
std::string elapsed_text(double seconds) {
  auto t = static_cast<uint64_t>(std::floor(std::max(seconds, 0.0)));
  return fmt::format("{} days, {} hrs, {} min, {} sec ({} sec)", t / 86400, t % 86400 / 3600, t % 3600 / 60, t % 60,
                     t);
}

// Cache lines of GPGPU-Sim's breakdown tables. warpsim's caches count 32 B
// sectors and do not tell global from local accesses, so GLOBAL_ACC_* hold
// every read/written sector of that cache (docs/stats.md).
void print_breakdown(std::ostream& os, const char* cache, const char* kind, uint64_t hits, uint64_t total) {
  os << fmt::format("\t{}[{}][HIT] = {}\n", cache, kind, hits);
  os << fmt::format("\t{}[{}][TOTAL_ACCESS] = {}\n", cache, kind, total);
}

// Whether the timing model registers a counter named ...`leaf` (the abstract
// model has no MSHRs or bank conflicts: their lines are left out, not 0).
bool has_counter(const stats::Registry& reg, std::string_view leaf) {
  for (size_t i = 0; i < reg.size(); ++i)
    if (reg.name(i).ends_with(leaf)) return true;
  return false;
}

void print_memory(std::ostream& os, const stats::Registry& reg, const timing::KernelResult& k, double core_mhz) {
  stats::Snapshot zero(reg.size(), 0);
  MemTotals m = mem_totals(reg, zero, k.after);  // Accel-Sim prints cache totals cumulatively
  uint64_t l1_misses = m.l1_accesses() - m.l1_hits(), l2_misses = m.l2_accesses() - m.l2_hits();
  os << fmt::format("L1D_total_cache_accesses = {}\nL1D_total_cache_misses = {}\nL1D_total_cache_miss_rate = {:.4f}\n",
                    m.l1_accesses(), l1_misses, ratio(l1_misses, m.l1_accesses()));
  os << fmt::format("L2_total_cache_accesses = {}\nL2_total_cache_misses = {}\nL2_total_cache_miss_rate = {:.4f}\n",
                    m.l2_accesses(), l2_misses, ratio(l2_misses, m.l2_accesses()));
  os << "Total_core_cache_stats:\n";
  print_breakdown(os, "Total_core_cache_stats_breakdown", "GLOBAL_ACC_R", m.l1_read_hits, m.l1_reads);
  if (has_counter(reg, ".l1d.mshr_merges"))
    os << fmt::format("\tTotal_core_cache_stats_breakdown[GLOBAL_ACC_R][MSHR_HIT] = {}\n",
                      reg.sum("sm.*.l1d.mshr_merges", zero, k.after));
  print_breakdown(os, "Total_core_cache_stats_breakdown", "GLOBAL_ACC_W", m.l1_write_hits, m.l1_writes);
  os << "L2_cache_stats:\n";
  print_breakdown(os, "L2_cache_stats_breakdown", "GLOBAL_ACC_R", m.l2_read_hits, m.l2_reads);
  print_breakdown(os, "L2_cache_stats_breakdown", "GLOBAL_ACC_W", m.l2_write_hits, m.l2_writes);
  // L2_BW is this kernel's: every sector through the L2 over the kernel time.
  uint64_t l2_sectors = reg.sum("l2.*.reads", k.before, k.after) + reg.sum("l2.*.writes", k.before, k.after) +
                        reg.sum("l2.*.atomics", k.before, k.after);
  double secs = core_mhz > 0 ? static_cast<double>(k.cycles) / (core_mhz * 1e6) : 0.0;
  os << fmt::format("L2_BW  = {:12.4f} GB/Sec\n", secs > 0 ? 32.0 * static_cast<double>(l2_sectors) / secs / 1e9 : 0);
  os << fmt::format("total dram reads = {}\ntotal dram writes = {}\n", m.dram_reads, m.dram_writes);
}

void print_kernel(std::ostream& os, const RunReport& run, const stats::Registry& reg, const timing::KernelResult& k,
                  const Totals& tot) {
  stats::Snapshot zero(reg.size(), 0);
  uint64_t insn = thread_insts(reg, k);
  // Accel-Sim matches kernels by the name in the trace: keep it mangled here.
  os << fmt::format("kernel_name = {}\nkernel_launch_uid = {}\n", k.name, k.id);
  os << fmt::format("gpu_sim_cycle = {}\ngpu_sim_insn = {}\ngpu_ipc = {:12.4f}\n", k.cycles, insn,
                    ratio(insn, k.cycles));
  os << fmt::format("gpu_tot_sim_cycle = {}\ngpu_tot_sim_insn = {}\ngpu_tot_ipc = {:12.4f}\n", tot.cycles,
                    tot.thread_insts, ratio(tot.thread_insts, tot.cycles));
  uint64_t active = reg.sum("sm.*.active_cycles", k.before, k.after);
  uint64_t warp_cycles = reg.sum("sm.*.warp_cycles", k.before, k.after);
  os << fmt::format("gpu_occupancy = {:.4f}%\n",
                    100 * ratio(warp_cycles, active * uint64_t{run.max_warps_per_sm}));
  os << fmt::format("gpgpu_n_tot_w_icount = {}\n", tot.warp_insts);
  if (has_counter(reg, ".ldst.shared_bank_conflicts"))
    os << fmt::format("gpgpu_n_shmem_bkconflict = {}\n", reg.sum("sm.*.ldst.shared_bank_conflicts", zero, k.after));
  if (has_counter(reg, ".l1d.bank_conflicts"))
    os << fmt::format("gpgpu_n_l1cache_bkconflict = {}\n", reg.sum("sm.*.l1d.bank_conflicts", zero, k.after));
  print_memory(os, reg, k, run.core_mhz);
  // GPGPU-Sim closes each kernel with the host time and speed so far.
  double secs = std::max(tot.wall_seconds, 1e-9);
  double cycle_rate = static_cast<double>(tot.cycles) / secs;
  os << fmt::format("gpgpu_simulation_time = {}\n", elapsed_text(tot.wall_seconds));
  os << fmt::format("gpgpu_simulation_rate = {} (inst/sec)\n", static_cast<uint64_t>(tot.thread_insts / secs));
  os << fmt::format("gpgpu_simulation_rate = {} (cycle/sec)\n", static_cast<uint64_t>(cycle_rate));
  // How many times slower than the simulated GPU's core clock the host ran.
  os << fmt::format("gpgpu_silicon_slowdown = {}x\n",
                    cycle_rate > 0 ? static_cast<uint64_t>(run.core_mhz * 1e6 / cycle_rate) : 0);
  os << "\n";
}

}  // namespace

void print_accelsim(std::ostream& os, const RunReport& run, const stats::Registry& reg) {
  Totals tot;
  for (size_t i = 0; i < run.kernels.size(); ++i) {
    const auto& k = run.kernels[i];
    tot.cycles += k.cycles;
    tot.thread_insts += thread_insts(reg, k);
    tot.warp_insts += warp_insts(reg, k);
    tot.wall_seconds = i < run.wall_at_kernel_end.size() ? run.wall_at_kernel_end[i] : run.wall_seconds;
    print_kernel(os, run, reg, k, tot);
  }
  // get_stats.py ignores an output without this line (a run that did not
  // finish): print it only when every kernel ran to its end.
  if (!run.error && !run.in_progress && !run.signal) os << "GPGPU-Sim: *** exit detected ***\n";
}

}  // namespace ws::tools
