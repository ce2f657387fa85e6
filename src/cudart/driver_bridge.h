// The private interface between warpsim's libcuda.so.1 (src/cudart/driver/)
// and its libcudart.so.13. The driver API runs on the runtime's simulated
// device, so that a program mixing both APIs sees one GPU, one memory and one
// timing model. Most driver calls map onto runtime entry points the driver
// library calls directly (cuMemAlloc -> cudaMalloc); what the runtime API has
// no entry point for (loading PTX modules, launching their functions) the
// runtime hands over as this table, through cudaGetExportTable: CUDA's own
// mechanism for private tables, so that libcudart.so.13 keeps exactly
// NVIDIA's export list.
#pragma once
#include <cuda.h>
#include <cuda_runtime_api.h>

#include <cstddef>

namespace ws::cudart::bridge {

// cudaGetExportTable's id for the table.
inline constexpr CUuuid kTableId = {{'w', 'a', 'r', 'p', 's', 'i', 'm', '.', 'd', 'r', 'i', 'v', 'e', 'r', '.', '1'}};

struct Table {
  size_t size;  // sizeof(Table) in the libcudart that filled it: a mismatch is another build
  // Loads PTX text, a fat binary (container or wrapper) or a file's bytes
  // (`bytes` 0: unknown, the image's own header or NUL says). `name` names the
  // module in errors. Prints why a module cannot load.
  CUresult (*module_load)(CUmodule* out, const void* image, size_t bytes, const char* name);
  CUresult (*module_unload)(CUmodule module);
  CUresult (*module_get_function)(CUfunction* out, CUmodule module, const char* name);
  CUresult (*module_get_global)(CUdeviceptr* dptr, size_t* bytes, CUmodule module, const char* name);
  // grid_block: grid x, y, z then block x, y, z.
  CUresult (*launch)(CUfunction f, const unsigned* grid_block, unsigned shmem, CUstream stream, void** params,
                     void** extra);
  CUresult (*func_get_attribute)(int* value, CUfunction_attribute attr, CUfunction f);
  CUresult (*func_set_attribute)(CUfunction f, CUfunction_attribute attr, int value);
  // Sets `count` elements of `element_bytes` (1, 2 or 4) to `value`.
  CUresult (*memset)(CUdeviceptr dst, unsigned value, unsigned element_bytes, size_t count);
};

// The driver's code for a runtime error code: most share their number; the
// runtime's own codes below 100 have a driver counterpart or none.
inline CUresult to_result(cudaError_t e) {
  switch (e) {
    case cudaSuccess: return CUDA_SUCCESS;
    case cudaErrorInvalidValue:
    case cudaErrorInvalidConfiguration:
    case cudaErrorInvalidPitchValue:
    case cudaErrorInvalidDevicePointer:
    case cudaErrorInvalidMemcpyDirection:
      return CUDA_ERROR_INVALID_VALUE;
    case cudaErrorMemoryAllocation: return CUDA_ERROR_OUT_OF_MEMORY;
    case cudaErrorInitializationError: return CUDA_ERROR_NOT_INITIALIZED;
    case cudaErrorInvalidSymbol: return CUDA_ERROR_NOT_FOUND;
    case cudaErrorInvalidDeviceFunction: return CUDA_ERROR_INVALID_HANDLE;
    default: break;
  }
  int code = static_cast<int>(e);
  return code >= 100 ? static_cast<CUresult>(code) : CUDA_ERROR_UNKNOWN;
}

}  // namespace ws::cudart::bridge
