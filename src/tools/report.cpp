#include "tools/report.h"
#include "tools/sampling_report.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include <fmt/format.h>

#include "common/demangle.h"
#include "common/error.h"
#include "common/interrupt.h"

namespace ws::tools {

using nlohmann::ordered_json;

MemTotals mem_totals(const stats::Registry& reg, const stats::Snapshot& a, const stats::Snapshot& b) {
  MemTotals m;
  m.l1_reads = reg.sum("sm.*.l1d.reads", a, b);
  m.l1_read_hits = reg.sum("sm.*.l1d.read_hits", a, b);
  m.l1_writes = reg.sum("sm.*.l1d.writes", a, b);
  m.l1_write_hits = reg.sum("sm.*.l1d.write_hits", a, b);
  m.l1_read_merges = reg.sum("sm.*.l1d.mshr_merges", a, b);
  m.l2_reads = reg.sum("l2.*.reads", a, b);
  m.l2_read_hits = reg.sum("l2.*.read_hits", a, b);
  m.l2_writes = reg.sum("l2.*.writes", a, b);
  m.l2_write_hits = reg.sum("l2.*.write_hits", a, b);
  m.dram_reads = reg.sum("dram.*.reads", a, b);
  m.dram_writes = reg.sum("dram.*.writes", a, b);
  return m;
}

// A kernel's own instructions: counted per kernel by the GPU (the SM
// counters' difference also holds the work of kernels that ran beside it).
uint64_t warp_insts(const stats::Registry& reg, const timing::KernelResult& k) {
  return k.attributed ? k.own.warp_insts : reg.sum("sm.*.warp_insts", k.before, k.after);
}
uint64_t thread_insts(const stats::Registry& reg, const timing::KernelResult& k) {
  return k.attributed ? k.own.thread_insts : reg.sum("sm.*.thread_insts", k.before, k.after);
}

namespace {
const config::Param<int64_t> kLaunchL2Reads{
    "stats.launch_l2_read_sectors", 0, "sectors",
    "L2 read sectors each kernel launch adds to the ncu figure lts__t_sectors_op_read.sum beyond the kernel's own "
    "accesses (the launch's constant bank, code and descriptors reaching the GPU's caches; counted in the ncu "
    "figures only, not simulated as L2 traffic; docs/validation-h100.md)",
    {0, 1000000}};
}  // namespace

uint64_t launch_l2_read_sectors(const config::Config& cfg) { return static_cast<uint64_t>(kLaunchL2Reads.get(cfg)); }

namespace {

double ratio(uint64_t a, uint64_t b) { return b ? static_cast<double>(a) / static_cast<double>(b) : 0.0; }

ordered_json dim(const Dim3& d) { return ordered_json::array({d.x, d.y, d.z}); }

ordered_json cache_json(uint64_t reads, uint64_t read_hits, uint64_t writes, uint64_t write_hits) {
  uint64_t acc = reads + writes, hits = read_hits + write_hits;
  return ordered_json{{"accesses", acc},     {"hits", hits},          {"misses", acc - hits},
                      {"miss_rate", ratio(acc - hits, acc)},          {"reads", reads},
                      {"read_hits", read_hits}, {"writes", writes},   {"write_hits", write_hits}};
}

ordered_json mem_json(const MemTotals& m) {
  return ordered_json{{"l1d", cache_json(m.l1_reads, m.l1_read_hits, m.l1_writes, m.l1_write_hits)},
                      {"l2", cache_json(m.l2_reads, m.l2_read_hits, m.l2_writes, m.l2_write_hits)},
                      {"dram", {{"reads", m.dram_reads}, {"writes", m.dram_writes}}}};
}

// Nsight Compute metric names where our counters mean the same thing, so that
// results line up with `ncu --metrics ...` output. Cycle-based metrics count
// kernel cycles only: the profiler does not see launch gaps as kernel time.
// `launches`: the kernel launches in the window (stats.launch_l2_read_sectors each).
ordered_json ncu_metrics(const stats::Registry& reg, const stats::Snapshot& a, const stats::Snapshot& b,
                         uint64_t cycles, const RunReport& run, uint64_t launches) {
  MemTotals m = mem_totals(reg, a, b);
  uint64_t active = reg.sum("sm.*.active_cycles", a, b), warp_cycles = reg.sum("sm.*.warp_cycles", a, b);
  double secs = run.core_mhz > 0 ? double(cycles) / (run.core_mhz * 1e6) : 0;
  uint64_t dram_bytes = (m.dram_reads + m.dram_writes) * 32;
  return ordered_json{
      {"gpc__cycles_elapsed.max", cycles},
      {"sm__cycles_active.avg", run.sms ? double(active) / run.sms : 0.0},
      {"sm__cycles_active.max", reg.max("sm.*.active_cycles", a, b)},
      {"smsp__inst_executed.sum", reg.sum("sm.*.warp_insts", a, b)},
      {"smsp__thread_inst_executed.sum", reg.sum("sm.*.thread_insts", a, b)},
      {"sm__warps_active.avg.pct_of_peak_sustained_active",
       100 * ratio(warp_cycles, active * uint64_t{run.max_warps_per_sm})},
      {"l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", m.l1_reads},
      {"l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum", m.l1_writes},
      // Nsight counts a lookup whose sector is already on its way (its tag
      // allocated by an earlier miss) as a hit: on the H100, atax_ax's
      // 270,336 sectors with 32,944 first misses read 87.8% (examples/hw/h100-2026-11-27-suite).
      {"l1tex__t_sector_hit_rate.pct", 100 * ratio(m.l1_hits() + m.l1_read_merges, m.l1_accesses())},
      {"lts__t_sectors_op_read.sum", m.l2_reads + launches * run.launch_l2_reads},
      {"lts__t_sectors_op_write.sum", m.l2_writes},
      {"lts__t_sectors_op_atom.sum", reg.sum("l2.*.atomics", a, b)},
      {"lts__t_sector_hit_rate.pct", 100 * ratio(m.l2_hits(), m.l2_accesses())},
      {"dram__sectors_read.sum", m.dram_reads},
      {"dram__sectors_write.sum", m.dram_writes},
      {"dram__bytes.sum", dram_bytes},
      {"dram__bytes.sum.per_second", secs > 0 ? double(dram_bytes) / secs : 0.0}};
}

// A projected kernel's memory counts: those of the CTAs simulated, scaled
// linearly to all its CTAs (so hit and miss rates are the simulated ones).
ordered_json projected_mem_json(const MemTotals& m, double scale) {
  auto cache = [scale](uint64_t reads, uint64_t read_hits, uint64_t writes, uint64_t write_hits) {
    return ordered_json{{"reads", static_cast<double>(reads) * scale},
                        {"read_hits", static_cast<double>(read_hits) * scale},
                        {"writes", static_cast<double>(writes) * scale},
                        {"write_hits", static_cast<double>(write_hits) * scale}};
  };
  return ordered_json{{"l1d", cache(m.l1_reads, m.l1_read_hits, m.l1_writes, m.l1_write_hits)},
                      {"l2", cache(m.l2_reads, m.l2_read_hits, m.l2_writes, m.l2_write_hits)},
                      {"dram",
                       {{"reads", static_cast<double>(m.dram_reads) * scale},
                        {"writes", static_cast<double>(m.dram_writes) * scale}}}};
}

// Warp cycles by issue-stall reason, and their sum (every resident cycle of
// every warp of the kernel); null where the model attributed none.
ordered_json stall_json(const timing::StallCounts& stalls) {
  uint64_t total = 0;
  for (uint64_t n : stalls) total += n;
  if (total == 0) return nullptr;
  ordered_json j;
  for (size_t r = 0; r < timing::kStallReasons; ++r) j[timing::kStallNames[r]] = stalls[r];
  j["total"] = total;
  return j;
}

ordered_json kernel_json(const stats::Registry& reg, const timing::KernelResult& k, const RunReport& run) {
  uint64_t w = warp_insts(reg, k), t = thread_insts(reg, k);
  ordered_json j{{"name", demangle(k.name)}, {"mangled_name", k.name}, {"id", k.id},     {"grid", dim(k.grid)},
                 {"block", dim(k.block)}, {"binary_version", k.binary_version}, {"complete", k.complete},
                 {"cycles", k.cycles}, {"launch_gap_cycles", k.launch_gap},
                 {"elapsed_cycles", k.elapsed_cycles()}, {"start_cycle", k.start_cycle}, {"stream", k.stream},
                 {"shared_gpu", k.shared_gpu}, {"warp_insts", w}, {"thread_insts", t},
                 {"ipc", ratio(t, k.cycles)}, {"warp_ipc", ratio(w, k.cycles)},
                 {"occupancy",
                  {{"ctas_per_sm", k.occupancy.ctas_per_sm},
                   {"limiter", k.occupancy.limiter},
                   {"shared_kb", k.occupancy.shared_kb},
                   {"l1_kb", k.occupancy.l1_kb}}}};
  j.update(mem_json(mem_totals(reg, k.before, k.after)));
  if (ordered_json st = stall_json(k.own.stalls); !st.is_null()) j["stall"] = st;
  j["ncu"] = ncu_metrics(reg, k.before, k.after, k.cycles, run, 1);
  if (k.projection.projected) {
    // Figures for the whole kernel; everything above covers the CTAs simulated.
    const timing::KernelProjection& p = k.projection;
    j["projection"] = {{"projected", true},
                       {"ctas_total", p.ctas_total},
                       {"ctas_simulated", p.ctas_simulated},
                       {"cycles", p.cycles},
                       {"homogeneous", p.homogeneous},
                       {"warp_insts_per_cta",
                        {{"simulated", p.insts_per_cta_simulated}, {"not_simulated", p.insts_per_cta_rest}}},
                       {"warp_insts", p.warp_insts},
                       {"thread_insts", static_cast<double>(t) * p.scale},
                       {"ipc", p.cycles ? static_cast<double>(t) * p.scale / static_cast<double>(p.cycles) : 0.0}};
    j["projection"].update(projected_mem_json(mem_totals(reg, k.before, k.after), p.scale));
  }
  return j;
}

}  // namespace

std::string stats_json(const RunReport& run, const stats::Registry& reg) {
  ordered_json j;
  j["schema"] = "warpsim-stats/1";
  j["complete"] = !run.error && !run.in_progress;
  j["error"] = run.error         ? ordered_json(*run.error)
               : run.in_progress ? ordered_json("in progress: the program had not finished when this was written")
                                 : ordered_json(nullptr);
  j["signal"] = run.signal ? ordered_json(signal_name(run.signal)) : ordered_json(nullptr);
  j["workload"] = run.workload;
  j["gpu"] = {{"preset", run.preset}, {"sms", run.sms}, {"core_mhz", run.core_mhz}};
  ordered_json kernels = ordered_json::array();
  uint64_t cycles = 0, elapsed = 0, w = 0, t = 0;
  for (const auto& k : run.kernels) {
    kernels.push_back(kernel_json(reg, k, run));
    cycles += k.cycles;
    elapsed += k.elapsed_cycles();
    w += warp_insts(reg, k);
    t += thread_insts(reg, k);
  }
  j["kernels"] = kernels;
  j["total"] = {{"kernels", run.kernels.size()},
                {"cycles", cycles},
                {"elapsed_cycles", elapsed},
                {"warp_insts", w},
                {"thread_insts", t},
                {"ipc", ratio(t, cycles)},
                {"warp_ipc", ratio(w, cycles)}};
  stats::Snapshot zero(reg.size(), 0), now = reg.snapshot();
  j.update(mem_json(mem_totals(reg, zero, now)));
  j["ncu"] = ncu_metrics(reg, zero, now, cycles, run, run.kernels.size());
  j["sim"] = {{"wall_seconds", run.wall_seconds},
              {"warp_insts_per_second", run.wall_seconds > 0 ? static_cast<double>(w) / run.wall_seconds : 0.0},
              {"host_threads", run.host_threads}};
  ordered_json counters = ordered_json::object();
  for (size_t i = 0; i < reg.size(); ++i)
    if (now[i]) counters[reg.name(i)] = now[i];
  j["counters"] = counters;
  if (run.sampling) j["sampling"] = sampling_json(run, reg);
  // Kernel names and error messages come from input files and may hold any
  // bytes: invalid UTF-8 becomes U+FFFD rather than losing the whole result.
  return j.dump(2, ' ', false, ordered_json::error_handler_t::replace) + "\n";
}

void print_summary(std::ostream& os, const RunReport& run, const stats::Registry& reg) {
  os << fmt::format("warpsim: {} on {} ({} SMs @ {:.0f} MHz)\n", run.workload, run.preset, run.sms, run.core_mhz);
  // Two header lines: what each column is, then its unit.
  constexpr const char* kRow = "{:>3}  {:<44} {:>10} {:>10} {:>11} {:>9} {:>6} {:>6} {:>10}\n";
  os << fmt::format(kRow, "#", "kernel", "cycles", "time", "warp insts", "IPC", "L1 hit", "L2 hit", "DRAM rd");
  os << fmt::format(kRow, "", "", "(core)", "(us)", "", "(thr/clk)", "(%)", "(%)", "(sectors)");
  uint64_t cycles = 0, w = 0;
  for (const auto& k : run.kernels) {
    MemTotals m = mem_totals(reg, k.before, k.after);
    uint64_t wi = warp_insts(reg, k);
    double us = run.core_mhz > 0 ? static_cast<double>(k.cycles) / run.core_mhz : 0.0;
    os << fmt::format(kRow, k.id, demangle_fit(k.name, 44), k.cycles, fmt::format("{:.2f}", us), wi,
                      fmt::format("{:.2f}", ratio(thread_insts(reg, k), k.cycles)),
                      fmt::format("{:.1f}", 100 * ratio(m.l1_hits(), m.l1_accesses())),
                      fmt::format("{:.1f}", 100 * ratio(m.l2_hits(), m.l2_accesses())), m.dram_reads);
    cycles += k.cycles;
    w += wi;
  }
  os << fmt::format("total: {} kernels, {} cycles, {} warp insts; simulated in {:.2f} s ({:.0f} warp insts/s)\n",
                    run.kernels.size(), cycles, w, run.wall_seconds,
                    run.wall_seconds > 0 ? static_cast<double>(w) / run.wall_seconds : 0.0);
  if (run.error) os << "run stopped early: " << *run.error << "\n";
  for (const auto& k : run.kernels)
    if (!k.complete) os << "kernel " << k.id << " is partial: its figures cover only the cycles it ran\n";
  for (const auto& k : run.kernels)
    if (k.projection.projected)
      os << fmt::format("kernel {}: {} of {} CTAs simulated; projected {} cycles (stats.json: projection){}\n", k.id,
                        k.projection.ctas_simulated, k.projection.ctas_total, k.projection.cycles,
                        k.projection.homogeneous
                            ? ""
                            : fmt::format("; NOT homogeneous: the CTAs not simulated run {:.0f} warp insts each, the "
                                          "simulated {:.0f}, so the projected cycles are unreliable",
                                          k.projection.insts_per_cta_rest, k.projection.insts_per_cta_simulated));
  if (run.sampling) print_sampling(os, run, reg);
}

void write_file_atomic(const std::string& path, const std::string& text) {
  std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) throw InputError(path, 0, "", std::string("cannot write: ") + std::strerror(errno));
    out << text;
    if (!out.flush()) throw InputError(path, 0, "", std::string("write failed: ") + std::strerror(errno));
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) throw InputError(path, 0, "", "cannot write: " + ec.message());
}

void prepare_out_dir(const std::string& dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec || !fs::is_directory(dir, ec))
    throw InputError("--out", 0, "", "cannot create the folder '" + dir + "': " +
                                         (ec ? ec.message() : std::string("a file of that name exists")));
  if (access(dir.c_str(), W_OK | X_OK) != 0)
    throw InputError("--out", 0, "", "cannot write into '" + dir + "': " + std::strerror(errno));
  fs::remove(fs::path(dir) / "stats.json", ec);
  if (ec) throw InputError("--out", 0, "", "cannot remove the old stats.json in '" + dir + "': " + ec.message());
}

}  // namespace ws::tools
