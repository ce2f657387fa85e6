// Typed parameters, declared where they are used:
//
//   static const config::Param<int64_t> kLatency{"l1d.latency", 28, "cycles", "L1 hit latency", {1, 4096}};
//   int64_t lat = kLatency.get(cfg);
//
// Every declaration lands in the process-wide ParamRegistry, which drives
// validation of presets and --set overrides, `warpsim params`, the docs page
// and the effective-config dump. A '*' segment declares a family of
// parameters whose instances a preset names (e.g. "core.units.*.latency").
#pragma once
#include <cstdint>
#include <limits>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <variant>
#include <vector>

namespace ws::config {

enum class Type { Int, Float, Bool, String, IntList };
using Value = std::variant<int64_t, double, bool, std::string, std::vector<int64_t>>;

const char* type_name(Type t);
std::string value_to_string(const Value& v);

struct Range {
  double min = -std::numeric_limits<double>::infinity();
  double max = std::numeric_limits<double>::infinity();
  bool contains(double v) const { return v >= min && v <= max; }
  bool bounded() const;
  std::string to_string() const;
};

struct ParamInfo {
  std::string name;
  Type type = Type::Int;
  Value def;
  std::string unit;
  std::string desc;
  Range range;
  // Non-empty for a part selector: the value names <data>/<part_dir>/<value>.toml.
  std::string part_dir;
};

class ParamRegistry {
 public:
  static ParamRegistry& instance();
  void declare(ParamInfo info);
  // Exact name or a '*' family that matches `key` segment by segment.
  const ParamInfo* find(std::string_view key) const;
  // All declarations sorted by name.
  std::vector<const ParamInfo*> all() const;
  // The declared name closest to `key` (edit distance), for "did you mean".
  std::string nearest(std::string_view key) const;
  // The instance names a '*' family under `prefix` may use (e.g. "core.units"
  // -> sp, int, ...), declared by the code that gives them meaning; an
  // instance outside the list would be read by nothing. Undeclared: any name.
  void declare_instances(const std::string& prefix, std::vector<std::string> names);
  const std::vector<std::string>* instance_names(std::string_view prefix) const;

 private:
  std::vector<ParamInfo> params_;
  std::vector<std::pair<std::string, std::vector<std::string>>> instance_names_;
  // find()'s answers so far (a GPU's components read thousands of
  // parameters, most of them many times), for the declarations as they
  // were: emptied when one is added.
  mutable std::mutex found_mu_;
  mutable std::unordered_map<std::string, const ParamInfo*> found_;
  mutable size_t found_for_ = 0;
};

// The entry of `names` closest to `key` by edit distance ("" if none is
// within half of `key`'s length: no suggestion beats a silly one).
std::string nearest_name(std::string_view key, const std::vector<std::string>& names);

bool name_matches(std::string_view pattern, std::string_view key);
// Replaces the first '*' segment of `pattern` with `instance`.
std::string instantiate(std::string_view pattern, std::string_view instance);

template <class T>
struct TypeOf;
template <> struct TypeOf<int64_t> { static constexpr Type value = Type::Int; };
template <> struct TypeOf<double> { static constexpr Type value = Type::Float; };
template <> struct TypeOf<bool> { static constexpr Type value = Type::Bool; };
template <> struct TypeOf<std::string> { static constexpr Type value = Type::String; };
template <> struct TypeOf<std::vector<int64_t>> { static constexpr Type value = Type::IntList; };

class Config;

template <class T>
class Param {
 public:
  Param(std::string name, T def, std::string unit, std::string desc, Range range = {}) : name_(std::move(name)) {
    ParamRegistry::instance().declare(
        ParamInfo{name_, TypeOf<T>::value, Value{std::move(def)}, std::move(unit), std::move(desc), range, {}});
  }
  const std::string& name() const { return name_; }
  T get(const Config& cfg) const;
  // For '*' families: the value for one instance (e.g. unit "sp").
  T get(const Config& cfg, std::string_view instance) const;

 protected:
  explicit Param(ParamInfo info) : name_(info.name) { ParamRegistry::instance().declare(std::move(info)); }

 private:
  std::string name_;
};

// A string parameter that selects a part file, <data>/<dir>/<value>.toml
// (e.g. `dram.part` -> configs/dram/HBM2-850.toml). The part's keys sit
// beneath every preset key and --set, so a GPU preset names its DRAM instead
// of copying its timing; "" selects no part.
class PartParam : public Param<std::string> {
 public:
  PartParam(std::string name, std::string def, std::string dir, std::string desc)
      : Param(ParamInfo{std::move(name), Type::String, Value{std::move(def)}, "", std::move(desc), {}, std::move(dir)}) {}
};

}  // namespace ws::config
