// `warpsim profile`: per-kernel features of a workload, no timing (sampling).
// A trace folder is read here; a CUDA program runs functionally under the
// warpsim runtime, which writes the same CSV (exec/device.cpp).
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <iostream>

#include <fmt/format.h>

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
  std::cout.flush();
  pid_t child = fork();
  if (child < 0) throw Error(std::string("profile: cannot start the program: ") + std::strerror(errno));
  if (child == 0) {
    try {
      std::_Exit(exec_command(e));
    } catch (const std::exception& ex) {
      std::cerr << "warpsim: error: " << ex.what() << std::endl;
      std::_Exit(1);
    }
  }
  int status = 0;
  while (waitpid(child, &status, 0) < 0)
    if (errno != EINTR) throw Error(std::string("profile: waitpid: ") + std::strerror(errno));
  int rc = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  if (!fs::exists(opt.out, ec)) {
    std::cerr << fmt::format("warpsim: error: {} launched no kernel through warpsim's libcudart; {} not written\n",
                             opt.command[0], opt.out);
    return rc ? rc : 1;
  }
  if (rc) std::cerr << fmt::format("warpsim: {} exited with status {}; {} holds its launches so far\n",
                                   opt.command[0], rc, opt.out);
  return rc;
}

}  // namespace

int profile_command(const ProfileOptions& opt) {
  if (!opt.command.empty()) return profile_program(opt);
  if (opt.workload.empty()) throw InputError("profile: give a trace folder, or a program after --");
  return profile_traces(opt);
}

}  // namespace ws::tools
