// What the files of warpsim's libcuda.so.1 share: the runtime's bridge table
// (cudart/driver_bridge.h), the driver's code for a runtime result, and the
// name of the library a call came from.
#pragma once
#include <cuda.h>

#include "cudart/driver/caller.h"
#include "cudart/driver_bridge.h"

namespace ws::driver {

// The bridge of the libcudart.so.13 this library was linked against; nullptr
// (after printing why, once) when the loaded runtime is not warpsim's.
const cudart::bridge::Table* bridge();

inline CUresult result(cudaError_t e) { return cudart::bridge::to_result(e); }

// A device pointer as the runtime API takes it.
inline void* ptr(CUdeviceptr p) { return reinterpret_cast<void*>(static_cast<uintptr_t>(p)); }

}  // namespace ws::driver
