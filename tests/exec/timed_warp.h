// Test helper for exec --timing: one warp of a PTX kernel, timed, whose
// first parameter is a buffer it writes its results (clock differences) to.
#pragma once
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "exec/device.h"
#include "exec/emu_test_util.h"
#include "frontend/ptx/parser.h"

namespace ws::exec::test {

struct TimedWarp {
  std::vector<std::string> sets;    // overrides (l1i.perfect=true is added)
  size_t bytes = 256;               // the buffer
  std::vector<uint32_t> init;       // its first words before the launch
  std::vector<uint8_t> more_params;  // the kernel's parameters after the buffer's address
};

// Runs kernel `name` of `ptx` on the default preset (qv100) as one warp and
// returns the buffer's first `words` words after it.
inline std::vector<uint32_t> run_timed_warp(const std::string& ptx, const std::string& name, const TimedWarp& t,
                                            size_t words) {
  DeviceOptions o;
  o.timing = true;
  o.print_summary = false;
  o.sets = t.sets;
  o.sets.push_back("l1i.perfect=true");
  Device dev(o);
  const LoadedModule& m = dev.program().load(ptx::parse_module(ptx, "t.ptx"));
  Addr p = *dev.memory().allocate(t.bytes);
  if (!t.init.empty()) dev.copy_to_device(p, t.init.data(), t.init.size() * 4);
  std::vector<uint8_t> params = param_bytes(p);
  params.insert(params.end(), t.more_params.begin(), t.more_params.end());
  LaunchResult lr = dev.launch(one_warp(m, name, params), StreamRef{});
  EXPECT_TRUE(lr.ok) << lr.error;
  std::vector<uint32_t> out(words);
  dev.copy_to_host(out.data(), p, words * 4);
  dev.finish();
  return out;
}

}  // namespace ws::exec::test
