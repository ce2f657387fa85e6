#include "sampling/profile_csv.h"

#include <fmt/format.h>

namespace ws::sampling {
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

}  // namespace

std::string profile_csv_header() {
  std::string h = "\"ID\",\"Kernel Name\",\"Grid Size\",\"Block Size\"";
  for (size_t i = 0; i < kFeatureCount; ++i) h += fmt::format(",\"{}\"", ncu_name(static_cast<Feature>(i)));
  return h + "\n";
}

std::string profile_csv_row(const KernelFeatures& f) {
  std::string row = fmt::format("{},{},{},{}", f.id, csv_quote(f.name), dim3(f.grid), dim3(f.block));
  for (double v : f.values) row += fmt::format(",{:.6g}", v);
  return row + "\n";
}

std::string profile_csv_cheap_row(uint32_t id, const std::string& name, Dim3 grid, Dim3 block) {
  return fmt::format("{},{},{},{}{}\n", id, csv_quote(name), dim3(grid), dim3(block), std::string(kFeatureCount, ','));
}

}  // namespace ws::sampling
