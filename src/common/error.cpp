#include "common/error.h"

namespace ws {

static std::string format_input_error(const std::string& file, uint64_t line, const std::string& field,
                                      const std::string& what) {
  std::string s = file;
  if (line > 0) s += ":" + std::to_string(line);
  s += ": ";
  if (!field.empty()) s += "field '" + field + "': ";
  return s + what;
}

InputError::InputError(const std::string& file, uint64_t line, const std::string& field, const std::string& what)
    : Error(format_input_error(file, line, field, what)) {}

ConfigError::ConfigError(const std::string& param, const std::string& what)
    : Error("parameter '" + param + "': " + what) {}

}  // namespace ws
