#include "cudart/launch_params.h"

#include "exec/runtime/kernel_params.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>

namespace ws::cudart {

namespace {

uint64_t param_space_bytes(const ptx::Function& kernel) {
  uint64_t bytes = kernel.param_bytes;
  for (const ptx::Param& p : kernel.params) bytes = std::max(bytes, p.offset + p.size);
  return bytes;
}

// The `extra` form: {BUFFER_POINTER, &buffer, BUFFER_SIZE, &size, END} in any
// order. The buffer already has the kernel's layout (each parameter at its
// aligned offset), so it is copied whole.
std::vector<uint8_t> from_extra(const ptx::Function& kernel, void* const* extra, uint64_t bytes) {
  const void* buffer = nullptr;
  const size_t* size = nullptr;
  for (size_t i = 0;; i += 2) {
    auto key = reinterpret_cast<uintptr_t>(extra[i]);
    if (key == kLaunchParamEnd) break;
    if (key == kLaunchParamBufferPointer) {
      buffer = extra[i + 1];
    } else if (key == kLaunchParamBufferSize) {
      size = static_cast<const size_t*>(extra[i + 1]);
    } else {
      throw LaunchParamError(fmt::format("cuLaunchKernel of {}: unknown key {:#x} at extra[{}] (expected "
                                         "CU_LAUNCH_PARAM_BUFFER_POINTER, _BUFFER_SIZE or _END)",
                                         kernel.name, key, i));
    }
  }
  if (buffer == nullptr || size == nullptr)
    throw LaunchParamError(fmt::format("cuLaunchKernel of {}: extra needs both CU_LAUNCH_PARAM_BUFFER_POINTER "
                                       "and CU_LAUNCH_PARAM_BUFFER_SIZE",
                                       kernel.name));
  if (*size < bytes)
    throw LaunchParamError(fmt::format("cuLaunchKernel of {}: the extra buffer holds {} bytes, its {} parameters "
                                       "take {} bytes",
                                       kernel.name, *size, kernel.params.size(), bytes));
  std::vector<uint8_t> buf(bytes, 0);
  std::memcpy(buf.data(), buffer, bytes);
  return buf;
}

}  // namespace

std::vector<uint8_t> driver_launch_params(const ptx::Function& kernel, void* const* kernel_params,
                                          void* const* extra) {
  if (kernel_params != nullptr && extra != nullptr)
    throw LaunchParamError(
        fmt::format("cuLaunchKernel of {}: both kernelParams and extra are given (pass one)", kernel.name));
  uint64_t bytes = param_space_bytes(kernel);
  if (extra != nullptr) return from_extra(kernel, extra, bytes);
  if (kernel.params.empty()) return std::vector<uint8_t>(bytes, 0);
  if (kernel_params == nullptr)
    throw LaunchParamError(fmt::format("cuLaunchKernel of {}: neither kernelParams nor extra for its {} parameters",
                                       kernel.name, kernel.params.size()));
  for (size_t i = 0; i < kernel.params.size(); ++i)
    if (kernel_params[i] == nullptr)
      throw LaunchParamError(fmt::format("cuLaunchKernel of {}: kernelParams[{}] ({}) is a null pointer",
                                         kernel.name, i, kernel.params[i].name));
  return runtime::pack_kernel_params(kernel, kernel_params);
}

}  // namespace ws::cudart
