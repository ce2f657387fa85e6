// Unified memory: cudaMallocManaged and mapped page-locked memory. Both are
// host memory the simulated device addresses directly (same pointer), so host
// code and kernels share it without copies; prefetches and advice have
// nothing to move and succeed.
#include "cudart/runtime.h"

using ws::Addr;
using ws::cudart::api_call;
using ws::cudart::Runtime;

extern "C" {

cudaError_t cudaMallocManaged(void** ptr, size_t bytes, unsigned int flags) {
  return api_call("cudaMallocManaged", [&](Runtime& rt) {
    if (ptr == nullptr || bytes == 0) return cudaErrorInvalidValue;
    if (flags != cudaMemAttachGlobal && flags != cudaMemAttachHost) return cudaErrorInvalidValue;
    auto a = rt.device().memory().allocate_unified(bytes);
    if (!a) return cudaErrorMemoryAllocation;
    *ptr = reinterpret_cast<void*>(*a);
    return cudaSuccess;
  });
}

cudaError_t cudaHostGetDevicePointer(void** device, void* host, unsigned int flags) {
  return api_call("cudaHostGetDevicePointer", [&](Runtime& rt) {
    if (device == nullptr || flags != 0) return cudaErrorInvalidValue;
    if (!rt.device().memory().is_unified(reinterpret_cast<Addr>(host))) return cudaErrorInvalidValue;
    *device = host;
    return cudaSuccess;
  });
}

cudaError_t cudaMemPrefetchAsync(const void* ptr, size_t bytes, struct cudaMemLocation, unsigned int,
                                 cudaStream_t stream) {
  return api_call("cudaMemPrefetchAsync", [&](Runtime& rt) {
    if (!rt.streams().valid(stream)) return cudaErrorInvalidResourceHandle;
    if (!rt.device().memory().is_unified(reinterpret_cast<Addr>(ptr))) return cudaErrorInvalidValue;
    return cudaSuccess;
  });
}

cudaError_t cudaMemAdvise(const void* ptr, size_t bytes, enum cudaMemoryAdvise, struct cudaMemLocation) {
  return api_call("cudaMemAdvise", [&](Runtime& rt) {
    if (!rt.device().memory().is_unified(reinterpret_cast<Addr>(ptr))) return cudaErrorInvalidValue;
    return cudaSuccess;
  });
}

}  // extern "C"

WARPSIM_PER_THREAD_ALIAS(cudaMemPrefetchAsync_ptsz, cudaMemPrefetchAsync);
