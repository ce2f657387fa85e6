// cudaGetErrorName / cudaGetErrorString. The names come from the enum in the
// installed driver_types.h (a table generated at build time), so every code
// of this CUDA version has its own name.
#pragma once
#include <cuda_runtime_api.h>

namespace ws::cudart {

const char* error_name(cudaError_t e);
const char* error_string(cudaError_t e);

}  // namespace ws::cudart
