// CUDA arrays (1D and 2D) and the copies into and out of them. An array is
// pitch-linear rows in device memory (ArrayRecord); its handle is the
// record's address.
#include <cstring>

#include "cudart/runtime.h"

// cudaMemcpyToArray/FromArray are deprecated but still exported: define them quietly.
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

using ws::Addr;
using ws::cudart::api_call;
using ws::cudart::ArrayRecord;
using ws::cudart::copy_2d;
using ws::cudart::copy_bytes;
using ws::cudart::Runtime;

namespace {

constexpr uint64_t kArrayRowAlign = 32;  // one sector: rows never share one

void* row_ptr(const ArrayRecord& a, size_t w_offset, size_t h_offset) {
  return reinterpret_cast<void*>(a.base + h_offset * a.pitch + w_offset);
}

bool fits(const ArrayRecord& a, size_t w_offset, size_t h_offset, size_t width, size_t height) {
  uint64_t row_bytes = a.extent.width * a.texel_bytes;
  return w_offset + width <= row_bytes && h_offset + height <= a.rows();
}

// `count` bytes from (w_offset, h_offset) on, row after row (the deprecated
// cudaMemcpyToArray/FromArray forms).
cudaError_t linear_array_copy(Runtime& rt, const ArrayRecord& a, size_t w_offset, size_t h_offset, void* host,
                              size_t count, cudaMemcpyKind kind, bool to_array) {
  uint64_t row_bytes = a.extent.width * a.texel_bytes;
  if (w_offset >= row_bytes && count) return cudaErrorInvalidValue;
  auto* p = static_cast<uint8_t*>(host);
  while (count) {
    if (h_offset >= a.rows()) return cudaErrorInvalidValue;
    size_t n = std::min<size_t>(count, row_bytes - w_offset);
    void* arr = row_ptr(a, w_offset, h_offset);
    cudaError_t e = to_array ? copy_bytes(rt, arr, p, n, kind) : copy_bytes(rt, p, arr, n, kind);
    if (e != cudaSuccess) return e;
    p += n, count -= n, w_offset = 0, ++h_offset;
  }
  return cudaSuccess;
}

cudaError_t to_array_2d(const char* name, cudaArray_t dst, size_t w_offset, size_t h_offset, const void* src,
                        size_t spitch, size_t width, size_t height, cudaMemcpyKind kind, cudaStream_t stream) {
  return api_call(name, [&](Runtime& rt) {
    if (!rt.streams().valid(stream)) return cudaErrorInvalidResourceHandle;
    ArrayRecord* a = rt.array(dst);
    if (!a) return cudaErrorInvalidResourceHandle;
    if (!fits(*a, w_offset, h_offset, width, height)) return cudaErrorInvalidValue;
    return copy_2d(rt, row_ptr(*a, w_offset, h_offset), a->pitch, src, spitch, width, height, kind);
  });
}

cudaError_t from_array_2d(const char* name, void* dst, size_t dpitch, cudaArray_const_t src, size_t w_offset,
                          size_t h_offset, size_t width, size_t height, cudaMemcpyKind kind, cudaStream_t stream) {
  return api_call(name, [&](Runtime& rt) {
    if (!rt.streams().valid(stream)) return cudaErrorInvalidResourceHandle;
    ArrayRecord* a = rt.array(src);
    if (!a) return cudaErrorInvalidResourceHandle;
    if (!fits(*a, w_offset, h_offset, width, height)) return cudaErrorInvalidValue;
    return copy_2d(rt, dst, dpitch, row_ptr(*a, w_offset, h_offset), a->pitch, width, height, kind);
  });
}

cudaError_t linear_copy(const char* name, const void* array, size_t w_offset, size_t h_offset, void* host,
                        size_t count, cudaMemcpyKind kind, cudaStream_t stream, bool to_array) {
  return api_call(name, [&](Runtime& rt) {
    if (!rt.streams().valid(stream)) return cudaErrorInvalidResourceHandle;
    ArrayRecord* a = rt.array(array);
    if (!a) return cudaErrorInvalidResourceHandle;
    return linear_array_copy(rt, *a, w_offset, h_offset, host, count, kind, to_array);
  });
}

}  // namespace

