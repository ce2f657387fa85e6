// One warp of a one-kernel PTX module under the timing model, for tests that
// compare cycles and instruction counts: the kernel's first parameter is the
// address of a device buffer that the caller fills and reads back; bytes
// given as `more_params` follow it.
#pragma once
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "exec/device.h"
#include "frontend/ptx/parser.h"

namespace ws::exec::test {

struct TimedRun {
  uint64_t cycles = 0, warp_insts = 0;
  std::vector<uint32_t> words;  // the buffer after the kernel
  nlohmann::json counters;      // stats.json's whole-run counters
};

// `words`: the buffer's initial contents; `fill`, when given, may change
// them once the buffer's device address is known.
inline TimedRun run_timed(const std::string& ptx, const std::string& kernel, std::vector<uint32_t> words,
                          const std::string& preset, std::vector<std::string> sets,
                          const std::function<void(std::vector<uint32_t>&, Addr)>& fill = {},
                          const std::vector<uint8_t>& more_params = {}) {
  static int runs = 0;
  auto out = std::filesystem::temp_directory_path() /
             ("warpsim-timed-" + std::to_string(::getpid()) + "-" + std::to_string(runs++));
  std::filesystem::remove_all(out);
  DeviceOptions o;
  o.timing = true;
  o.print_summary = false;
  o.out_dir = out.string();
  o.preset = preset;
  o.sets = std::move(sets);
  TimedRun r;
  {
    Device dev(o);
    const LoadedModule& m = dev.program().load(ptx::parse_module(ptx, "t.ptx"));
    Addr p = *dev.memory().allocate(words.size() * 4);
    if (fill) fill(words, p);
    dev.copy_to_device(p, words.data(), words.size() * 4);
    Launch l;
    l.module = &m;
    l.kernel = m.ast.find_function(kernel);
    l.grid = Dim3{1, 1, 1}, l.block = Dim3{32, 1, 1};
    l.params.assign(8, 0);
    std::memcpy(l.params.data(), &p, 8);
    l.params.insert(l.params.end(), more_params.begin(), more_params.end());
    LaunchResult lr = dev.launch(l, StreamRef{});
    EXPECT_TRUE(lr.ok) << lr.error;
    r.words.resize(words.size());
    dev.copy_to_host(r.words.data(), p, words.size() * 4);
    dev.finish();
  }
  std::ifstream f(out / "stats.json");
  auto j = nlohmann::json::parse(f);
  auto k = j["kernels"][0];
  r.counters = j["counters"];
  r.cycles = k["cycles"].get<uint64_t>();
  r.warp_insts = k["warp_insts"].get<uint64_t>();
  std::filesystem::remove_all(out);
  return r;
}

}  // namespace ws::exec::test
