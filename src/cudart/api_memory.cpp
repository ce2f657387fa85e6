// Device and host allocation, copies, memsets and module variables.
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "cudart/runtime.h"

using ws::Addr;
using ws::cudart::api_call;
using ws::cudart::Runtime;
using ws::cudart::copy_2d;
using ws::cudart::copy_bytes;

namespace {

Addr addr(const void* p) { return reinterpret_cast<Addr>(p); }

bool is_device(Runtime& rt, const void* p, size_t bytes) {
  return rt.device().memory().find(addr(p), bytes == 0 ? 1 : bytes).has_value();
}

// Resolves cudaMemcpyDefault by where the pointers lie (unified addressing):
// page-locked host memory is host memory even where kernels can address it.
cudaMemcpyKind resolve(Runtime& rt, cudaMemcpyKind kind, const void* dst, const void* src, size_t bytes) {
  if (kind != cudaMemcpyDefault) return kind;
  const ws::exec::DeviceMemory& mem = rt.device().memory();
  bool d = is_device(rt, dst, bytes) && !mem.is_host(addr(dst));
  bool s = is_device(rt, src, bytes) && !mem.is_host(addr(src));
  return d ? (s ? cudaMemcpyDeviceToDevice : cudaMemcpyHostToDevice)
           : (s ? cudaMemcpyDeviceToHost : cudaMemcpyHostToHost);
}

// The host's pointer to unified memory at `ptr`: the pointer itself, or
// within a registered buffer the host address it aliases.
void* host_pointer(const ws::exec::DeviceMemory& mem, const void* ptr) {
  auto range = mem.find(addr(ptr));
  if (void* host = range ? mem.registered_host(range->first) : nullptr)
    return static_cast<char*>(host) + (addr(ptr) - range->first);
  return const_cast<void*>(ptr);
}

cudaError_t fill(Runtime& rt, void* dst, int value, size_t bytes) {
  if (bytes == 0) return cudaSuccess;
  if (!is_device(rt, dst, bytes)) return cudaErrorInvalidValue;
  rt.device().set(addr(dst), static_cast<uint8_t>(value), bytes);
  return cudaSuccess;
}

cudaError_t fill_2d(Runtime& rt, void* dst, size_t pitch, int value, size_t width, size_t height) {
  if (width == 0 || height == 0) return cudaSuccess;
  if (width > pitch) return cudaErrorInvalidPitchValue;
  if (!is_device(rt, dst, pitch * (height - 1) + width)) return cudaErrorInvalidValue;
  if (width == pitch) return fill(rt, dst, value, pitch * height);
  for (size_t row = 0; row < height; ++row)
    rt.device().set(addr(dst) + row * pitch, static_cast<uint8_t>(value), width);
  return cudaSuccess;
}

// [offset, offset+bytes) of a registered variable as a device pointer.
cudaError_t symbol_range(Runtime& rt, const void* symbol, size_t bytes, size_t offset, void** out) {
  auto sym = rt.symbol(symbol);
  if (!sym) return cudaErrorInvalidSymbol;
  if (offset > sym->second || bytes > sym->second - offset) return cudaErrorInvalidValue;
  *out = reinterpret_cast<void*>(sym->first + offset);
  return cudaSuccess;
}

// Copies between a registered variable and `other` (host or device memory).
cudaError_t symbol_copy(const char* name, const void* symbol, bool to_symbol, void* other, size_t bytes,
                        size_t offset, cudaMemcpyKind kind, ws::cudart::CopyStream on = {}) {
  return api_call(name, [&](Runtime& rt) {
    cudaMemcpyKind across = to_symbol ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost;
    if (kind != across && kind != cudaMemcpyDeviceToDevice && kind != cudaMemcpyDefault)
      return cudaErrorInvalidMemcpyDirection;
    void* var;
    if (cudaError_t e = symbol_range(rt, symbol, bytes, offset, &var); e != cudaSuccess) return e;
    if (on.async && !rt.streams().valid(on.stream)) return cudaErrorInvalidResourceHandle;
    return to_symbol ? copy_bytes(rt, var, other, bytes, kind, on) : copy_bytes(rt, other, var, bytes, kind, on);
  });
}

// Page-locked memory, mapped or not: with unified addressing every such
// allocation is mapped, and its device pointer is the host pointer
// (cudaHostGetDevicePointer returns it), so kernels may use either.
cudaError_t host_alloc(const char* name, void** ptr, size_t bytes, unsigned flags) {
  return api_call(name, [&](Runtime& rt) {
    if (ptr == nullptr) return cudaErrorInvalidValue;
    auto a = rt.device().memory().allocate_unified(bytes, false);
    *ptr = a ? reinterpret_cast<void*>(*a) : nullptr;
    return *ptr ? cudaSuccess : cudaErrorMemoryAllocation;
  });
}

}  // namespace

