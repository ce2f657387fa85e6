// warpsim run --compare: one workload, two timing models, side by side.
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "common/demangle.h"
#include "tools/report.h"

namespace ws::tools {

namespace {

std::string hit_pct(const MemTotals& m, bool l1) {
  uint64_t acc = l1 ? m.l1_accesses() : m.l2_accesses(), hits = l1 ? m.l1_hits() : m.l2_hits();
  return acc ? fmt::format("{:.1f}", 100.0 * static_cast<double>(hits) / static_cast<double>(acc)) : "-";
}

}  // namespace

void print_comparison(std::ostream& os, const ComparedRun& a, const ComparedRun& b) {
  os << fmt::format("model comparison: {} vs {} (error = ({} - {}) / {})\n", a.model, b.model, a.model, b.model,
                    b.model);
  constexpr const char* kRow = "{:>3}  {:<40} {:>12} {:>12} {:>8} {:>13} {:>13}\n";
  os << fmt::format(kRow, "#", "kernel", a.model, b.model, "error", "L1 hit (%)", "L2 hit (%)");
  size_t n = std::min(a.report->kernels.size(), b.report->kernels.size());
  double sum_abs = 0, max_abs = 0;
  uint64_t total_a = 0, total_b = 0;
  for (size_t i = 0; i < n; ++i) {
    const timing::KernelResult &ka = a.report->kernels[i], &kb = b.report->kernels[i];
    double err = kb.cycles ? (static_cast<double>(ka.cycles) - static_cast<double>(kb.cycles)) /
                                 static_cast<double>(kb.cycles)
                           : 0.0;
    sum_abs += std::abs(err);
    max_abs = std::max(max_abs, std::abs(err));
    total_a += ka.cycles;
    total_b += kb.cycles;
    MemTotals ma = mem_totals(*a.reg, ka.before, ka.after), mb = mem_totals(*b.reg, kb.before, kb.after);
    os << fmt::format(kRow, ka.id, demangle_fit(ka.name, 40), ka.cycles, kb.cycles,
                      fmt::format("{:+.1f}%", 100 * err), hit_pct(ma, true) + " / " + hit_pct(mb, true),
                      hit_pct(ma, false) + " / " + hit_pct(mb, false));
  }
  if (a.report->kernels.size() != b.report->kernels.size())
    os << fmt::format("kernels differ in number: {} ran {}, {} ran {}\n", a.model, a.report->kernels.size(), b.model,
                      b.report->kernels.size());
  double wa = a.report->wall_seconds, wb = b.report->wall_seconds;
  os << fmt::format("total cycles: {} {}, {} {}; mean |error| {:.1f}%, max |error| {:.1f}% over {} kernels\n",
                    a.model, total_a, b.model, total_b, n ? 100 * sum_abs / static_cast<double>(n) : 0.0,
                    100 * max_abs, n);
  os << fmt::format("host seconds: {} {:.3f}, {} {:.3f}; speedup {:.1f}x\n", a.model, wa, b.model, wb,
                    wa > 0 ? wb / wa : 0.0);
}

}  // namespace ws::tools
