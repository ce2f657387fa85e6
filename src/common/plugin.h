// Named plug-ins: one class plus one registration line, selected by name in
// config. E.g. in gto_scheduler.cpp:
//
//   static const PluginRegistrar<WarpScheduler, const SchedulerArgs&> reg{
//       "gto", "greedy-then-oldest", [](const SchedulerArgs& a) { return std::make_unique<Gto>(a); }};
//
// and the builder calls PluginRegistry<WarpScheduler, const SchedulerArgs&>::create("core.scheduler", name, args).
#pragma once
#include <algorithm>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "common/error.h"

namespace ws {

template <class Interface, class... Args>
class PluginRegistry {
 public:
  using Factory = std::function<std::unique_ptr<Interface>(Args...)>;
  struct Entry {
    std::string name, desc;
    Factory make;
  };

  static PluginRegistry& instance() {
    static PluginRegistry r;
    return r;
  }
  void add(std::string name, std::string desc, Factory f) {
    entries_.push_back(Entry{std::move(name), std::move(desc), std::move(f)});
    std::sort(entries_.begin(), entries_.end(), [](const Entry& a, const Entry& b) { return a.name < b.name; });
  }
  // `param` names the config parameter that chose `name`, for the error message.
  std::unique_ptr<Interface> create(const std::string& param, const std::string& name, Args... args) const {
    for (const Entry& e : entries_)
      if (e.name == name) return e.make(std::forward<Args>(args)...);
    throw ConfigError(param, "unknown choice '" + name + "' (known: " + names() + ")");
  }
  bool has(const std::string& name) const {
    return std::any_of(entries_.begin(), entries_.end(), [&](const Entry& e) { return e.name == name; });
  }
  std::string names() const {
    std::string s;
    for (const Entry& e : entries_) s += (s.empty() ? "" : ", ") + e.name;
    return s;
  }
  const std::vector<Entry>& entries() const { return entries_; }

 private:
  std::vector<Entry> entries_;
};

template <class Interface, class... Args>
struct PluginRegistrar {
  PluginRegistrar(std::string name, std::string desc, typename PluginRegistry<Interface, Args...>::Factory f) {
    PluginRegistry<Interface, Args...>::instance().add(std::move(name), std::move(desc), std::move(f));
  }
};

}  // namespace ws
