#include "sampling/profile_csv.h"

#include <fmt/format.h>

#include <sstream>

#include "common/error.h"

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

// The second field of a row this file wrote: the quoted kernel name.
std::string row_name(const std::string& row) {
  size_t i = row.find(",\"");
  if (i == std::string::npos) return "";
  std::string name;
  for (i += 2; i < row.size(); ++i) {
    if (row[i] == '"') {
      if (i + 1 < row.size() && row[i + 1] == '"') ++i;  // a doubled quote is one quote
      else break;
    }
    name += row[i];
  }
  return name;
}

}  // namespace

std::string profile_csv_add_cycles(const std::string& csv, const std::vector<LaunchCycles>& launches,
                                   const std::string& csv_path, const std::string& timed_from) {
  std::istringstream in(csv);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  if (lines.empty()) throw InputError(csv_path, 1, "", "empty profile");
  const char* why = "the two runs of the workload did not launch the same kernels";
  if (lines.size() - 1 != launches.size())
    throw InputError(timed_from, 0, "kernels",
                     fmt::format("the timed run has {} launches, the profile ({}) {}: {}", launches.size(), csv_path,
                                 lines.size() - 1, why));
  std::string out = lines[0] + fmt::format(",\"{}\"\n", kCyclesColumn);
  for (size_t i = 0; i < launches.size(); ++i) {
    std::string name = row_name(lines[i + 1]);
    if (name != launches[i].name)
      throw InputError(timed_from, 0, fmt::format("kernels[{}]", i),
                       fmt::format("launch {} is '{}', the profile's ({}) is '{}': {}", i + 1, launches[i].name,
                                   csv_path, name, why));
    out += lines[i + 1] + fmt::format(",{}\n", launches[i].cycles);
  }
  return out;
}

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
