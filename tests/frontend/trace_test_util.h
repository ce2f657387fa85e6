// Helpers shared by the frontend tests: temp folders, file writing, counting.
#pragma once
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>
#include <vector>

#include "common/error.h"
#include "frontend/trace/trace_reader.h"

namespace ws::frontend::test {

// Removes the test's temp folders when the test binary exits.
struct TempDirs {
  std::vector<std::filesystem::path> dirs;
  ~TempDirs() {
    std::error_code ec;
    for (const auto& d : dirs) std::filesystem::remove_all(d, ec);
  }
};

inline std::filesystem::path temp_dir(const std::string& name) {
  static TempDirs all;
  auto d = std::filesystem::temp_directory_path() / ("warpsim-fe-" + name + "-" + std::to_string(::getpid()));
  std::filesystem::remove_all(d);
  std::filesystem::create_directories(d);
  all.dirs.push_back(d);
  return d;
}

inline void write_file(const std::filesystem::path& p, const std::string& text) {
  std::ofstream(p, std::ios::binary) << text;
}

inline std::string isa_dir() { return std::string(WARPSIM_SOURCE_DIR) + "/isa"; }

// Drains a kernel, returning the number of warp instructions in all CTAs.
inline uint64_t count_kernel(ir::KernelSource& k) {
  uint64_t n = 0;
  while (auto cta = k.next_cta())
    for (uint32_t w = 0; w < cta->num_warps(); ++w)
      while (cta->next(w)) ++n;
  return n;
}

// Drains a workload: total warp instructions over all kernels.
inline uint64_t count_workload(ir::WorkloadSource& wl, uint32_t* kernels = nullptr, uint32_t* copies = nullptr) {
  uint64_t n = 0;
  while (auto c = wl.next()) {
    if (auto* k = std::get_if<std::unique_ptr<ir::KernelSource>>(&*c)) {
      n += count_kernel(**k);
      if (kernels) ++*kernels;
    } else if (copies) {
      ++*copies;
    }
  }
  return n;
}

// The message of the InputError `f` throws ("" if none).
template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

}  // namespace ws::frontend::test
