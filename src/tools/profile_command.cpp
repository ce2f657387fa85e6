// `warpsim profile`: per-kernel features of a workload, no timing (sampling).
#include <iostream>
#include <sstream>

#include <fmt/format.h>

#include "common/demangle.h"
#include "common/error.h"
#include "common/interrupt.h"
#include "frontend/trace/trace_reader.h"
#include "sampling/kernel_features.h"
#include "tools/commands.h"
#include "tools/progress_line.h"
#include "tools/report.h"

namespace ws::tools {
namespace {

std::string csv_quote(const std::string& s) {
  std::string q = "\"";
  for (char c : s) {
    if (c == '"') q += '"';
    q += c;
  }
  return q + "\"";
}

std::string dim3(const Dim3& d) { return fmt::format("\"({}, {}, {})\"", d.x, d.y, d.z); }

void write_header(std::ostream& os) {
  os << "\"ID\",\"Kernel Name\",\"Grid Size\",\"Block Size\"";
  for (size_t i = 0; i < sampling::kFeatureCount; ++i)
    os << ",\"" << sampling::ncu_name(static_cast<sampling::Feature>(i)) << "\"";
  os << "\n";
}

void write_row(std::ostream& os, const sampling::KernelFeatures& f) {
  os << f.id << "," << csv_quote(f.name) << "," << dim3(f.grid) << "," << dim3(f.block);
  for (double v : f.values) os << "," << fmt::format("{:.6g}", v);
  os << "\n";
}

}  // namespace

int profile_command(const ProfileOptions& opt) {
  auto work = frontend::open_trace_workload(opt.workload);
  std::ostringstream csv;
  write_header(csv);
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
    progress.show(fmt::format("[profile {}/{}] {}", index, total ? std::to_string(*total) : "?",
                              demangle_fit((*kernel)->info().name, 48)));
    write_row(csv, sampling::profile_kernel(**kernel, index));
  }
  progress.clear();
  if (int signo = pending_interrupt()) {
    std::cerr << "warpsim: " << interrupt_reason() << ": nothing written\n";
    return 128 + signo;
  }
  if (index == 0) throw Error(opt.workload + ": the workload has no kernel to profile");
  write_file_atomic(opt.out, csv.str());
  std::cout << fmt::format("profiled {} kernel launches into {}\n", index, opt.out);
  return 0;
}

}  // namespace ws::tools
