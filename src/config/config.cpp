#include "config/config.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <sstream>
#include <toml++/toml.h>

#include "common/error.h"
#include "common/paths.h"

namespace ws::config {

namespace fs = std::filesystem;

namespace {

double numeric(const Value& v) {
  if (auto* i = std::get_if<int64_t>(&v)) return static_cast<double>(*i);
  if (auto* d = std::get_if<double>(&v)) return *d;
  return 0;
}

// Converts `v` to the declared type where that is lossless (int -> float).
Value coerce(const ParamInfo& info, const std::string& key, Value v) {
  if (info.type == Type::Float && std::holds_alternative<int64_t>(v))
    v = static_cast<double>(std::get<int64_t>(v));
  bool ok = (info.type == Type::Int && std::holds_alternative<int64_t>(v)) ||
            (info.type == Type::Float && std::holds_alternative<double>(v)) ||
            (info.type == Type::Bool && std::holds_alternative<bool>(v)) ||
            (info.type == Type::String && std::holds_alternative<std::string>(v)) ||
            (info.type == Type::IntList && std::holds_alternative<std::vector<int64_t>>(v));
  if (!ok) throw ConfigError(key, std::string("expected a value of type ") + type_name(info.type) + ", got " +
                                      value_to_string(v));
  if ((info.type == Type::Int || info.type == Type::Float) && !info.range.contains(numeric(v)))
    throw ConfigError(key, "value " + value_to_string(v) + " is out of range " + info.range.to_string());
  if (info.type == Type::IntList)
    for (int64_t x : std::get<std::vector<int64_t>>(v))
      if (!info.range.contains(static_cast<double>(x)))
        throw ConfigError(key, "element " + std::to_string(x) + " is out of range " + info.range.to_string());
  return v;
}

const ParamInfo& lookup(const std::string& key) {
  const ParamInfo* info = ParamRegistry::instance().find(key);
  if (!info) {
    std::string hint = ParamRegistry::instance().nearest(key);
    throw ConfigError(key, "unknown parameter" + (hint.empty() ? "" : " (did you mean '" + hint + "'?)") +
                               "; `warpsim params` lists them all");
  }
  return *info;
}

bool parse_int(std::string_view s, int64_t& out) {
  auto r = std::from_chars(s.data(), s.data() + s.size(), out);
  return r.ec == std::errc() && r.ptr == s.data() + s.size();
}

Value parse_text(const ParamInfo& info, const std::string& key, const std::string& text) {
  switch (info.type) {
    case Type::Int: {
      int64_t i;
      if (parse_int(text, i)) return i;
      break;
    }
    case Type::Float: {
      try {
        size_t used = 0;
        double d = std::stod(text, &used);
        if (used == text.size()) return d;
      } catch (...) {
      }
      break;
    }
    case Type::Bool:
      if (text == "true" || text == "1") return true;
      if (text == "false" || text == "0") return false;
      break;
    case Type::String: {
      std::string s = text;
      if (s.size() >= 2 && s.front() == '"' && s.back() == '"') s = s.substr(1, s.size() - 2);
      return s;
    }
    case Type::IntList: {
      std::string s = text;
      s.erase(std::remove_if(s.begin(), s.end(), [](char c) { return c == '[' || c == ']' || c == ' '; }), s.end());
      std::vector<int64_t> out;
      std::stringstream ss(s);
      std::string item;
      bool good = true;
      while (std::getline(ss, item, ',')) {
        int64_t i;
        if (!parse_int(item, i)) good = false;
        out.push_back(i);
      }
      if (good) return out;
      break;
    }
  }
  throw ConfigError(key, "cannot read '" + text + "' as " + type_name(info.type));
}

// TOML allows non-ASCII text only in comments and strings. toml++ 3.3
// (Debian's) reaches __builtin_unreachable when some non-ASCII characters
// appear elsewhere (a bare key, a bare value): undefined behaviour, found by
// the preset fuzzer. Such a file is refused here first, with its position.
void check_ascii_outside_strings(const std::string& path, const std::string& text) {
  enum class In { Code, Comment, Basic, Literal, BasicMulti, LiteralMulti } in = In::Code;
  size_t line = 1, column = 1;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    auto starts = [&](const char* s) { return text.compare(i, std::strlen(s), s) == 0; };
    switch (in) {
      case In::Code:
        if (static_cast<unsigned char>(c) >= 0x80)
          throw InputError(path + ":" + std::to_string(line) + ":" + std::to_string(column) +
                           ": a non-ASCII character outside a string or comment");
        if (c == '#') in = In::Comment;
        else if (starts("\"\"\"")) in = In::BasicMulti, i += 2, column += 2;
        else if (starts("'''")) in = In::LiteralMulti, i += 2, column += 2;
        else if (c == '"') in = In::Basic;
        else if (c == '\'') in = In::Literal;
        break;
      case In::Comment: if (c == '\n') in = In::Code; break;
      case In::Basic:
        if (c == '\\') ++i, ++column;
        else if (c == '"' || c == '\n') in = In::Code;
        break;
      case In::Literal: if (c == '\'' || c == '\n') in = In::Code; break;
      case In::BasicMulti:
        if (c == '\\') ++i, ++column;
        else if (starts("\"\"\"")) in = In::Code, i += 2, column += 2;
        break;
      case In::LiteralMulti: if (starts("'''")) in = In::Code, i += 2, column += 2; break;
    }
    if (i < text.size() && text[i] == '\n') line += 1, column = 1;
    else ++column;
  }
}

// A TOML file, or an InputError naming its file, line and column.
toml::table parse_toml(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path + ": cannot read the file");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  check_ascii_outside_strings(path, text);
  try {
    return toml::parse(text, path);
  } catch (const toml::parse_error& e) {
    const toml::source_position& at = e.source().begin;
    std::string where = path;
    if (at.line > 0) where += ":" + std::to_string(at.line) + ":" + std::to_string(at.column);
    throw InputError(where + ": " + std::string(e.description()));
  }
}