namespace ws::cudart {

namespace {

// How the host waits for a host<->device copy whose host side is `host`: a
// synchronous copy for it; an asynchronous one only where the host memory is
// pageable (CUDA stages such copies through a pinned buffer and may return
// only once the copy is done; warpsim always waits, for that stream).
ws::exec::CopyWait copy_wait(Runtime& rt, const void* host, size_t bytes, CopyStream on) {
  if (!on.async) return ws::exec::CopyWait::Host;
  return rt.device().memory().pinned(host, bytes) ? ws::exec::CopyWait::None : ws::exec::CopyWait::Stream;
}

// A 2D copy between host and device memory: one copy on the copy engine
// (one DMA set-up, its rows' bytes), every row checked first.
cudaError_t host_device_2d(Runtime& rt, uint8_t* dst, size_t dpitch, const uint8_t* src, size_t spitch,
                           size_t width, size_t height, bool to_device, CopyStream on) {
  for (size_t row = 0; row < height; ++row)
    if (!is_device(rt, to_device ? dst + row * dpitch : src + row * spitch, width)) return cudaErrorInvalidValue;
  ws::exec::DeviceMemory& mem = rt.device().memory();
  auto rows = [&mem, dst, dpitch, src, spitch, width, height, to_device] {
    for (size_t row = 0; row < height; ++row) {
      if (to_device) mem.write(addr(dst + row * dpitch), src + row * spitch, width);
      else mem.read(addr(src + row * spitch), dst + row * dpitch, width);
    }
  };
  const uint8_t* host = to_device ? src : dst;
  size_t host_pitch = to_device ? spitch : dpitch, device_pitch = to_device ? dpitch : spitch;
  Addr device = addr(to_device ? dst : src);
  rt.device().host_copy(to_device, device, (height - 1) * device_pitch + width, rows,
                        rt.stream_ref(on.stream), copy_wait(rt, host, (height - 1) * host_pitch + width, on));
  return cudaSuccess;
}

}  // namespace

cudaError_t copy_bytes(Runtime& rt, void* dst, const void* src, size_t bytes, cudaMemcpyKind kind, CopyStream on) {
  if (bytes == 0) return cudaSuccess;
  if (dst == nullptr || src == nullptr) return cudaErrorInvalidValue;
  ws::exec::Device& dev = rt.device();
  exec::StreamRef stream = rt.stream_ref(on.stream);
  switch (resolve(rt, kind, dst, src, bytes)) {
    case cudaMemcpyHostToHost: dev.drain(); std::memmove(dst, src, bytes); return cudaSuccess;
    case cudaMemcpyHostToDevice:
      if (!is_device(rt, dst, bytes)) return cudaErrorInvalidValue;
      dev.copy_to_device(addr(dst), src, bytes, stream, copy_wait(rt, src, bytes, on));
      return cudaSuccess;
    case cudaMemcpyDeviceToHost:
      if (!is_device(rt, src, bytes)) return cudaErrorInvalidValue;
      dev.copy_to_host(dst, addr(src), bytes, stream, copy_wait(rt, dst, bytes, on));
      return cudaSuccess;
    case cudaMemcpyDeviceToDevice:
      if (!is_device(rt, dst, bytes) || !is_device(rt, src, bytes)) return cudaErrorInvalidValue;
      dev.copy_on_device(addr(dst), addr(src), bytes);
      return cudaSuccess;
    default: return cudaErrorInvalidMemcpyDirection;
  }
}

cudaError_t copy_2d(Runtime& rt, void* dst, size_t dpitch, const void* src, size_t spitch, size_t width,
                    size_t height, cudaMemcpyKind kind, CopyStream on) {
  if (width > dpitch || width > spitch) return cudaErrorInvalidPitchValue;
  if (width == 0 || height == 0) return cudaSuccess;
  if (dst == nullptr || src == nullptr) return cudaErrorInvalidValue;
  auto* d = static_cast<uint8_t*>(dst);
  const auto* s = static_cast<const uint8_t*>(src);
  cudaMemcpyKind k = resolve(rt, kind, dst, src, width);
  if (k == cudaMemcpyHostToDevice || k == cudaMemcpyDeviceToHost)
    return host_device_2d(rt, d, dpitch, s, spitch, width, height, k == cudaMemcpyHostToDevice, on);
  for (size_t row = 0; row < height; ++row) {
    cudaError_t e = copy_bytes(rt, d + row * dpitch, s + row * spitch, width, k, on);
    if (e != cudaSuccess) return e;
  }
  return cudaSuccess;
}

}  // namespace ws::cudart

