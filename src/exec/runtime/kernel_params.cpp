#include "exec/runtime/kernel_params.h"

#include <fmt/format.h>

#include <cstring>

#include "common/error.h"

namespace ws::runtime {

std::vector<uint8_t> pack_kernel_params(const ptx::Function& kernel, void* const* args) {
  uint64_t bytes = kernel.param_bytes;
  for (const ptx::Param& p : kernel.params) bytes = std::max(bytes, p.offset + p.size);
  std::vector<uint8_t> buf(bytes, 0);
  if (kernel.params.empty()) return buf;
  if (args == nullptr)
    throw Error(fmt::format("launch of {}: no argument array for its {} parameters", kernel.name,
                            kernel.params.size()));
  for (size_t i = 0; i < kernel.params.size(); ++i) {
    const ptx::Param& p = kernel.params[i];
    if (args[i] == nullptr) throw Error(fmt::format("launch of {}: argument {} is a null pointer", kernel.name, i));
    std::memcpy(buf.data() + p.offset, args[i], p.size);
  }
  return buf;
}

}  // namespace ws::runtime
