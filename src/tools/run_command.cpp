#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <iostream>
#include <set>

#include <cmath>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "common/demangle.h"
#include "common/error.h"
#include "common/interrupt.h"
#include "config/config.h"
#include "frontend/trace/trace_reader.h"
#include "tools/commands.h"
#include "tools/progress_line.h"
#include "tools/report.h"
#include "tools/sampling_report.h"

namespace ws::tools {

namespace {

using Clock = std::chrono::steady_clock;

config::Config load_config(const RunOptions& opt) {
  config::Config cfg;
  cfg.load_file(config::find_preset(opt.gpu));
  for (const std::string& s : opt.sets) cfg.set_assignment(s);
  return cfg;
}

// Kernels go to the GPU on their trace's stream ids: kernels of different
// streams may overlap, those of one stream (all of them in a trace whose ids
// are all 0) run in order. A copy or a HostSync line waits for all of them,
// and so does a plan's replay (one kernel at a time); at most
// kMaxInFlight launches are queued before the GPU catches up.
constexpr size_t kMaxInFlight = 64;

// A copy on a stream goes to the model's copy engines; a model without them
// waits for the queued kernels and warms the L2 with an upload, as for a
// MemcpyHtoD line.
template <typename CatchUp>
void replay_copy(timing::TimingModel& gpu, const ir::StreamCopy& c, bool blocking, CatchUp& catch_up) {
  timing::CopyWork w{c.to_device ? timing::CopyDirection::HostToDevice : timing::CopyDirection::DeviceToHost,
                     c.device_addr, c.bytes, {}};
  if (gpu.queue_copy(std::move(w), c.stream, blocking)) return;
  catch_up();
  if (c.to_device) gpu.memcpy_htod(ir::MemcpyHtoD{c.device_addr, c.bytes});
}

void simulate(ir::WorkloadSource& work, timing::TimingModel& gpu, RunReport& report, bool progress_on,
              const sampling::KernelPlan* plan) {
  ProgressLine progress(progress_on);
  auto start = Clock::now();
  auto total = work.kernel_count();
  uint32_t index = 0;
  uint64_t done_warp_insts = 0;
  std::vector<std::unique_ptr<ir::KernelSource>> in_flight;
  std::set<int64_t> nonblocking;  // streams a StreamNonBlocking line named
  auto ended = [&](std::vector<timing::KernelResult> results) {
    for (timing::KernelResult& r : results) {
      report.kernels.push_back(std::move(r));
      report.wall_at_kernel_end.push_back(std::chrono::duration<double>(Clock::now() - start).count());
      done_warp_insts += warp_insts(gpu.stats(), report.kernels.back());
    }
  };
  auto catch_up = [&] {
    if (in_flight.empty() && gpu.streams_idle()) return;
    std::string tag = fmt::format("[kernels to {}/{}]", index, total ? std::to_string(*total) : "?");
    auto before = gpu.stats().snapshot();
    auto cb = [&](Cycle c) {
      progress.update(tag, c, done_warp_insts + gpu.stats().sum("sm.*.warp_insts", before, gpu.stats().snapshot()));
    };
    try {
      ended(gpu.synchronize({}, cb));
    } catch (timing::KernelStopped& stop) {
      ended(gpu.take_ended());
      ended({std::move(stop.partial)});  // counted, and marked incomplete
      throw;
    }
    in_flight.clear();
  };
  while (!pending_interrupt()) {
    auto cmd = work.next();
    if (!cmd) break;
    if (auto* copy = std::get_if<ir::MemcpyHtoD>(&*cmd)) {
      catch_up();
      gpu.memcpy_htod(*copy);
      continue;
    }
    if (std::holds_alternative<ir::HostSync>(*cmd)) {
      catch_up();
      gpu.host_sync();
      continue;
    }
    if (auto* c = std::get_if<ir::StreamCopy>(&*cmd)) {
      replay_copy(gpu, *c, !nonblocking.count(c->stream), catch_up);
      continue;
    }
    if (auto* e = std::get_if<ir::StreamEvent>(&*cmd)) {
      bool blocking = !nonblocking.count(e->stream);
      if (e->kind == ir::StreamEvent::Kind::NonBlocking) nonblocking.insert(e->stream);
      else if (e->kind == ir::StreamEvent::Kind::Record) gpu.record_event(e->event, e->stream, blocking);
      else gpu.wait_event(e->stream, e->event, blocking);
      continue;
    }
    auto& kernel = std::get<std::unique_ptr<ir::KernelSource>>(*cmd);
    ++index;
    if (plan && skip_launch(*plan, report, index, kernel->info().name)) continue;
    if (plan || in_flight.size() >= kMaxInFlight) catch_up();
    gpu.launch(*kernel, kernel->info().stream, !nonblocking.count(kernel->info().stream));
    in_flight.push_back(std::move(kernel));
    if (plan) catch_up();
  }
  catch_up();
  if (plan && !pending_interrupt()) plan->check_count(index);
}

struct ModelRun {
  std::unique_ptr<timing::TimingModel> model;
  RunReport report;
};

std::optional<sampling::KernelPlan> load_plan(const RunOptions& opt, RunReport& report) {
  if (opt.plan.empty()) return std::nullopt;
  sampling::KernelPlan plan = sampling::KernelPlan::load(opt.plan);
  report.sampling = sampling_report(plan);
  return plan;
}

// One whole run of the workload through the model `model_name` names; the
// configuration goes to `config_dir` (if any) once the run can start.
ModelRun run_model(const RunOptions& opt, const config::Config& cfg, const std::string& model_name,
                   const std::string& config_dir) {
  auto memory_bytes = static_cast<uint64_t>(cfg.get<double>("gpu.memory_gb") * double(1ull << 30));
  auto work = frontend::open_trace_workload(opt.workload, memory_bytes);
  ModelRun run;
  RunReport& report = run.report;
  std::optional<sampling::KernelPlan> plan = load_plan(opt, report);
  if (plan && work->kernel_count()) plan->check_count(*work->kernel_count());
  run.model = timing::make_timing_model(cfg, model_name);
  timing::TimingModel& gpu = *run.model;
  if (!config_dir.empty()) write_file_atomic(config_dir + "/config.toml", cfg.to_toml());
  gpu.set_stop_check(interrupt_reason);
  report.workload = opt.workload;
  report.preset = opt.gpu;
  report.sms = gpu.num_sms();
  report.core_mhz = gpu.core_mhz();
  report.host_threads = gpu.host_threads();
  report.max_warps_per_sm = gpu.max_warps_per_sm();
  report.launch_l2_reads = launch_l2_read_sectors(cfg);
  auto start = Clock::now();
  try {
    simulate(*work, gpu, report, opt.progress, plan ? &*plan : nullptr);
  } catch (const Error& e) {
    report.error = e.what();  // keep the kernels already simulated
  }
  if (int signo = pending_interrupt()) {
    report.signal = signo;
    if (!report.error) report.error = interrupt_reason() + " between kernels";
  }
  report.wall_seconds = std::chrono::duration<double>(Clock::now() - start).count();
  return run;
}

}  // namespace

int run_command(const RunOptions& opt) {
  if (!opt.out.empty()) prepare_out_dir(opt.out);  // first: no old stats.json outlives a failed start
  config::Config cfg = load_config(opt);
  InterruptGuard on_signal;  // Ctrl-C or SIGTERM: stop, keep what is finished
  ModelRun run = run_model(opt, cfg, timing::model_name(cfg), opt.out);
  RunReport& report = run.report;
  const stats::Registry& reg = run.model->stats();
  if (!opt.out.empty()) write_file_atomic(opt.out + "/stats.json", stats_json(report, reg));
  if (opt.format == "accelsim") print_accelsim(std::cout, report, reg);
  if (opt.format == "summary") print_summary(std::cout, report, reg);
  if (opt.format == "json") std::cout << stats_json(report, reg);
  if (!opt.compare.empty() && !report.error) {
    ModelRun other = run_model(opt, cfg, opt.compare, "");
    if (other.report.error) report.error = "--compare " + opt.compare + ": " + *other.report.error;
    print_comparison(std::cout, ComparedRun{timing::model_name(cfg), &run.report, &run.model->stats()},
                     ComparedRun{opt.compare, &other.report, &other.model->stats()});
  }
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

namespace {

// A counter's family name: every all-digit segment (an SM, slice or channel
// index) becomes N, so that "sm.3.l1d.reads" and "sm.79.l1d.reads" are one row.
std::string counter_family(const std::string& name) {
  std::string out, seg;
  auto flush = [&] {
    bool index = !seg.empty() && seg.find_first_not_of("0123456789") == std::string::npos;
    out += (out.empty() ? "" : ".") + (index ? std::string("N") : seg);
    seg.clear();
  };
  for (char c : name) {
    if (c == '.') flush();
    else seg += c;
  }
  flush();
  return out;
}

}  // namespace

int counters_command(const std::string& preset, bool markdown) {
  config::Config cfg;
  cfg.load_file(config::find_preset(preset));
  const std::unique_ptr<timing::TimingModel> gpu = timing::make_timing_model(cfg);
  const stats::Registry& reg = gpu->stats();
  std::vector<std::pair<std::string, std::string>> rows;  // family, description; sorted, one per family
  for (size_t i = 0; i < reg.size(); ++i) rows.emplace_back(counter_family(reg.name(i)), reg.desc(i));
  std::stable_sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  rows.erase(std::unique(rows.begin(), rows.end(), [](const auto& a, const auto& b) { return a.first == b.first; }),
             rows.end());
  if (markdown) std::cout << "| counter | meaning |\n|---|---|\n";
  for (const auto& [family, desc] : rows)
    std::cout << (markdown ? fmt::format("| `{}` | {} |\n", family, desc) : fmt::format("{:<44} {}\n", family, desc));
  return 0;
}

}  // namespace ws::tools
