// PTX text -> ptx::Module. Errors throw InputError naming the file, line and
// the offending token or instruction.
#pragma once
#include <string>
#include <string_view>

#include "frontend/ptx/ast.h"

namespace ws::ptx {

Module parse_module(std::string_view text, const std::string& filename);

}  // namespace ws::ptx
