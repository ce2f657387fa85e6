// A configuration: declared defaults, overridden by the files of selected
// parts (PartParam, e.g. `dram.part`), then by TOML presets (which may name a
// `base` preset) and by --set key=value. Every key is checked against
// the ParamRegistry (an unknown key suggests the nearest declared name) and
// against the declared type and range.
#pragma once
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "config/param.h"

namespace ws::config {

class Config {
 public:
  // Loads a TOML file (merging over what is set). `base = "name"` at top level
  // loads that preset from the same folder first (a loop in that chain is an
  // error naming it). A malformed file is an error naming file:line:column.
  void load_file(const std::string& path);
  // "key=value" from the command line; the value is parsed by the declared type.
  void set_assignment(std::string_view assignment);
  // Setting a PartParam (re)loads that part's layer; "" drops it.
  void set(const std::string& key, Value v, const std::string& origin);

  bool has(std::string_view key) const;            // set explicitly or by a part
  const Value& raw(const std::string& key) const;  // set value, part value or declared default
  template <class T>
  T get(const std::string& key) const;

  // Instance names used under `prefix` (e.g. "core.units" -> {"dp","int","sp"}).
  std::vector<std::string> instances(std::string_view prefix) const;

  // The effective configuration: every declared non-family parameter plus every
  // instance of each family, as TOML with comments naming unit and origin.
  std::string to_toml() const;
  const std::vector<std::string>& loaded_files() const { return files_; }

 private:
  struct Entry {
    Value value;
    std::string origin;
  };
  // The keys one part file sets, below every explicitly set value.
  struct Layer {
    std::string part, path;
    std::map<std::string, Entry> values;
  };
  void load_chain(const std::string& path, std::vector<std::string>& chain);
  void load_part(const ParamInfo& selector, const std::string& part);
  const Entry* find_entry(const std::string& key) const;

  std::map<std::string, Entry> values_;
  std::map<std::string, Layer> layers_;  // by selector key
  std::vector<std::string> files_;
};

// Path of a preset: `name_or_path` itself if it is a file, else
// <data>/configs/gpus/<name>.toml. Throws an InputError listing the presets.
std::string find_preset(const std::string& name_or_path);
// Names of the presets in <data>/configs/gpus.
std::vector<std::string> list_presets();
// Names of the .toml files in <data>/<dir> (sorted, without extension).
std::vector<std::string> list_data_files(const std::string& dir);

template <class T>
T Param<T>::get(const Config& cfg) const {
  return cfg.get<T>(name_);
}
template <class T>
T Param<T>::get(const Config& cfg, std::string_view instance) const {
  return cfg.get<T>(instantiate(name_, instance));
}

}  // namespace ws::config
