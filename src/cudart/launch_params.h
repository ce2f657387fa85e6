// The parameter buffer of a driver-API launch (cuLaunchKernel). The driver
// takes the arguments in one of two forms: `kernelParams`, one pointer per
// parameter as the runtime's launches do, or `extra`, a list of key/value
// pairs holding one buffer already laid out as the kernel's parameter space.
// Kept free of the CUDA headers so that the unit tests can build it.
#pragma once
#include <cstdint>
#include <vector>

#include "common/error.h"
#include "frontend/ptx/ast.h"

namespace ws::cudart {

// The keys of the `extra` list (cuda.h: CU_LAUNCH_PARAM_END_AS_INT,
// CU_LAUNCH_PARAM_BUFFER_POINTER_AS_INT, CU_LAUNCH_PARAM_BUFFER_SIZE_AS_INT;
// api_driver.cpp checks that they agree).
inline constexpr uintptr_t kLaunchParamEnd = 0x00;
inline constexpr uintptr_t kLaunchParamBufferPointer = 0x01;
inline constexpr uintptr_t kLaunchParamBufferSize = 0x02;

// Arguments the driver refuses with CUDA_ERROR_INVALID_VALUE.
class LaunchParamError : public InputError {
 public:
  using InputError::InputError;
};

// The parameter buffer for `kernel` from exactly one of `kernel_params` and
// `extra`. Throws LaunchParamError when both are given, when the kernel takes
// parameters and neither is, when an argument pointer is null, and when the
// `extra` list has an unknown key, lacks the buffer or its size, or holds a
// buffer smaller than the kernel's parameter space.
std::vector<uint8_t> driver_launch_params(const ptx::Function& kernel, void* const* kernel_params,
                                          void* const* extra);

}  // namespace ws::cudart
