// libFuzzer target over the preset loader (TOML parsing, flattening, `base`
// chains, typed coercion and range checks, '*' families): any file must load
// or raise ws::Error (InputError naming file/line, ConfigError naming the
// parameter), never crash, assert or hang.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "common/error.h"
#include "config/config.h"
#include "config/param.h"

namespace {

using ws::config::Param;
// One parameter of each type, so that keys reach coercion instead of all
// failing as unknown (the fuzz build links none of the model's declarations).
const Param<int64_t> kInt{"gpu.sms", 80, "SMs", "int", {1, 1024}};
const Param<double> kFloat{"clock.core_mhz", 1132.0, "MHz", "float", {1, 10000}};
const Param<bool> kBool{"gpu.activity_gating", true, "", "bool"};
const Param<std::string> kString{"gpu.description", "", "", "string"};
const Param<std::vector<int64_t>> kList{"core.shared_carveout_kb", {0, 8, 16}, "KB", "int list"};
const Param<int64_t> kFamily{"core.units.*.latency", 4, "cycles", "family", {1, 4096}};
const bool kInstances = [] {
  ws::config::ParamRegistry::instance().declare_instances("core.units", {"sp", "int", "dp"});
  return true;
}();

// libFuzzer runs inputs one after another in one process: one file, rewritten.
const std::string& preset_path() {
  static const std::string path = [] {
    std::string p = "/tmp/warpsim-preset-fuzz-" + std::to_string(getpid()) + ".toml";
    std::atexit([] { std::remove(preset_path().c_str()); });
    return p;
  }();
  return path;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string& path = preset_path();
  FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) return 0;
  std::fwrite(data, 1, size, f);
  std::fclose(f);
  try {
    ws::config::Config cfg;
    cfg.load_file(path);
    // A loaded value is in its declared range.
    int64_t sms = kInt.get(cfg);
    if (sms < 1 || sms > 1024) __builtin_trap();
    (void)cfg.to_toml();
  } catch (const ws::Error&) {
  }
  return 0;
}
