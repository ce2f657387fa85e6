// What the simulated GPU reports through cudaGetDeviceProperties,
// cudaDeviceGetAttribute and the occupancy calculator, from DeviceFacts.
#pragma once
#include <cuda_runtime_api.h>

#include <cstdint>
#include <optional>

#include "exec/device.h"

namespace ws::cudart {

void fill_properties(const exec::DeviceFacts& facts, cudaDeviceProp& prop);
// nullopt when `attr` is not a device attribute this runtime knows.
std::optional<int> device_attribute(const exec::DeviceFacts& facts, cudaDeviceAttr attr);
// Resident CTAs per SM for a block of `threads` using `regs` registers per
// thread and `shmem` bytes of shared memory (0 when one CTA does not fit).
int occupancy(const exec::DeviceFacts& facts, int threads, uint32_t regs, uint64_t shmem);

}  // namespace ws::cudart