extern "C" {

cudaChannelFormatDesc cudaCreateChannelDesc(int x, int y, int z, int w, cudaChannelFormatKind f) {
  cudaChannelFormatDesc d;
  d.x = x, d.y = y, d.z = z, d.w = w, d.f = f;
  return d;
}

cudaError_t cudaMallocArray(cudaArray_t* array, const cudaChannelFormatDesc* desc, size_t width, size_t height,
                            unsigned int flags) {
  return api_call("cudaMallocArray", [&](Runtime& rt) {
    if (array == nullptr || desc == nullptr || width == 0) return cudaErrorInvalidValue;
    auto format = ws::cudart::texel_format(*desc);
    if (!format) return cudaErrorInvalidChannelDescriptor;
    uint32_t bytes = format->texel_bytes();
    auto rec = std::make_unique<ArrayRecord>();
    rec->desc = *desc;
    rec->extent = cudaExtent{width, height, 0};
    rec->texel_bytes = bytes;
    rec->flags = flags;
    rec->pitch = (width * bytes + kArrayRowAlign - 1) / kArrayRowAlign * kArrayRowAlign;
    auto base = rt.device().memory().allocate(rec->pitch * rec->rows());
    if (!base) return cudaErrorMemoryAllocation;
    rec->base = *base;
    rt.allocations().insert(*base);
    *array = reinterpret_cast<cudaArray_t>(rec.get());
    rt.arrays().emplace(rec.get(), std::move(rec));
    return cudaSuccess;
  });
}

cudaError_t cudaFreeArray(cudaArray_t array) {
  return api_call("cudaFreeArray", [&](Runtime& rt) {
    if (array == nullptr) return cudaSuccess;
    ArrayRecord* a = rt.array(array);
    if (!a) return cudaErrorInvalidValue;
    rt.device().memory().release(a->base);
    rt.allocations().erase(a->base);
    rt.arrays().erase(array);
    return cudaSuccess;
  });
}

cudaError_t cudaGetChannelDesc(cudaChannelFormatDesc* desc, cudaArray_const_t array) {
  return api_call("cudaGetChannelDesc", [&](Runtime& rt) {
    ArrayRecord* a = rt.array(array);
    if (!a || desc == nullptr) return cudaErrorInvalidValue;
    *desc = a->desc;
    return cudaSuccess;
  });
}

cudaError_t cudaArrayGetInfo(cudaChannelFormatDesc* desc, cudaExtent* extent, unsigned int* flags,
                             cudaArray_t array) {
  return api_call("cudaArrayGetInfo", [&](Runtime& rt) {
    ArrayRecord* a = rt.array(array);
    if (!a) return cudaErrorInvalidValue;
    if (desc) *desc = a->desc;
    if (extent) *extent = a->extent;
    if (flags) *flags = a->flags;
    return cudaSuccess;
  });
}

cudaError_t cudaMemcpy2DToArray(cudaArray_t dst, size_t w_offset, size_t h_offset, const void* src, size_t spitch,
                                size_t width, size_t height, cudaMemcpyKind kind) {
  return to_array_2d("cudaMemcpy2DToArray", dst, w_offset, h_offset, src, spitch, width, height, kind, nullptr);
}
cudaError_t cudaMemcpy2DToArrayAsync(cudaArray_t dst, size_t w_offset, size_t h_offset, const void* src,
                                     size_t spitch, size_t width, size_t height, cudaMemcpyKind kind,
                                     cudaStream_t stream) {
  return to_array_2d("cudaMemcpy2DToArrayAsync", dst, w_offset, h_offset, src, spitch, width, height, kind, stream);
}
cudaError_t cudaMemcpy2DFromArray(void* dst, size_t dpitch, cudaArray_const_t src, size_t w_offset, size_t h_offset,
                                  size_t width, size_t height, cudaMemcpyKind kind) {
  return from_array_2d("cudaMemcpy2DFromArray", dst, dpitch, src, w_offset, h_offset, width, height, kind, nullptr);
}
cudaError_t cudaMemcpy2DFromArrayAsync(void* dst, size_t dpitch, cudaArray_const_t src, size_t w_offset,
                                       size_t h_offset, size_t width, size_t height, cudaMemcpyKind kind,
                                       cudaStream_t stream) {
  return from_array_2d("cudaMemcpy2DFromArrayAsync", dst, dpitch, src, w_offset, h_offset, width, height, kind,
                       stream);
}
cudaError_t cudaMemcpyToArray(cudaArray_t dst, size_t w_offset, size_t h_offset, const void* src, size_t count,
                              cudaMemcpyKind kind) {
  return linear_copy("cudaMemcpyToArray", dst, w_offset, h_offset, const_cast<void*>(src), count, kind, nullptr,
                     true);
}
cudaError_t cudaMemcpyToArrayAsync(cudaArray_t dst, size_t w_offset, size_t h_offset, const void* src, size_t count,
                                   cudaMemcpyKind kind, cudaStream_t stream) {
  return linear_copy("cudaMemcpyToArrayAsync", dst, w_offset, h_offset, const_cast<void*>(src), count, kind, stream,
                     true);
}
cudaError_t cudaMemcpyFromArray(void* dst, cudaArray_const_t src, size_t w_offset, size_t h_offset, size_t count,
                                cudaMemcpyKind kind) {
  return linear_copy("cudaMemcpyFromArray", src, w_offset, h_offset, dst, count, kind, nullptr, false);
}
cudaError_t cudaMemcpyFromArrayAsync(void* dst, cudaArray_const_t src, size_t w_offset, size_t h_offset,
                                     size_t count, cudaMemcpyKind kind, cudaStream_t stream) {
  return linear_copy("cudaMemcpyFromArrayAsync", src, w_offset, h_offset, dst, count, kind, stream, false);
}

}  // extern "C"

WARPSIM_PER_THREAD_ALIAS(cudaMemcpy2DToArray_ptds, cudaMemcpy2DToArray);
WARPSIM_PER_THREAD_ALIAS(cudaMemcpy2DToArrayAsync_ptsz, cudaMemcpy2DToArrayAsync);
WARPSIM_PER_THREAD_ALIAS(cudaMemcpy2DFromArray_ptds, cudaMemcpy2DFromArray);
WARPSIM_PER_THREAD_ALIAS(cudaMemcpy2DFromArrayAsync_ptsz, cudaMemcpy2DFromArrayAsync);
WARPSIM_PER_THREAD_ALIAS(cudaMemcpyToArray_ptds, cudaMemcpyToArray);
WARPSIM_PER_THREAD_ALIAS(cudaMemcpyToArrayAsync_ptsz, cudaMemcpyToArrayAsync);
WARPSIM_PER_THREAD_ALIAS(cudaMemcpyFromArray_ptds, cudaMemcpyFromArray);
WARPSIM_PER_THREAD_ALIAS(cudaMemcpyFromArrayAsync_ptsz, cudaMemcpyFromArrayAsync);
