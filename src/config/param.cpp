#include "config/param.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "common/error.h"

namespace ws::config {

const char* type_name(Type t) {
  switch (t) {
    case Type::Int: return "int";
    case Type::Float: return "float";
    case Type::Bool: return "bool";
    case Type::String: return "string";
    case Type::IntList: return "int list";
  }
  return "?";
}

std::string value_to_string(const Value& v) {
  struct Printer {
    std::string operator()(int64_t i) const { return std::to_string(i); }
    std::string operator()(double d) const {
      std::ostringstream os;
      os << d;
      std::string s = os.str();
      if (s.find_first_of(".eEn") == std::string::npos) s += ".0";
      return s;
    }
    std::string operator()(bool b) const { return b ? "true" : "false"; }
    std::string operator()(const std::string& s) const { return "\"" + s + "\""; }
    std::string operator()(const std::vector<int64_t>& l) const {
      std::string s = "[";
      for (size_t i = 0; i < l.size(); ++i) s += (i ? ", " : "") + std::to_string(l[i]);
      return s + "]";
    }
  };
  return std::visit(Printer{}, v);
}

bool Range::bounded() const { return std::isfinite(min) || std::isfinite(max); }

std::string Range::to_string() const {
  if (!bounded()) return "";
  std::ostringstream os;
  os << "[";
  if (std::isfinite(min)) os << min;
  os << ", ";
  if (std::isfinite(max)) os << max;
  os << "]";
  return os.str();
}

ParamRegistry& ParamRegistry::instance() {
  static ParamRegistry registry;
  return registry;
}

void ParamRegistry::declare(ParamInfo info) {
  for (const ParamInfo& p : params_) {
    // The same declaration may be seen twice (a header included in several
    // translation units); a conflicting one is a programming error.
    if (p.name == info.name) {
      if (p.type != info.type || p.def != info.def)
        throw ConfigError(info.name, "declared twice with different types or defaults");
      return;
    }
  }
  params_.push_back(std::move(info));
}

// Segment by segment, without splitting into vectors: stats sums match every
// registered counter name against their pattern.
bool name_matches(std::string_view pattern, std::string_view key) {
  if (pattern == key) return true;
  if (pattern.find('*') == std::string_view::npos) return false;
  for (;;) {
    size_t pd = pattern.find('.'), kd = key.find('.');
    std::string_view p = pattern.substr(0, pd), k = key.substr(0, kd);
    if (p == "*" ? k.empty() : p != k) return false;
    if ((pd == std::string_view::npos) != (kd == std::string_view::npos)) return false;
    if (pd == std::string_view::npos) return true;
    pattern.remove_prefix(pd + 1);
    key.remove_prefix(kd + 1);
  }
}

std::string instantiate(std::string_view pattern, std::string_view instance) {
  std::string s(pattern);
  size_t star = s.find('*');
  if (star != std::string::npos) s.replace(star, 1, instance);
  return s;
}

const ParamInfo* ParamRegistry::find(std::string_view key) const {
  std::lock_guard<std::mutex> lock(found_mu_);
  if (found_for_ != params_.size()) {
    found_.clear();
    found_for_ = params_.size();
  }
  auto [it, added] = found_.try_emplace(std::string(key), nullptr);
  if (!added) return it->second;
  for (const ParamInfo& p : params_)
    if (p.name == key) return it->second = &p;
  for (const ParamInfo& p : params_)
    if (name_matches(p.name, key)) return it->second = &p;
  return nullptr;
}

std::vector<const ParamInfo*> ParamRegistry::all() const {
  std::vector<const ParamInfo*> out;
  for (const ParamInfo& p : params_) out.push_back(&p);
  std::sort(out.begin(), out.end(), [](auto* a, auto* b) { return a->name < b->name; });
  return out;
}

static size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (size_t j = 1; j <= b.size(); ++j)
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

// The entry of `names` closest to `key`, and its distance.
static std::pair<std::string, size_t> closest(std::string_view key, const std::vector<std::string>& names) {
  std::pair<std::string, size_t> best{"", ~size_t{0}};
  for (const std::string& n : names) {
    size_t d = edit_distance(key, n);
    if (d < best.second) best = {n, d};
  }
  return best;
}

std::string ParamRegistry::nearest(std::string_view key) const {
  std::vector<std::string> names;
  for (const ParamInfo& p : params_) names.push_back(p.name);
  return closest(key, names).first;
}

std::string nearest_name(std::string_view key, const std::vector<std::string>& names) {
  auto [best, d] = closest(key, names);
  return d <= std::max<size_t>(1, key.size() / 2) ? best : std::string();
}

void ParamRegistry::declare_instances(const std::string& prefix, std::vector<std::string> names) {
  for (auto& [p, list] : instance_names_)
    if (p == prefix) {
      list = std::move(names);
      return;
    }
  instance_names_.emplace_back(prefix, std::move(names));
}

const std::vector<std::string>* ParamRegistry::instance_names(std::string_view prefix) const {
  for (const auto& [p, list] : instance_names_)
    if (p == prefix) return &list;
  return nullptr;
}

}  // namespace ws::config