extern "C" {

cudaError_t cudaMalloc(void** ptr, size_t bytes) {
  return api_call("cudaMalloc", [&](Runtime& rt) {
    if (ptr == nullptr) return cudaErrorInvalidValue;
    *ptr = nullptr;
    if (bytes == 0) return cudaSuccess;
    auto a = rt.device().memory().allocate(bytes);
    if (!a) return cudaErrorMemoryAllocation;
    rt.allocations().insert(*a);
    *ptr = reinterpret_cast<void*>(*a);
    return cudaSuccess;
  });
}

cudaError_t cudaFree(void* ptr) {
  return api_call("cudaFree", [&](Runtime& rt) {
    if (ptr == nullptr) return cudaSuccess;
    rt.device().drain();  // cudaFree waits for the kernels that may use the memory
    if (!rt.device().memory().release(addr(ptr))) return cudaErrorInvalidValue;
    rt.allocations().erase(addr(ptr));
    return cudaSuccess;
  });
}

// Rows start 512 bytes apart at least (the texture pitch alignment of recent GPUs is 32;
// 512 keeps every row on its own sectors, as cudaMallocPitch does on them).
cudaError_t cudaMallocPitch(void** ptr, size_t* pitch, size_t width, size_t height) {
  if (pitch == nullptr) return Runtime::get().fail(cudaErrorInvalidValue);
  *pitch = (width + 511) / 512 * 512;
  return cudaMalloc(ptr, *pitch * height);
}

// depth slices of height rows, each row `pitch` bytes (cudaMallocPitch's).
cudaError_t cudaMalloc3D(cudaPitchedPtr* p, cudaExtent extent) {
  if (p == nullptr) return Runtime::get().fail(cudaErrorInvalidValue);
  void* ptr = nullptr;
  size_t pitch = 0;
  cudaError_t e = cudaMallocPitch(&ptr, &pitch, extent.width, extent.height * extent.depth);
  if (e == cudaSuccess) {
    p->ptr = ptr;
    p->pitch = pitch;
    p->xsize = extent.width;
    p->ysize = extent.height;
  }
  return e;
}

// Pitched linear memory to pitched linear memory, one 2-D copy per slice; a
// CUDA array on either side is not supported (it stops the program, as the
// calls the runtime lacks do).
static cudaError_t copy_3d(Runtime& rt, const cudaMemcpy3DParms* p, ws::cudart::CopyStream on) {
  if (p == nullptr) return cudaErrorInvalidValue;
  if (p->srcArray != nullptr || p->dstArray != nullptr) {
    std::fprintf(stderr, "warpsim: cudaMemcpy3D to or from a CUDA array is not supported by the warpsim runtime "
                         "(pitched linear memory is; docs/exec.md)\n");
    std::exit(2);
  }
  const cudaPitchedPtr &s = p->srcPtr, &d = p->dstPtr;
  for (size_t z = 0; z < p->extent.depth; ++z) {
    auto* src = static_cast<const uint8_t*>(s.ptr) + ((p->srcPos.z + z) * s.ysize + p->srcPos.y) * s.pitch + p->srcPos.x;
    auto* dst = static_cast<uint8_t*>(d.ptr) + ((p->dstPos.z + z) * d.ysize + p->dstPos.y) * d.pitch + p->dstPos.x;
    cudaError_t e = copy_2d(rt, dst, d.pitch, src, s.pitch, p->extent.width, p->extent.height, p->kind, on);
    if (e != cudaSuccess) return e;
  }
  return cudaSuccess;
}

cudaError_t cudaMemcpy3D(const cudaMemcpy3DParms* p) {
  return api_call("cudaMemcpy3D", [&](Runtime& rt) { return copy_3d(rt, p, {}); });
}

cudaError_t cudaMemcpy3DAsync(const cudaMemcpy3DParms* p, cudaStream_t stream) {
  return api_call("cudaMemcpy3DAsync", [&](Runtime& rt) {
    if (!rt.streams().valid(stream)) return cudaErrorInvalidResourceHandle;
    return copy_3d(rt, p, {true, stream});
  });
}

cudaError_t cudaMemcpy2D(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width, size_t height,
                         cudaMemcpyKind kind) {
  return api_call("cudaMemcpy2D",
                  [&](Runtime& rt) { return copy_2d(rt, dst, dpitch, src, spitch, width, height, kind); });
}

cudaError_t cudaMemcpy2DAsync(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width,
                              size_t height, cudaMemcpyKind kind, cudaStream_t stream) {
  return api_call("cudaMemcpy2DAsync", [&](Runtime& rt) {
    if (!rt.streams().valid(stream)) return cudaErrorInvalidResourceHandle;
    return copy_2d(rt, dst, dpitch, src, spitch, width, height, kind, {true, stream});
  });
}

cudaError_t cudaMallocHost(void** ptr, size_t bytes) { return host_alloc("cudaMallocHost", ptr, bytes, 0); }
cudaError_t cudaHostAlloc(void** ptr, size_t bytes, unsigned int flags) {
  return host_alloc("cudaHostAlloc", ptr, bytes, flags);
}
// cudaFreeHost synchronises (as cudaFree does): a queued copy may still use the memory.
cudaError_t cudaFreeHost(void* ptr) {
  return api_call("cudaFreeHost", [&](Runtime& rt) {
    if (ptr == nullptr) return cudaSuccess;
    ws::exec::DeviceMemory& mem = rt.device().memory();
    if (!mem.is_host(addr(ptr)) || mem.registered_host(addr(ptr))) return cudaErrorInvalidValue;
    rt.device().drain();
    if (!mem.release(addr(ptr))) return cudaErrorInvalidValue;
    return cudaSuccess;
  });
}
// Registered memory is mapped whatever the flags (as with unified
// addressing), at a device address of its own: cudaHostGetDevicePointer gives
// it (cudaDevAttrCanUseHostPointerForRegisteredMem is 0).
cudaError_t cudaHostRegister(void* ptr, size_t bytes, unsigned int flags) {
  return api_call("cudaHostRegister", [&](Runtime& rt) {
    if (ptr == nullptr || bytes == 0) return cudaErrorInvalidValue;
    ws::exec::DeviceMemory& mem = rt.device().memory();
    for (size_t at : {size_t{0}, bytes - 1})
      if (mem.device_address(static_cast<const char*>(ptr) + at)) return cudaErrorHostMemoryAlreadyRegistered;
    if (!mem.map_host(ptr, bytes)) return cudaErrorInvalidValue;
    return cudaSuccess;
  });
}
cudaError_t cudaHostUnregister(void* ptr) {
  return api_call("cudaHostUnregister", [&](Runtime& rt) {
    ws::exec::DeviceMemory& mem = rt.device().memory();
    auto device = mem.device_address(ptr);
    if (!device || mem.registered_host(*device) != ptr) return cudaErrorHostMemoryNotRegistered;
    rt.device().drain();  // (a queued copy or kernel may still use it)
    mem.release(*device);
    return cudaSuccess;
  });
}

cudaError_t cudaMemGetInfo(size_t* free_bytes, size_t* total) {
  return api_call("cudaMemGetInfo", [&](Runtime& rt) {
    const ws::exec::DeviceMemory& m = rt.device().memory();
    if (free_bytes) *free_bytes = m.capacity() - m.used();
    if (total) *total = m.capacity();
    return cudaSuccess;
  });
}

cudaError_t cudaMemcpy(void* dst, const void* src, size_t bytes, cudaMemcpyKind kind) {
  return api_call("cudaMemcpy", [&](Runtime& rt) { return copy_bytes(rt, dst, src, bytes, kind); });
}

cudaError_t cudaMemcpyAsync(void* dst, const void* src, size_t bytes, cudaMemcpyKind kind, cudaStream_t stream) {
  return api_call("cudaMemcpyAsync", [&](Runtime& rt) {
    if (!rt.streams().valid(stream)) return cudaErrorInvalidResourceHandle;
    return copy_bytes(rt, dst, src, bytes, kind, {true, stream});
  });
}

cudaError_t cudaMemset(void* dst, int value, size_t bytes) {
  return api_call("cudaMemset", [&](Runtime& rt) { return fill(rt, dst, value, bytes); });
}

cudaError_t cudaMemsetAsync(void* dst, int value, size_t bytes, cudaStream_t stream) {
  return api_call("cudaMemsetAsync", [&](Runtime& rt) {
    if (!rt.streams().valid(stream)) return cudaErrorInvalidResourceHandle;
    return fill(rt, dst, value, bytes);
  });
}

// `height` rows of `width` bytes, `pitch` bytes apart (a cudaMallocPitch
// allocation): each row a memset of its own.
cudaError_t cudaMemset2D(void* dst, size_t pitch, int value, size_t width, size_t height) {
  return api_call("cudaMemset2D", [&](Runtime& rt) { return fill_2d(rt, dst, pitch, value, width, height); });
}

cudaError_t cudaMemset2DAsync(void* dst, size_t pitch, int value, size_t width, size_t height, cudaStream_t stream) {
  return api_call("cudaMemset2DAsync", [&](Runtime& rt) {
    if (!rt.streams().valid(stream)) return cudaErrorInvalidResourceHandle;
    return fill_2d(rt, dst, pitch, value, width, height);
  });
}

// Each of extent.depth slices (p.ysize rows apart) a cudaMemset2D.
cudaError_t cudaMemset3D(cudaPitchedPtr p, int value, cudaExtent extent) {
  return api_call("cudaMemset3D", [&](Runtime& rt) {
    for (size_t z = 0; z < extent.depth; ++z) {
      void* slice = static_cast<uint8_t*>(p.ptr) + z * p.ysize * p.pitch;
      if (cudaError_t e = fill_2d(rt, slice, p.pitch, value, extent.width, extent.height); e != cudaSuccess) return e;
    }
    return cudaSuccess;
  });
}

cudaError_t cudaMemcpyToSymbol(const void* symbol, const void* src, size_t bytes, size_t offset,
                               cudaMemcpyKind kind) {
  return symbol_copy("cudaMemcpyToSymbol", symbol, true, const_cast<void*>(src), bytes, offset, kind);
}

cudaError_t cudaMemcpyToSymbolAsync(const void* symbol, const void* src, size_t bytes, size_t offset,
                                    cudaMemcpyKind kind, cudaStream_t stream) {
  return symbol_copy("cudaMemcpyToSymbolAsync", symbol, true, const_cast<void*>(src), bytes, offset, kind,
                     {true, stream});
}

cudaError_t cudaMemcpyFromSymbol(void* dst, const void* symbol, size_t bytes, size_t offset, cudaMemcpyKind kind) {
  return symbol_copy("cudaMemcpyFromSymbol", symbol, false, dst, bytes, offset, kind);
}

cudaError_t cudaMemcpyFromSymbolAsync(void* dst, const void* symbol, size_t bytes, size_t offset,
                                      cudaMemcpyKind kind, cudaStream_t stream) {
  return symbol_copy("cudaMemcpyFromSymbolAsync", symbol, false, dst, bytes, offset, kind, {true, stream});
}

cudaError_t cudaGetSymbolAddress(void** ptr, const void* symbol) {
  return api_call("cudaGetSymbolAddress", [&](Runtime& rt) {
    auto sym = rt.symbol(symbol);
    if (!sym) return cudaErrorInvalidSymbol;
    *ptr = reinterpret_cast<void*>(sym->first);
    return cudaSuccess;
  });
}

cudaError_t cudaGetSymbolSize(size_t* bytes, const void* symbol) {
  return api_call("cudaGetSymbolSize", [&](Runtime& rt) {
    auto sym = rt.symbol(symbol);
    if (!sym) return cudaErrorInvalidSymbol;
    *bytes = sym->second;
    return cudaSuccess;
  });
}

cudaError_t cudaPointerGetAttributes(cudaPointerAttributes* attr, const void* ptr) {
  return api_call("cudaPointerGetAttributes", [&](Runtime& rt) {
    if (attr == nullptr) return cudaErrorInvalidValue;
    *attr = cudaPointerAttributes{};
    const ws::exec::DeviceMemory& mem = rt.device().memory();
    auto mapped = ptr ? mem.device_address(ptr) : std::nullopt;
    if (mapped && *mapped != addr(ptr)) {  // registered host memory, by its host pointer
      attr->type = cudaMemoryTypeHost;
      attr->hostPointer = const_cast<void*>(ptr);
      attr->devicePointer = reinterpret_cast<void*>(*mapped);
    } else if (ptr != nullptr && is_device(rt, ptr, 1)) {
      bool unified = mem.is_unified(addr(ptr));
      attr->type = mem.is_host(addr(ptr)) ? cudaMemoryTypeHost
                                           : unified ? cudaMemoryTypeManaged : cudaMemoryTypeDevice;
      if (unified) attr->hostPointer = host_pointer(mem, ptr);
      attr->devicePointer = const_cast<void*>(ptr);
    } else {
      attr->type = cudaMemoryTypeUnregistered;
      attr->device = -2;
      attr->hostPointer = const_cast<void*>(ptr);
    }
    return cudaSuccess;
  });
}

}  // extern "C"