// The instance segment of `key` under a '*' family (`info.name`) must be one the
// code declared (ParamRegistry::declare_instances): `core.units.sfuu.latency`
// would otherwise be accepted and read by nothing.
void check_instance(const ParamInfo& info, const std::string& key) {
  size_t star = info.name.find('*');
  if (star == std::string::npos || star == 0) return;
  std::string prefix = info.name.substr(0, star - 1);
  const std::vector<std::string>* known = ParamRegistry::instance().instance_names(prefix);
  if (!known) return;
  std::string instance = key.substr(star, key.find('.', star) - star);
  if (std::find(known->begin(), known->end(), instance) != known->end()) return;
  std::string all, hint = nearest_name(instance, *known);
  for (const std::string& n : *known) all += (all.empty() ? "" : ", ") + n;
  throw ConfigError(key, "unknown " + prefix + " instance '" + instance + "'" +
                             (hint.empty() ? "" : " (did you mean '" + hint + "'?)") + "; " + prefix +
                             " takes: " + all);
}

void flatten(const toml::table& table, const std::string& prefix, const std::string& file,
             std::vector<std::pair<std::string, Value>>& out) {
  for (const auto& [k, node] : table) {
    std::string key = prefix.empty() ? std::string(k.str()) : prefix + "." + std::string(k.str());
    if (const toml::table* sub = node.as_table()) {
      flatten(*sub, key, file, out);
    } else if (auto i = node.value_exact<int64_t>()) {
      out.emplace_back(key, *i);
    } else if (auto d = node.value_exact<double>()) {
      out.emplace_back(key, *d);
    } else if (auto b = node.value_exact<bool>()) {
      out.emplace_back(key, *b);
    } else if (auto s = node.value_exact<std::string>()) {
      out.emplace_back(key, *s);
    } else if (const toml::array* arr = node.as_array()) {
      std::vector<int64_t> list;
      for (const auto& el : *arr) {
        auto i = el.value_exact<int64_t>();
        if (!i) throw InputError(file, node.source().begin.line, key, "arrays must hold integers");
        list.push_back(*i);
      }
      out.emplace_back(key, list);
    } else {
      throw InputError(file, node.source().begin.line, key, "unsupported TOML value type");
    }
  }
}

}  // namespace

