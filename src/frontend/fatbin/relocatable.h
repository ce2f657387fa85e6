// Relocatable device code (nvcc -rdc=true): each translation unit's fatbin
// stays unlinked in the executable's __nv_relfatbin section, and the fatbin
// the program registers is empty. This finds those per-unit PTX modules.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace ws::fatbin {

// The PTX text of every container in `elf_path`'s __nv_relfatbin section that
// has PTX (the best entry for compute capability `cc`, as select_ptx picks).
// Empty when there is no such section. Throws InputError on a malformed file.
std::vector<std::string> relocatable_ptx(const std::string& elf_path, uint32_t cc);

}  // namespace ws::fatbin
