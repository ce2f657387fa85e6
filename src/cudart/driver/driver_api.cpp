// libcuda.so.1 for `warpsim exec`: the CUDA driver API entry points a program
// that loads PTX itself needs (docs/exec.md, "The driver API"). Devices,
// memory, streams and events map onto the runtime API of warpsim's
// libcudart.so.13, which this library links against, so that driver and
// runtime calls share one simulated GPU; modules and launches go through the
// runtime's bridge table (driver_modules.cpp). Every other driver entry point
// is a stub (driver_stub.cpp).
#include <dlfcn.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <set>
#include <vector>

#include "cudart/driver/driver.h"

using ws::driver::ptr;
using ws::driver::result;

namespace ws::driver {

const cudart::bridge::Table* bridge() {
  static const cudart::bridge::Table* table = [] {
    const void* t = nullptr;
    if (cudaGetExportTable(&t, &cudart::bridge::kTableId) != cudaSuccess ||
        static_cast<const cudart::bridge::Table*>(t)->size != sizeof(cudart::bridge::Table)) {
      Dl_info info{};
      dladdr(reinterpret_cast<void*>(&cudaGetExportTable), &info);
      std::fprintf(stderr,
                   "warpsim: libcuda.so.1 needs warpsim's libcudart.so.13 of the same build; the loaded one "
                   "(%s) is not: put warpsim's lib folder first (warpsim exec does)\n",
                   info.dli_fname ? info.dli_fname : "unknown");
      return static_cast<const cudart::bridge::Table*>(nullptr);
    }
    return static_cast<const cudart::bridge::Table*>(t);
  }();
  return table;
}

const char* caller_of(const void* address) {
  Dl_info info{};
  if (dladdr(address, &info) == 0 || info.dli_fname == nullptr || *info.dli_fname == '\0') return "the program";
  const char* slash = std::strrchr(info.dli_fname, '/');
  return slash ? slash + 1 : info.dli_fname;
}

}  // namespace ws::driver

// A context. warpsim has one device and does not separate contexts: every
// context sees the same memory, modules and streams (docs/exec.md).
struct CUctx_st {
  bool primary = false;
  unsigned flags = 0;
};

namespace {

std::mutex contexts_mutex;
CUctx_st primary_context{true, 0};
int primary_retains = 0;
std::set<CUcontext> live_contexts = {&primary_context};
thread_local std::vector<CUcontext> context_stack;  // top = current

bool live(CUcontext c) {
  std::lock_guard lock(contexts_mutex);
  return live_contexts.count(c) != 0;
}

CUresult check_device(CUdevice dev) { return dev == 0 ? CUDA_SUCCESS : CUDA_ERROR_INVALID_DEVICE; }

}  // namespace

