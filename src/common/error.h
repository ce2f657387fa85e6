// Errors carry their context (file, line, field or parameter) in the message so
// that the CLI can print one clear line and exit non-zero.
#pragma once
#include <cstdint>
#include <stdexcept>
#include <string>

namespace ws {

class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Bad user input: a trace, a config file, a command-line value.
class InputError : public Error {
 public:
  // "file:line: field 'f': what"  (line 0 and empty field are omitted)
  InputError(const std::string& file, uint64_t line, const std::string& field, const std::string& what);
  explicit InputError(const std::string& what) : Error(what) {}
};

// Bad configuration: names the parameter.
class ConfigError : public Error {
 public:
  ConfigError(const std::string& param, const std::string& what);
};

}  // namespace ws
