// Unified memory: cudaMallocManaged and mapped page-locked memory. Both are
// host memory the simulated device addresses directly (same pointer; memory
// registered with cudaHostRegister has a device pointer of its own), so host
// code and kernels share it without copies; prefetches and advice have
// nothing to move and succeed.
#include <vector>

#include "cudart/runtime.h"

using ws::Addr;
using ws::cudart::api_call;
using ws::cudart::Runtime;

namespace {

// `__managed__` variables: the host reaches each through a pointer that nvcc
// keeps in its shadow variable and that the runtime points at the
// variable's unified storage in __cudaInitModule (called before first use).
struct ManagedVar {
  void** handle;
  void** host_ptr;
};
std::vector<ManagedVar>& managed_vars() {
  static std::vector<ManagedVar> v;
  return v;
}

}  // namespace

extern "C" {

void __cudaRegisterManagedVar(void** handle, void** host_ptr, char* device_address, const char* name, int ext,
                              size_t size, int constant, int global) {
  Runtime& rt = Runtime::get();
  std::lock_guard lock(rt.mutex());
  rt.registry().add_variable(handle, reinterpret_cast<char*>(host_ptr), name, size, false);
  managed_vars().push_back({handle, host_ptr});
}

char __cudaInitModule(void** handle) {
  Runtime& rt = Runtime::get();
  std::lock_guard lock(rt.mutex());
  rt.device();  // creates the device and loads the registered modules
  for (const ManagedVar& m : managed_vars()) {
    if (m.handle != handle) continue;
    auto sym = rt.symbol(m.host_ptr);
    if (!sym || !rt.device().memory().is_unified(sym->first))
      Runtime::fatal("a __managed__ variable is not in the loaded PTX as .attribute(.managed)");
    *m.host_ptr = reinterpret_cast<void*>(sym->first);
  }
  return 1;
}

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
    auto a = rt.device().memory().device_address(host);
    if (!a) return cudaErrorInvalidValue;
    *device = reinterpret_cast<void*>(*a);
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