void Config::set(const std::string& key, Value v, const std::string& origin) {
  const ParamInfo& info = lookup(key);
  check_instance(info, key);
  Value value = coerce(info, key, std::move(v));
  if (!info.part_dir.empty()) load_part(info, std::get<std::string>(value));
  values_[key] = Entry{std::move(value), origin};
}

// Replaces the selector's layer with the named part's keys. A part is
// self-contained (no `base`) and may not select other parts.
void Config::load_part(const ParamInfo& selector, const std::string& part) {
  layers_.erase(selector.name);
  if (part.empty()) return;
  fs::path path = fs::path(data_dir()) / selector.part_dir / (part + ".toml");
  std::error_code ec;
  if (part.find('/') != std::string::npos || !fs::is_regular_file(path, ec)) {
    std::string all;
    for (const std::string& n : list_data_files(selector.part_dir)) all += (all.empty() ? "" : ", ") + n;
    throw ConfigError(selector.name, "unknown part '" + part + "' (known: " + all + ")");
  }
  toml::table table = parse_toml(path.string());
  std::vector<std::pair<std::string, Value>> entries;
  flatten(table, "", path.string(), entries);
  Layer layer{part, path.string(), {}};
  for (auto& [key, value] : entries) {
    const toml::node* node = table.at_path(key).node();
    uint64_t line = node ? node->source().begin.line : 0;
    try {
      const ParamInfo& info = lookup(key);
      if (!info.part_dir.empty()) throw ConfigError(key, "a part file cannot select another part");
      layer.values[key] = Entry{coerce(info, key, std::move(value)), path.string()};
    } catch (const ConfigError& e) {
      throw InputError(path.string(), line, key, e.what());
    }
  }
  layers_[selector.name] = std::move(layer);
}

const Config::Entry* Config::find_entry(const std::string& key) const {
  if (auto it = values_.find(key); it != values_.end()) return &it->second;
  for (const auto& [selector, layer] : layers_)
    if (auto it = layer.values.find(key); it != layer.values.end()) return &it->second;
  return nullptr;
}

bool Config::has(std::string_view key) const { return find_entry(std::string(key)) != nullptr; }

void Config::set_assignment(std::string_view assignment) {
  size_t eq = assignment.find('=');
  if (eq == std::string_view::npos || eq == 0)
    throw InputError("--set", 0, std::string(assignment), "expected key=value");
  std::string key(assignment.substr(0, eq)), text(assignment.substr(eq + 1));
  set(key, parse_text(lookup(key), key, text), "--set");
}

void Config::load_file(const std::string& path) {
  std::vector<std::string> chain;
  load_chain(path, chain);
}

// `chain` holds the files that named this one as their base, outermost
// first: a file already in it closes a loop, which would recurse forever.
void Config::load_chain(const std::string& path, std::vector<std::string>& chain) {
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) throw InputError(path, 0, "", "no such preset file");
  std::string id = fs::weakly_canonical(path, ec).string();
  if (std::find(chain.begin(), chain.end(), id) != chain.end()) {
    std::string loop;
    for (const std::string& f : chain) loop += fs::path(f).filename().string() + " -> ";
    throw InputError(chain.back(), 0, "base", "the base chain loops: " + loop + fs::path(id).filename().string());
  }
  chain.push_back(id);
  toml::table table = parse_toml(path);
  if (auto base = table["base"].value<std::string>()) {
    // Next to the file first (a family of presets kept together), then among
    // the bundled presets, so that a preset written anywhere (`warpsim tune
    // --out mygpu.toml`) can name `base = "qv100"`.
    fs::path base_path = fs::path(path).parent_path() / (*base + ".toml");
    if (!fs::exists(base_path)) base_path = fs::path(data_dir()) / "configs" / "gpus" / (*base + ".toml");
    if (!fs::exists(base_path))
      throw InputError(path, 0, "base", "no preset '" + *base + "' next to this file or among the presets");
    load_chain(base_path.string(), chain);
    table.erase("base");
  }
  std::vector<std::pair<std::string, Value>> entries;
  flatten(table, "", path, entries);
  for (auto& [key, value] : entries) {
    const toml::node* node = table.at_path(key).node();
    uint64_t line = node ? node->source().begin.line : 0;
    try {
      set(key, std::move(value), path);
    } catch (const ConfigError& e) {
      throw InputError(path, line, key, e.what());
    }
  }
  files_.push_back(path);
}