extern "C" {

CUresult cuInit(unsigned int flags) {
  if (flags != 0) return CUDA_ERROR_INVALID_VALUE;
  return ws::driver::bridge() ? CUDA_SUCCESS : CUDA_ERROR_NOT_INITIALIZED;
}

CUresult cuDriverGetVersion(int* version) { return result(cudaDriverGetVersion(version)); }

CUresult cuDeviceGet(CUdevice* device, int ordinal) {
  if (device == nullptr) return CUDA_ERROR_INVALID_VALUE;
  if (ordinal != 0) return CUDA_ERROR_INVALID_DEVICE;
  *device = 0;
  return CUDA_SUCCESS;
}

CUresult cuDeviceGetCount(int* count) { return result(cudaGetDeviceCount(count)); }

CUresult cuDeviceGetName(char* name, int len, CUdevice dev) {
  if (name == nullptr || len <= 0) return CUDA_ERROR_INVALID_VALUE;
  cudaDeviceProp p{};
  if (cudaError_t e = cudaGetDeviceProperties(&p, dev); e != cudaSuccess) return result(e);
  std::snprintf(name, static_cast<size_t>(len), "%s", p.name);
  return CUDA_SUCCESS;
}

CUresult cuDeviceTotalMem(size_t* bytes, CUdevice dev) {
  if (bytes == nullptr) return CUDA_ERROR_INVALID_VALUE;
  cudaDeviceProp p{};
  if (cudaError_t e = cudaGetDeviceProperties(&p, dev); e != cudaSuccess) return result(e);
  *bytes = p.totalGlobalMem;
  return CUDA_SUCCESS;
}

// CUdevice_attribute and cudaDeviceAttr number the attributes alike.
CUresult cuDeviceGetAttribute(int* value, CUdevice_attribute attr, CUdevice dev) {
  return result(cudaDeviceGetAttribute(value, static_cast<cudaDeviceAttr>(attr), dev));
}
static_assert(int{CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT} == int{cudaDevAttrMultiProcessorCount});
static_assert(int{CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR} == int{cudaDevAttrComputeCapabilityMajor});
static_assert(int{CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN} ==
              int{cudaDevAttrMaxSharedMemoryPerBlockOptin});

CUresult cuDeviceComputeCapability(int* major, int* minor, CUdevice dev) {
  if (major == nullptr || minor == nullptr) return CUDA_ERROR_INVALID_VALUE;
  if (CUresult r = cuDeviceGetAttribute(major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev)) return r;
  return cuDeviceGetAttribute(minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev);
}

// ---- contexts

CUresult cuDevicePrimaryCtxRetain(CUcontext* ctx, CUdevice dev) {
  if (ctx == nullptr) return CUDA_ERROR_INVALID_VALUE;
  if (CUresult r = check_device(dev)) return r;
  std::lock_guard lock(contexts_mutex);
  ++primary_retains;
  *ctx = &primary_context;
  return CUDA_SUCCESS;
}

CUresult cuDevicePrimaryCtxRelease(CUdevice dev) {
  if (CUresult r = check_device(dev)) return r;
  std::lock_guard lock(contexts_mutex);
  if (primary_retains == 0) return CUDA_ERROR_INVALID_CONTEXT;
  --primary_retains;
  return CUDA_SUCCESS;
}

CUresult cuDevicePrimaryCtxGetState(CUdevice dev, unsigned int* flags, int* active) {
  if (flags == nullptr || active == nullptr) return CUDA_ERROR_INVALID_VALUE;
  if (CUresult r = check_device(dev)) return r;
  std::lock_guard lock(contexts_mutex);
  *flags = primary_context.flags;
  *active = primary_retains > 0;
  return CUDA_SUCCESS;
}

CUresult cuDevicePrimaryCtxSetFlags(CUdevice dev, unsigned int flags) {
  if (CUresult r = check_device(dev)) return r;
  primary_context.flags = flags;  // scheduling hints: no effect on a simulated GPU
  return CUDA_SUCCESS;
}

// As cudaDeviceReset: every allocation, stream and event goes.
CUresult cuDevicePrimaryCtxReset(CUdevice dev) {
  if (CUresult r = check_device(dev)) return r;
  return result(cudaDeviceReset());
}

CUresult cuCtxCreate(CUcontext* ctx, CUctxCreateParams*, unsigned int flags, CUdevice dev) {
  if (ctx == nullptr) return CUDA_ERROR_INVALID_VALUE;
  if (CUresult r = check_device(dev)) return r;
  auto* c = new CUctx_st{false, flags};
  {
    std::lock_guard lock(contexts_mutex);
    live_contexts.insert(c);
  }
  context_stack.push_back(c);
  *ctx = c;
  return CUDA_SUCCESS;
}

// The older forms (CUDA 3.2 to 12.4), which cuGetProcAddress hands out to
// callers that ask for those versions.
CUresult cuCtxCreate_v2(CUcontext* ctx, unsigned int flags, CUdevice dev) {
  return cuCtxCreate(ctx, nullptr, flags, dev);
}
CUresult cuCtxCreate_v3(CUcontext* ctx, CUexecAffinityParam*, int, unsigned int flags, CUdevice dev) {
  return cuCtxCreate(ctx, nullptr, flags, dev);
}

// Waits for the device (the context's work); its allocations stay, as every
// context shares the one device memory.
CUresult cuCtxDestroy(CUcontext ctx) {
  if (ctx == nullptr || !live(ctx)) return CUDA_ERROR_INVALID_CONTEXT;
  CUresult r = result(cudaDeviceSynchronize());
  std::erase(context_stack, ctx);
  if (ctx != &primary_context) {
    std::lock_guard lock(contexts_mutex);
    live_contexts.erase(ctx);
    delete ctx;
  }
  return r;
}

CUresult cuCtxPushCurrent(CUcontext ctx) {
  if (ctx == nullptr || !live(ctx)) return CUDA_ERROR_INVALID_CONTEXT;
  context_stack.push_back(ctx);
  return CUDA_SUCCESS;
}

CUresult cuCtxPopCurrent(CUcontext* ctx) {
  if (context_stack.empty()) return CUDA_ERROR_INVALID_CONTEXT;
  if (ctx) *ctx = context_stack.back();
  context_stack.pop_back();
  return CUDA_SUCCESS;
}

CUresult cuCtxSetCurrent(CUcontext ctx) {
  if (ctx != nullptr && !live(ctx)) return CUDA_ERROR_INVALID_CONTEXT;
  if (!context_stack.empty()) context_stack.pop_back();
  if (ctx != nullptr) context_stack.push_back(ctx);
  return CUDA_SUCCESS;
}

CUresult cuCtxGetCurrent(CUcontext* ctx) {
  if (ctx == nullptr) return CUDA_ERROR_INVALID_VALUE;
  *ctx = context_stack.empty() ? nullptr : context_stack.back();
  return CUDA_SUCCESS;
}

CUresult cuCtxGetDevice(CUdevice* device) {
  if (device == nullptr) return CUDA_ERROR_INVALID_VALUE;
  *device = 0;
  return CUDA_SUCCESS;
}

CUresult cuCtxGetApiVersion(CUcontext, unsigned int* version) {
  if (version == nullptr) return CUDA_ERROR_INVALID_VALUE;
  *version = 13000;
  return CUDA_SUCCESS;
}

CUresult cuCtxGetFlags(unsigned int* flags) {
  if (flags == nullptr) return CUDA_ERROR_INVALID_VALUE;
  *flags = context_stack.empty() ? 0 : context_stack.back()->flags;
  return CUDA_SUCCESS;
}

CUresult cuCtxSynchronize() { return result(cudaDeviceSynchronize()); }

// ---- memory

CUresult cuMemGetInfo(size_t* free_bytes, size_t* total) { return result(cudaMemGetInfo(free_bytes, total)); }

CUresult cuMemAlloc(CUdeviceptr* dptr, size_t bytes) {
  if (dptr == nullptr) return CUDA_ERROR_INVALID_VALUE;
  if (bytes == 0) return CUDA_ERROR_INVALID_VALUE;
  void* p = nullptr;
  CUresult r = result(cudaMalloc(&p, bytes));
  *dptr = reinterpret_cast<uintptr_t>(p);
  return r;
}

CUresult cuMemFree(CUdeviceptr dptr) { return result(cudaFree(ptr(dptr))); }

CUresult cuMemcpyHtoD(CUdeviceptr dst, const void* src, size_t bytes) {
  return result(cudaMemcpy(ptr(dst), src, bytes, cudaMemcpyHostToDevice));
}
CUresult cuMemcpyDtoH(void* dst, CUdeviceptr src, size_t bytes) {
  return result(cudaMemcpy(dst, ptr(src), bytes, cudaMemcpyDeviceToHost));
}
CUresult cuMemcpyDtoD(CUdeviceptr dst, CUdeviceptr src, size_t bytes) {
  return result(cudaMemcpy(ptr(dst), ptr(src), bytes, cudaMemcpyDeviceToDevice));
}
CUresult cuMemcpyHtoDAsync(CUdeviceptr dst, const void* src, size_t bytes, CUstream stream) {
  return result(cudaMemcpyAsync(ptr(dst), src, bytes, cudaMemcpyHostToDevice, stream));
}
CUresult cuMemcpyDtoHAsync(void* dst, CUdeviceptr src, size_t bytes, CUstream stream) {
  return result(cudaMemcpyAsync(dst, ptr(src), bytes, cudaMemcpyDeviceToHost, stream));
}
CUresult cuMemcpyDtoDAsync(CUdeviceptr dst, CUdeviceptr src, size_t bytes, CUstream stream) {
  return result(cudaMemcpyAsync(ptr(dst), ptr(src), bytes, cudaMemcpyDeviceToDevice, stream));
}

CUresult cuMemsetD8(CUdeviceptr dst, unsigned char value, size_t n) {
  return result(cudaMemset(ptr(dst), value, n));
}
CUresult cuMemsetD16(CUdeviceptr dst, unsigned short value, size_t n) {
  const auto* b = ws::driver::bridge();
  return b ? b->memset(dst, value, 2, n) : CUDA_ERROR_NOT_INITIALIZED;
}
CUresult cuMemsetD32(CUdeviceptr dst, unsigned int value, size_t n) {
  const auto* b = ws::driver::bridge();
  return b ? b->memset(dst, value, 4, n) : CUDA_ERROR_NOT_INITIALIZED;
}
// The runtime's memsets finish before they return, asynchronous or not.
CUresult cuMemsetD8Async(CUdeviceptr dst, unsigned char value, size_t n, CUstream stream) {
  return result(cudaMemsetAsync(ptr(dst), value, n, stream));
}
CUresult cuMemsetD16Async(CUdeviceptr dst, unsigned short value, size_t n, CUstream) {
  return cuMemsetD16(dst, value, n);
}
CUresult cuMemsetD32Async(CUdeviceptr dst, unsigned int value, size_t n, CUstream) {
  return cuMemsetD32(dst, value, n);
}

// Unified addressing: the runtime tells host from device by address.
CUresult cuMemcpy(CUdeviceptr dst, CUdeviceptr src, size_t bytes) {
  return result(cudaMemcpy(ptr(dst), ptr(src), bytes, cudaMemcpyDefault));
}
CUresult cuMemcpyAsync(CUdeviceptr dst, CUdeviceptr src, size_t bytes, CUstream stream) {
  return result(cudaMemcpyAsync(ptr(dst), ptr(src), bytes, cudaMemcpyDefault, stream));
}

// Page-locked and managed memory (the flags share the runtime's values).
CUresult cuMemAllocHost(void** p, size_t bytes) { return result(cudaMallocHost(p, bytes)); }
CUresult cuMemFreeHost(void* p) { return result(cudaFreeHost(p)); }
CUresult cuMemHostAlloc(void** p, size_t bytes, unsigned int flags) { return result(cudaHostAlloc(p, bytes, flags)); }
static_assert(CU_MEMHOSTALLOC_DEVICEMAP == cudaHostAllocMapped && CU_MEMHOSTALLOC_PORTABLE == cudaHostAllocPortable);
CUresult cuMemHostGetDevicePointer(CUdeviceptr* dptr, void* p, unsigned int flags) {
  if (dptr == nullptr) return CUDA_ERROR_INVALID_VALUE;
  void* d = nullptr;
  CUresult r = result(cudaHostGetDevicePointer(&d, p, flags));
  *dptr = reinterpret_cast<uintptr_t>(d);
  return r;
}
CUresult cuMemHostRegister(void* p, size_t bytes, unsigned int flags) {
  return result(cudaHostRegister(p, bytes, flags));
}
CUresult cuMemHostUnregister(void* p) { return result(cudaHostUnregister(p)); }
CUresult cuMemAllocManaged(CUdeviceptr* dptr, size_t bytes, unsigned int flags) {
  if (dptr == nullptr) return CUDA_ERROR_INVALID_VALUE;
  void* p = nullptr;
  CUresult r = result(cudaMallocManaged(&p, bytes, flags));
  *dptr = reinterpret_cast<uintptr_t>(p);
  return r;
}
static_assert(CU_MEM_ATTACH_GLOBAL == cudaMemAttachGlobal);

// ---- streams and events (CUstream and cudaStream_t are one type, as are
// CUevent and cudaEvent_t; the flags share their values)

CUresult cuStreamCreate(CUstream* stream, unsigned int flags) {
  return result(cudaStreamCreateWithFlags(stream, flags));
}
static_assert(CU_STREAM_NON_BLOCKING == cudaStreamNonBlocking);
CUresult cuStreamSynchronize(CUstream stream) { return result(cudaStreamSynchronize(stream)); }
CUresult cuStreamQuery(CUstream stream) { return result(cudaStreamQuery(stream)); }
CUresult cuStreamDestroy(CUstream stream) { return result(cudaStreamDestroy(stream)); }
CUresult cuStreamWaitEvent(CUstream stream, CUevent event, unsigned int flags) {
  return result(cudaStreamWaitEvent(stream, event, flags));
}

CUresult cuEventCreate(CUevent* event, unsigned int flags) { return result(cudaEventCreateWithFlags(event, flags)); }
static_assert(CU_EVENT_DISABLE_TIMING == cudaEventDisableTiming && CU_EVENT_BLOCKING_SYNC == cudaEventBlockingSync);
CUresult cuEventRecord(CUevent event, CUstream stream) { return result(cudaEventRecord(event, stream)); }
CUresult cuEventQuery(CUevent event) { return result(cudaEventQuery(event)); }
CUresult cuEventSynchronize(CUevent event) { return result(cudaEventSynchronize(event)); }
CUresult cuEventDestroy(CUevent event) { return result(cudaEventDestroy(event)); }
CUresult cuEventElapsedTime(float* ms, CUevent start, CUevent end) {
  return result(cudaEventElapsedTime(ms, start, end));
}

}  // extern "C"
