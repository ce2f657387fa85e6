// libcuda.so.1: the other ABI symbols of the implemented entry points.
// - Older forms with the signature of today's (cuCtxDestroy before
//   cuCtxDestroy_v2 differed only in how it treated other threads' current
//   contexts): the same implementation. Older forms with 32-bit device
//   pointers (cuMemAlloc, cuMemcpyHtoD, ...) stay stubs.
// - The per-thread default stream forms (nvcc --default-stream per-thread, or
//   cuGetProcAddress with CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM):
//   _ptsz ones take the null stream as the per-thread stream; _ptds ones are
//   synchronous, where the default stream makes no difference.
#include "cudart/driver/driver.h"

#undef cuCtxDestroy
#undef cuCtxPushCurrent
#undef cuCtxPopCurrent
#undef cuStreamDestroy
#undef cuEventDestroy
#undef cuEventElapsedTime
#undef cuDevicePrimaryCtxRelease
#undef cuDevicePrimaryCtxReset
#undef cuDevicePrimaryCtxSetFlags

namespace {
CUstream per_thread(CUstream s) { return s ? s : CU_STREAM_PER_THREAD; }
}  // namespace

extern "C" {

CUresult cuCtxDestroy(CUcontext ctx) { return cuCtxDestroy_v2(ctx); }
CUresult cuCtxPushCurrent(CUcontext ctx) { return cuCtxPushCurrent_v2(ctx); }
CUresult cuCtxPopCurrent(CUcontext* ctx) { return cuCtxPopCurrent_v2(ctx); }
CUresult cuStreamDestroy(CUstream s) { return cuStreamDestroy_v2(s); }
CUresult cuEventDestroy(CUevent e) { return cuEventDestroy_v2(e); }
CUresult cuEventElapsedTime(float* ms, CUevent a, CUevent b) { return cuEventElapsedTime_v2(ms, a, b); }
CUresult cuDevicePrimaryCtxRelease(CUdevice d) { return cuDevicePrimaryCtxRelease_v2(d); }
CUresult cuDevicePrimaryCtxReset(CUdevice d) { return cuDevicePrimaryCtxReset_v2(d); }
CUresult cuDevicePrimaryCtxSetFlags(CUdevice d, unsigned f) { return cuDevicePrimaryCtxSetFlags_v2(d, f); }

CUresult cuMemcpyHtoD_v2_ptds(CUdeviceptr d, const void* s, size_t n) { return cuMemcpyHtoD_v2(d, s, n); }
CUresult cuMemcpyDtoH_v2_ptds(void* d, CUdeviceptr s, size_t n) { return cuMemcpyDtoH_v2(d, s, n); }
CUresult cuMemcpyDtoD_v2_ptds(CUdeviceptr d, CUdeviceptr s, size_t n) { return cuMemcpyDtoD_v2(d, s, n); }
CUresult cuMemsetD8_v2_ptds(CUdeviceptr d, unsigned char v, size_t n) { return cuMemsetD8_v2(d, v, n); }
CUresult cuMemsetD16_v2_ptds(CUdeviceptr d, unsigned short v, size_t n) { return cuMemsetD16_v2(d, v, n); }
CUresult cuMemsetD32_v2_ptds(CUdeviceptr d, unsigned int v, size_t n) { return cuMemsetD32_v2(d, v, n); }

CUresult cuMemcpyHtoDAsync_v2_ptsz(CUdeviceptr d, const void* s, size_t n, CUstream st) {
  return cuMemcpyHtoDAsync_v2(d, s, n, per_thread(st));
}
CUresult cuMemcpyDtoHAsync_v2_ptsz(void* d, CUdeviceptr s, size_t n, CUstream st) {
  return cuMemcpyDtoHAsync_v2(d, s, n, per_thread(st));
}
CUresult cuMemcpyDtoDAsync_v2_ptsz(CUdeviceptr d, CUdeviceptr s, size_t n, CUstream st) {
  return cuMemcpyDtoDAsync_v2(d, s, n, per_thread(st));
}
CUresult cuMemsetD8Async_ptsz(CUdeviceptr d, unsigned char v, size_t n, CUstream st) {
  return cuMemsetD8Async(d, v, n, per_thread(st));
}
CUresult cuMemsetD16Async_ptsz(CUdeviceptr d, unsigned short v, size_t n, CUstream st) {
  return cuMemsetD16Async(d, v, n, per_thread(st));
}
CUresult cuMemsetD32Async_ptsz(CUdeviceptr d, unsigned int v, size_t n, CUstream st) {
  return cuMemsetD32Async(d, v, n, per_thread(st));
}
CUresult cuMemcpy_ptds(CUdeviceptr d, CUdeviceptr s, size_t n) { return cuMemcpy(d, s, n); }
CUresult cuMemcpyAsync_ptsz(CUdeviceptr d, CUdeviceptr s, size_t n, CUstream st) {
  return cuMemcpyAsync(d, s, n, per_thread(st));
}
CUresult cuStreamWaitEvent_ptsz(CUstream s, CUevent e, unsigned int flags) {
  return cuStreamWaitEvent(per_thread(s), e, flags);
}
CUresult cuStreamSynchronize_ptsz(CUstream s) { return cuStreamSynchronize(per_thread(s)); }
CUresult cuStreamQuery_ptsz(CUstream s) { return cuStreamQuery(per_thread(s)); }
CUresult cuEventRecord_ptsz(CUevent e, CUstream s) { return cuEventRecord(e, per_thread(s)); }
CUresult cuLaunchKernel_ptsz(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                             unsigned bz, unsigned shmem, CUstream s, void** params, void** extra) {
  return cuLaunchKernel(f, gx, gy, gz, bx, by, bz, shmem, per_thread(s), params, extra);
}

}  // extern "C"