const Value& Config::raw(const std::string& key) const {
  if (const Entry* e = find_entry(key)) return e->value;
  return lookup(key).def;
}

template <class T>
T Config::get(const std::string& key) const {
  const Value& v = raw(key);
  if (const T* t = std::get_if<T>(&v)) return *t;
  if constexpr (std::is_same_v<T, double>)
    if (auto* i = std::get_if<int64_t>(&v)) return static_cast<double>(*i);
  throw ConfigError(key, std::string("read as the wrong type (declared ") + type_name(lookup(key).type) + ")");
}

template int64_t Config::get<int64_t>(const std::string&) const;
template double Config::get<double>(const std::string&) const;
template bool Config::get<bool>(const std::string&) const;
template std::string Config::get<std::string>(const std::string&) const;
template std::vector<int64_t> Config::get<std::vector<int64_t>>(const std::string&) const;

std::vector<std::string> Config::instances(std::string_view prefix) const {
  std::set<std::string> names;
  std::string p = std::string(prefix) + ".";
  auto add = [&](const std::map<std::string, Entry>& values) {
    for (const auto& [key, entry] : values) {
      if (key.compare(0, p.size(), p) != 0) continue;
      std::string rest = key.substr(p.size());
      names.insert(rest.substr(0, rest.find('.')));
    }
  };
  add(values_);
  for (const auto& [selector, layer] : layers_) add(layer.values);
  return {names.begin(), names.end()};
}

std::string Config::to_toml() const {
  std::ostringstream os;
  os << "# warpsim effective configuration (every parameter; origin in comments)\n";
  for (const std::string& f : files_) os << "# loaded: " << f << "\n";
  for (const auto& [selector, layer] : layers_)
    os << "# part: " << selector << " = " << layer.part << " from " << layer.path << "\n";
  auto emit = [&](const std::string& key, const ParamInfo& info) {
    const Entry* e = find_entry(key);
    os << "\"" << key << "\" = " << value_to_string(e ? e->value : info.def);
    os << "  # " << (info.unit.empty() ? "" : info.unit + "; ") << (e ? e->origin : "default") << "\n";
  };
  for (const ParamInfo* info : ParamRegistry::instance().all()) {
    size_t star = info->name.find('*');
    if (star == std::string::npos) {
      emit(info->name, *info);
      continue;
    }
    std::string prefix = info->name.substr(0, star - 1);
    for (const std::string& inst : instances(prefix)) emit(instantiate(info->name, inst), *info);
  }
  return os.str();
}

std::vector<std::string> list_data_files(const std::string& dir) {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(fs::path(data_dir()) / dir, ec))
    if (e.path().extension() == ".toml") names.push_back(e.path().stem().string());
  std::sort(names.begin(), names.end());
  return names;
}

std::vector<std::string> list_presets() { return list_data_files("configs/gpus"); }

std::string find_preset(const std::string& name_or_path) {
  std::error_code ec;
  if (fs::is_regular_file(name_or_path, ec)) return name_or_path;
  // A path is not a preset name: say what is wrong with the file.
  if (name_or_path.find('/') != std::string::npos || fs::path(name_or_path).extension() == ".toml") {
    if (fs::exists(name_or_path, ec))
      throw InputError("--gpu", 0, "", "'" + name_or_path + "' is not a regular file");
    throw InputError("--gpu", 0, "", "preset file '" + name_or_path + "' does not exist");
  }
  fs::path p = fs::path(data_dir()) / "configs" / "gpus" / (name_or_path + ".toml");
  if (fs::is_regular_file(p, ec)) return p.string();
  std::string all;
  for (const std::string& n : list_presets()) all += (all.empty() ? "" : ", ") + n;
  throw InputError("--gpu", 0, "", "unknown GPU preset '" + name_or_path + "' (known: " + all + ")");
}

}  // namespace ws::config
