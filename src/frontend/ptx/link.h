// Links separately compiled PTX modules (nvcc -rdc=true) into one: extern
// declarations resolve to other modules' definitions, and each module's
// internal (non-.visible) names are made unique so units cannot collide.
#pragma once
#include <string>
#include <vector>

#include "frontend/ptx/ast.h"

namespace ws::ptx {

// Throws InputError naming both modules when two define the same visible name.
Module link_modules(std::vector<Module> modules, const std::string& name);

}  // namespace ws::ptx