WARPSIM_PER_THREAD_ALIAS(cudaMemcpy_ptds, cudaMemcpy);
WARPSIM_PER_THREAD_ALIAS(cudaMemcpyAsync_ptsz, cudaMemcpyAsync);
WARPSIM_PER_THREAD_ALIAS(cudaMemcpy2D_ptds, cudaMemcpy2D);
WARPSIM_PER_THREAD_ALIAS(cudaMemcpy2DAsync_ptsz, cudaMemcpy2DAsync);
WARPSIM_PER_THREAD_ALIAS(cudaMemset_ptds, cudaMemset);
WARPSIM_PER_THREAD_ALIAS(cudaMemsetAsync_ptsz, cudaMemsetAsync);
WARPSIM_PER_THREAD_ALIAS(cudaMemset2D_ptds, cudaMemset2D);
WARPSIM_PER_THREAD_ALIAS(cudaMemcpy3D_ptds, cudaMemcpy3D);
WARPSIM_PER_THREAD_ALIAS(cudaMemset3D_ptds, cudaMemset3D);
WARPSIM_PER_THREAD_ALIAS(cudaMemcpy3DAsync_ptsz, cudaMemcpy3DAsync);
WARPSIM_PER_THREAD_ALIAS(cudaMemset2DAsync_ptsz, cudaMemset2DAsync);
WARPSIM_PER_THREAD_ALIAS(cudaMemcpyToSymbol_ptds, cudaMemcpyToSymbol);
WARPSIM_PER_THREAD_ALIAS(cudaMemcpyToSymbolAsync_ptsz, cudaMemcpyToSymbolAsync);
WARPSIM_PER_THREAD_ALIAS(cudaMemcpyFromSymbol_ptds, cudaMemcpyFromSymbol);
WARPSIM_PER_THREAD_ALIAS(cudaMemcpyFromSymbolAsync_ptsz, cudaMemcpyFromSymbolAsync);
