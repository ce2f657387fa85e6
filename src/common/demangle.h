// Kernel names as a person reads them: traces and fat binaries carry the
// mangled C++ name (_Z6vecAddIfEvPT_S1_S1_i); the summary, the progress line
// and stats.json show it demangled (void vecAdd<float>(float*, float*, float*, int)).
#pragma once
#include <string>

namespace ws {

// The demangled form of `name`, or `name` unchanged when it is not a mangled
// C++ name (an extern "C" kernel, a garbage trace header).
std::string demangle(const std::string& name);
// demangle(name) cut to at most `width` characters, ending in "..." when cut:
// for a table column or the progress line.
std::string demangle_fit(const std::string& name, size_t width);

}  // namespace ws
