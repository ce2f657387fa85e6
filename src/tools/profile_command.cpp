// `warpsim profile`: per-kernel features of a workload, no timing (sampling).
// A trace folder is read here; a CUDA program runs functionally under the
// warpsim runtime, which writes the same CSV (exec/device.cpp).
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "common/demangle.h"
#include "common/error.h"
#include "common/interrupt.h"
#include "frontend/trace/trace_reader.h"
#include "sampling/kernel_features.h"
#include "sampling/profile_csv.h"
#include "tools/commands.h"
#include "tools/progress_line.h"
#include "tools/report.h"

namespace ws::tools {
namespace {

namespace fs = std::filesystem;

int profile_traces(const ProfileOptions& opt) {
  auto work = frontend::open_trace_workload(opt.workload);
  std::string csv = sampling::profile_csv_header();
  InterruptGuard on_signal;
  ProgressLine progress(opt.progress);
  uint32_t index = 0;
  auto total = work->kernel_count();
  while (!pending_interrupt()) {
    auto cmd = work->next();
    if (!cmd) break;
    auto* kernel = std::get_if<std::unique_ptr<ir::KernelSource>>(&*cmd);
    if (!kernel) continue;  // copies and host synchronisations carry no features
    ++index;
    const ir::KernelInfo& info = (*kernel)->info();
    if (opt.full_launches && index > opt.full_launches) {  // two-level: the cheap features, nothing read
      csv += sampling::profile_csv_cheap_row(index, info.name, info.grid, info.block);
      continue;
    }
    progress.show(fmt::format("[profile {}/{}] {}", index, total ? std::to_string(*total) : "?",
                              demangle_fit(info.name, 48)));
    csv += sampling::profile_csv_row(sampling::profile_kernel(**kernel, index));
  }
  progress.clear();
  if (int signo = pending_interrupt()) {
    std::cerr << "warpsim: " << interrupt_reason() << ": nothing written\n";
    return 128 + signo;
  }
  if (index == 0) throw Error(opt.workload + ": the workload has no kernel to profile");
  write_file_atomic(opt.out, csv);
  std::cout << fmt::format("profiled {} kernel launches into {}\n", index, opt.out);
  return 0;
}

// Runs `body` in a forked child and returns its exit status (128 + signal if
// killed). `quiet`: the child's standard output goes to /dev/null.
int in_child(const std::function<int()>& body, bool quiet) {
  std::cout.flush();
  pid_t child = fork();
  if (child < 0) throw Error(std::string("profile: cannot start the program: ") + std::strerror(errno));
  if (child == 0) {
    if (quiet) {
      int null = open("/dev/null", O_WRONLY);
      if (null >= 0) dup2(null, STDOUT_FILENO);
    }
    try {
      std::_Exit(body());
    } catch (const std::exception& ex) {
      std::cerr << "warpsim: error: " << ex.what() << std::endl;
      std::_Exit(1);
    }
  }
  int status = 0;
  while (waitpid(child, &status, 0) < 0)
    if (errno != EINTR) throw Error(std::string("profile: waitpid: ") + std::strerror(errno));
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

// The program runs in a child (`warpsim exec` without timing, told where to
// write the CSV): its exit status is ours, and a program that launched no
// kernel through warpsim's runtime leaves no CSV, which is said here.
int profile_program(const ProfileOptions& opt) {
  std::error_code ec;
  fs::remove(opt.out, ec);  // an old profile must not pass for this run's
  ExecOptions e;
  e.command = opt.command;
  e.gpu = opt.gpu;
  e.sets = opt.sets;
  e.profile_out = fs::absolute(opt.out).string();  // the program may change its directory
  e.profile_full = opt.full_launches;
  int rc = in_child([&] { return exec_command(e); }, false);
  if (!fs::exists(opt.out, ec)) {
    std::cerr << fmt::format("warpsim: error: {} launched no kernel through warpsim's libcudart; {} not written\n",
                             opt.command[0], opt.out);
    return rc ? rc : 1;
  }
  if (rc) std::cerr << fmt::format("warpsim: {} exited with status {}; {} holds its launches so far\n",
                                   opt.command[0], rc, opt.out);
  return rc;
}

std::vector<sampling::LaunchCycles> read_launch_cycles(const std::string& stats_path) {
  std::ifstream in(stats_path);
  if (!in) throw InputError(stats_path + ": the timed run wrote no stats.json");
  nlohmann::json j = nlohmann::json::parse(in, nullptr, false);
  if (j.is_discarded() || !j.contains("kernels")) throw InputError(stats_path + ": not a warpsim stats.json");
  std::vector<sampling::LaunchCycles> launches;
  for (const auto& k : j["kernels"]) {
    if (!k.value("complete", false))
      throw InputError(stats_path, 0, fmt::format("kernels[{}]", launches.size()), "the kernel did not finish");
    launches.push_back({k.value("mangled_name", ""), k.value("cycles", uint64_t{0})});
  }
  return launches;
}

// --cycles-model: the workload once more, timed by that model into a scratch
// folder; each launch's kernel cycles become the CSV's cycles column, which
// `warpsim sample plan` checks its groupings against. A program's output of
// this second run is not shown (the first run showed it).
int add_model_cycles(const ProfileOptions& opt) {
  std::string scratch = (fs::temp_directory_path() / "warpsim-profile-XXXXXX").string();
  if (!mkdtemp(scratch.data())) throw Error("profile: cannot make a scratch folder: " + std::string(std::strerror(errno)));
  std::vector<std::string> sets = opt.sets;
  sets.push_back("gpu.model=" + opt.cycles_model);
  std::cout << fmt::format("timing every launch with the {} model (--cycles-model)\n", opt.cycles_model);
  auto start = std::chrono::steady_clock::now();
  int rc = 0;
  if (opt.command.empty()) {
    RunOptions r;
    r.workload = opt.workload;
    r.gpu = opt.gpu;
    r.sets = sets;
    r.out = scratch;
    r.format = "none";
    r.progress = opt.progress;
    rc = run_command(r);
  } else {
    ExecOptions e;
    e.command = opt.command;
    e.gpu = opt.gpu;
    e.sets = sets;
    e.timing = true;
    e.out = scratch;
    rc = in_child([&] { return exec_command(e); }, true);
  }
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::string stats = scratch + "/stats.json";
  auto done = [&](int status) {
    std::error_code ec;
    fs::remove_all(scratch, ec);
    return status;
  };
  if (rc) {
    std::cerr << fmt::format("warpsim: error: the {} timing run failed (status {}); {} has no cycles\n",
                             opt.cycles_model, rc, opt.out);
    return done(rc);
  }
  try {
    std::ifstream in(opt.out);
    std::string csv((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    write_file_atomic(opt.out, sampling::profile_csv_add_cycles(csv, read_launch_cycles(stats), opt.out, stats));
  } catch (const Error& e) {
    std::cerr << "warpsim: error: " << e.what() << "; " << opt.out << " has no cycles\n";
    return done(1);
  }
  std::cout << fmt::format("added each launch's cycles ({} model, {:.1f} s) to {} as {}\n", opt.cycles_model, seconds,
                           opt.out, sampling::kCyclesColumn);
  return done(0);
}

}  // namespace

int profile_command(const ProfileOptions& opt) {
  if (opt.command.empty() && opt.workload.empty())
    throw InputError("profile: give a trace folder, or a program after --");
  int rc = opt.command.empty() ? profile_traces(opt) : profile_program(opt);
  if (rc || opt.cycles_model.empty()) return rc;
  return add_model_cycles(opt);
}

}  // namespace ws::tools
