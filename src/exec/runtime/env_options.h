// The device options of a program run under the warpsim runtime, read from
// the environment that `warpsim exec` sets (docs/exec.md, "Runtime library").
#pragma once
#include <functional>
#include <string>

#include "exec/device.h"

namespace ws::runtime {

struct RuntimeOptions {
  exec::DeviceOptions device;
  bool verbose = false;  // WARPSIM_VERBOSE=1: debug log on stderr
};

using GetEnv = std::function<const char*(const char*)>;

// WARPSIM_GPU, WARPSIM_SET ("k=v;k=v"), WARPSIM_TIMING, WARPSIM_OUT,
// WARPSIM_TRACE_OUT, WARPSIM_PLAN, WARPSIM_PROFILE, WARPSIM_PROFILE_FULL,
// WARPSIM_VERBOSE. Throws InputError on a malformed value.
RuntimeOptions options_from_env(const GetEnv& getenv);

}  // namespace ws::runtime
