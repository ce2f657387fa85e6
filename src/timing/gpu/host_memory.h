// What the timing model built from a config will need of the host's memory,
// checked before anything is built: in-range parameters (1024 SMs with 64 MiB
// L1s) can ask for more than the machine has, and the OOM killer that would
// stop the run leaves no message.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "config/config.h"

namespace ws::timing {

struct HostMemoryEstimate {
  struct Part {
    std::string what;  // names the parameters it follows from
    uint64_t bytes = 0;
  };
  std::vector<Part> parts;  // largest first
  uint64_t bytes = 0;       // their sum
};

// The model's large structures (cache tag arrays, MSHRs, warp slots and the
// fixed state of each SM and L2 slice), from the parameters that size them.
HostMemoryEstimate estimate_host_memory(const config::Config& cfg);

// MemAvailable from /proc/meminfo in bytes, or 0 where it cannot be read.
uint64_t host_available_bytes();

// Throws ConfigError when the estimate exceeds sim.max_host_memory_gb, or
// (that being 0) the host's available memory.
void check_host_memory(const config::Config& cfg);

}  // namespace ws::timing
