#include "exec/runtime/env_options.h"

#include <fmt/format.h>

#include "common/error.h"

namespace ws::runtime {
namespace {

bool flag(const GetEnv& getenv, const char* name) {
  const char* v = getenv(name);
  if (v == nullptr || *v == '\0') return false;
  std::string s(v);
  if (s == "1" || s == "true" || s == "yes" || s == "on") return true;
  if (s == "0" || s == "false" || s == "no" || s == "off") return false;
  throw InputError(fmt::format("{}={}: expected 1 or 0", name, s));
}

std::string text(const GetEnv& getenv, const char* name, std::string fallback = "") {
  const char* v = getenv(name);
  return (v == nullptr || *v == '\0') ? fallback : std::string(v);
}

uint32_t count(const GetEnv& getenv, const char* name) {
  std::string s = text(getenv, name, "0");
  size_t used = 0;
  unsigned long v = 0;
  try {
    v = std::stoul(s, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != s.size() || s[0] == '-' || v > 0xffffffffUL)
    throw InputError(fmt::format("{}={}: expected a count of launches", name, s));
  return static_cast<uint32_t>(v);
}

}  // namespace

RuntimeOptions options_from_env(const GetEnv& getenv) {
  RuntimeOptions o;
  o.device.preset = text(getenv, "WARPSIM_GPU", o.device.preset);
  std::string sets = text(getenv, "WARPSIM_SET");
  for (size_t start = 0; start <= sets.size();) {
    size_t end = sets.find(';', start);
    if (end == std::string::npos) end = sets.size();
    std::string item = sets.substr(start, end - start);
    if (!item.empty()) {
      if (item.find('=') == std::string::npos || item.front() == '=')
        throw InputError(fmt::format("WARPSIM_SET: '{}' is not key=value", item));
      o.device.sets.push_back(item);
    }
    start = end + 1;
  }
  o.device.timing = flag(getenv, "WARPSIM_TIMING");
  o.device.out_dir = text(getenv, "WARPSIM_OUT");
  o.device.trace_out = text(getenv, "WARPSIM_TRACE_OUT");
  o.device.trace_binary = flag(getenv, "WARPSIM_TRACE_BINARY");
  o.device.plan = text(getenv, "WARPSIM_PLAN");
  o.device.profile_out = text(getenv, "WARPSIM_PROFILE");
  o.device.profile_full = count(getenv, "WARPSIM_PROFILE_FULL");
  o.verbose = flag(getenv, "WARPSIM_VERBOSE");
  return o;
}

}  // namespace ws::runtime
