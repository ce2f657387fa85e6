#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <iostream>

#include <cmath>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "common/error.h"
#include "common/interrupt.h"
#include "config/config.h"
#include "frontend/trace/trace_reader.h"
#include "tools/commands.h"
#include "tools/progress_line.h"
#include "tools/report.h"

namespace ws::tools {

namespace {

using Clock = std::chrono::steady_clock;

config::Config load_config(const RunOptions& opt) {
  config::Config cfg;
  cfg.load_file(config::find_preset(opt.gpu));
  for (const std::string& s : opt.sets) cfg.set_assignment(s);
  return cfg;
}

void simulate(ir::WorkloadSource& work, timing::Gpu& gpu, RunReport& report, bool progress_on) {
  ProgressLine progress(progress_on);
  auto total = work.kernel_count();
  uint32_t index = 0;
  uint64_t done_warp_insts = 0;
  while (!pending_interrupt()) {
    auto cmd = work.next();
    if (!cmd) break;
    if (auto* copy = std::get_if<ir::MemcpyHtoD>(&*cmd)) {
      gpu.memcpy_htod(*copy);
      continue;
    }
    if (std::holds_alternative<ir::HostSync>(*cmd)) {
      gpu.host_sync();
      continue;
    }
    auto& kernel = std::get<std::unique_ptr<ir::KernelSource>>(*cmd);
    ++index;
    std::string tag = fmt::format("[kernel {}/{}] {}", index, total ? std::to_string(*total) : "?",
                                  kernel->info().name.substr(0, 40));
    auto before = gpu.stats().snapshot();
    auto cb = [&](Cycle c) {
      progress.update(tag, c, done_warp_insts + gpu.stats().sum("sm.*.warp_insts", before, gpu.stats().snapshot()));
    };
    try {
      report.kernels.push_back(gpu.run_kernel(*kernel, cb));
    } catch (timing::KernelStopped& stop) {
      report.kernels.push_back(std::move(stop.partial));  // counted, and marked incomplete
      throw;
    }
    done_warp_insts += warp_insts(gpu.stats(), report.kernels.back());
  }
}

}  // namespace

int run_command(const RunOptions& opt) {
  if (!opt.out.empty()) prepare_out_dir(opt.out);  // first: no old stats.json outlives a failed start
  config::Config cfg = load_config(opt);
  auto work = frontend::open_trace_workload(opt.workload);
  timing::Gpu gpu(cfg);
  if (!opt.out.empty()) write_file_atomic(opt.out + "/config.toml", cfg.to_toml());
  InterruptGuard on_signal;  // Ctrl-C or SIGTERM: stop, keep what is finished
  gpu.set_stop_check(interrupt_reason);
  RunReport report;
  report.workload = opt.workload;
  report.preset = opt.gpu;
  report.sms = gpu.num_sms();
  report.core_mhz = gpu.core_mhz();
  report.max_warps_per_sm = gpu.max_warps_per_sm();
  auto start = Clock::now();
  try {
    simulate(*work, gpu, report, opt.progress);
  } catch (const Error& e) {
    report.error = e.what();  // keep the kernels already simulated
  }
  if (int signo = pending_interrupt()) {
    report.signal = signo;
    if (!report.error) report.error = interrupt_reason() + " between kernels";
  }
  report.wall_seconds = std::chrono::duration<double>(Clock::now() - start).count();
  if (!opt.out.empty()) write_file_atomic(opt.out + "/stats.json", stats_json(report, gpu.stats()));
  if (opt.format == "accelsim") print_accelsim(std::cout, report, gpu.stats());
  if (opt.format == "summary") print_summary(std::cout, report, gpu.stats());
  if (opt.format == "json") std::cout << stats_json(report, gpu.stats());
  if (report.error) {
    std::cerr << "warpsim: " << (report.signal ? "" : "error: ") << *report.error << "\n";
    return report.signal ? 128 + report.signal : 1;
  }
  // A signal while the results were being written: they are whole, but the
  // caller asked us to stop.
  if (int signo = pending_interrupt()) return 128 + signo;
  return 0;
}

int presets_command() {
  for (const std::string& name : config::list_presets()) {
    config::Config cfg;
    std::string path = config::find_preset(name);
    cfg.load_file(path);
    std::cout << fmt::format("{:<10} {}\n", name, cfg.get<std::string>("gpu.description"));
  }
  return 0;
}

namespace {

nlohmann::ordered_json value_json(const config::Value& v) {
  return std::visit([](const auto& x) { return nlohmann::ordered_json(x); }, v);
}

// For scripts (the sweep validator): an unbounded side of a range is null,
// since JSON has no infinity.
nlohmann::ordered_json param_json(const config::ParamInfo& p) {
  auto bound = [](double x) { return std::isfinite(x) ? nlohmann::ordered_json(x) : nlohmann::ordered_json(nullptr); };
  return nlohmann::ordered_json{{"name", p.name},
                                {"type", config::type_name(p.type)},
                                {"default", value_json(p.def)},
                                {"unit", p.unit},
                                {"min", bound(p.range.min)},
                                {"max", bound(p.range.max)},
                                {"part_dir", p.part_dir},
                                {"description", p.desc}};
}

}  // namespace

int params_command(const std::string& format) {
  auto params = config::ParamRegistry::instance().all();
  if (format == "json") {
    nlohmann::ordered_json list = nlohmann::ordered_json::array();
    for (const auto* p : params) list.push_back(param_json(*p));
    std::cout << nlohmann::ordered_json{{"schema", "warpsim-params/1"}, {"params", list}}.dump(1) << "\n";
    return 0;
  }
  if (format == "markdown") {
    std::cout << "| parameter | type | default | unit | range | description |\n|---|---|---|---|---|---|\n";
    for (const auto* p : params)
      std::cout << fmt::format("| `{}` | {} | `{}` | {} | {} | {} |\n", p->name, config::type_name(p->type),
                               config::value_to_string(p->def), p->unit, p->range.to_string(), p->desc);
    return 0;
  }
  for (const auto* p : params)
    std::cout << fmt::format("{:<36} {:<8} {:>12} {:<12} {}\n", p->name, config::type_name(p->type),
                             config::value_to_string(p->def), p->unit, p->desc);
  return 0;
}

}  // namespace ws::tools
