#include "common/demangle.h"

#include <cxxabi.h>

#include <cstdlib>
#include <memory>

namespace ws {

std::string demangle(const std::string& name) {
  int status = 0;
  std::unique_ptr<char, decltype(&std::free)> text(abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status),
                                                    &std::free);
  // __cxa_demangle also accepts plain type names ("i" -> "int"): only names
  // in the _Z function-name form are taken as mangled.
  if (status != 0 || !text || name.rfind("_Z", 0) != 0) return name;
  return text.get();
}

std::string demangle_fit(const std::string& name, size_t width) {
  std::string text = demangle(name);
  if (text.size() <= width) return text;
  return width <= 3 ? text.substr(0, width) : text.substr(0, width - 3) + "...";
}

}  // namespace ws
