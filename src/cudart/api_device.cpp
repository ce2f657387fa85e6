// The device, its properties, synchronisation, errors, streams and events.
// Every operation has completed when its call returns, so synchronisation
// only reports the error state.
#include "cudart/errors.h"
#include "cudart/properties.h"
#include "cudart/runtime.h"

using ws::cudart::api_call;
using ws::cudart::Runtime;

namespace {

uint64_t event_number(cudaEvent_t event) { return reinterpret_cast<uintptr_t>(event); }

// Timing mode: runs the GPU until the event's record has completed, and
// gives the event its simulated time (functional mode timed it when recorded).
void wait_for_event(Runtime& rt, cudaEvent_t event, bool host_waits = true) {
  rt.device().synchronize_event(event_number(event), host_waits);
  if (std::optional<double> ns = rt.device().event_ns(event_number(event)); ns && rt.events().recorded(event))
    rt.events().record(event, *ns);
}

constexpr int kVersion = 13000;  // CUDA 13.0, as the runtime and the driver

cudaError_t check_device(int device) { return device == 0 ? cudaSuccess : cudaErrorInvalidDevice; }

}  // namespace

extern "C" {

cudaError_t cudaGetDeviceCount(int* count) {
  *count = 1;
  return cudaSuccess;
}
cudaError_t cudaSetDevice(int device) {
  return api_call("cudaSetDevice", [&](Runtime&) { return check_device(device); });
}
cudaError_t cudaGetDevice(int* device) {
  *device = 0;
  return cudaSuccess;
}
cudaError_t cudaInitDevice(int device, unsigned int, unsigned int) {
  return api_call("cudaInitDevice", [&](Runtime& rt) {
    rt.device();
    return check_device(device);
  });
}
cudaError_t cudaChooseDevice(int* device, const cudaDeviceProp*) {
  *device = 0;
  return cudaSuccess;
}
cudaError_t cudaSetDeviceFlags(unsigned int) { return cudaSuccess; }
cudaError_t cudaGetDeviceFlags(unsigned int* flags) {
  *flags = 0;
  return cudaSuccess;
}
cudaError_t cudaDriverGetVersion(int* v) {
  *v = kVersion;
  return cudaSuccess;
}
cudaError_t cudaRuntimeGetVersion(int* v) {
  *v = kVersion;
  return cudaSuccess;
}

cudaError_t cudaGetDeviceProperties(cudaDeviceProp* prop, int device) {
  return api_call("cudaGetDeviceProperties", [&](Runtime& rt) {
    if (prop == nullptr) return cudaErrorInvalidValue;
    if (cudaError_t e = check_device(device); e != cudaSuccess) return e;
    ws::cudart::fill_properties(rt.device().facts(), *prop);
    return cudaSuccess;
  });
}

cudaError_t cudaDeviceGetAttribute(int* value, cudaDeviceAttr attr, int device) {
  return api_call("cudaDeviceGetAttribute", [&](Runtime& rt) {
    if (value == nullptr) return cudaErrorInvalidValue;
    if (cudaError_t e = check_device(device); e != cudaSuccess) return e;
    auto v = ws::cudart::device_attribute(rt.device().facts(), attr);
    if (!v) return cudaErrorInvalidValue;
    *value = *v;
    return cudaSuccess;
  });
}

cudaError_t cudaDeviceSynchronize() {
  return api_call("cudaDeviceSynchronize", [](Runtime& rt) {
    rt.device().synchronize();
    return cudaSuccess;
  });
}

cudaError_t cudaDeviceReset() {
  Runtime& rt = Runtime::get();
  std::lock_guard lock(rt.mutex());
  rt.reset();
  return cudaSuccess;
}

cudaError_t cudaDeviceSetLimit(cudaLimit limit, size_t value) {
  return api_call("cudaDeviceSetLimit", [&](Runtime& rt) {
    rt.limits()[limit] = static_cast<int64_t>(value);
    return cudaSuccess;
  });
}

cudaError_t cudaDeviceGetLimit(size_t* value, cudaLimit limit) {
  return api_call("cudaDeviceGetLimit", [&](Runtime& rt) {
    static const std::map<int, int64_t> defaults{{cudaLimitStackSize, 1024},
                                                 {cudaLimitPrintfFifoSize, 1 << 20},
                                                 {cudaLimitMallocHeapSize, 8 << 20},
                                                 {cudaLimitDevRuntimeSyncDepth, 2},
                                                 {cudaLimitDevRuntimePendingLaunchCount, 2048},
                                                 {cudaLimitMaxL2FetchGranularity, 64},
                                                 {cudaLimitPersistingL2CacheSize, 0}};
    auto set = rt.limits().find(limit);
    auto def = defaults.find(limit);
    if (set == rt.limits().end() && def == defaults.end()) return cudaErrorUnsupportedLimit;
    *value = static_cast<size_t>(set != rt.limits().end() ? set->second : def->second);
    return cudaSuccess;
  });
}

cudaError_t cudaDeviceGetStreamPriorityRange(int* least, int* greatest) {
  if (least) *least = 0;
  if (greatest) *greatest = -5;
  return cudaSuccess;
}

cudaError_t cudaDeviceSetCacheConfig(cudaFuncCache) { return cudaSuccess; }
cudaError_t cudaDeviceGetCacheConfig(cudaFuncCache* config) {
  *config = cudaFuncCachePreferNone;
  return cudaSuccess;
}
cudaError_t cudaDeviceSetSharedMemConfig(cudaSharedMemConfig) { return cudaSuccess; }
cudaError_t cudaDeviceGetSharedMemConfig(cudaSharedMemConfig* config) {
  *config = cudaSharedMemBankSizeFourByte;
  return cudaSuccess;
}
cudaError_t cudaProfilerStart() { return cudaSuccess; }
cudaError_t cudaProfilerStop() { return cudaSuccess; }

cudaError_t cudaGetLastError() {
  Runtime& rt = Runtime::get();
  std::lock_guard lock(rt.mutex());
  return rt.take_last_error();
}

cudaError_t cudaPeekAtLastError() {
  Runtime& rt = Runtime::get();
  std::lock_guard lock(rt.mutex());
  return rt.peek_last_error();
}

const char* cudaGetErrorName(cudaError_t e) { return ws::cudart::error_name(e); }
const char* cudaGetErrorString(cudaError_t e) { return ws::cudart::error_string(e); }

// Streams: every operation completes when issued, so a stream is only a handle.

cudaError_t cudaStreamCreateWithPriority(cudaStream_t* stream, unsigned int flags, int) {
  return api_call("cudaStreamCreate", [&](Runtime& rt) {
    if (stream == nullptr) return cudaErrorInvalidValue;
    *stream = static_cast<cudaStream_t>(rt.streams().create(flags));
    return cudaSuccess;
  });
}
cudaError_t cudaStreamCreateWithFlags(cudaStream_t* stream, unsigned int flags) {
  return cudaStreamCreateWithPriority(stream, flags, 0);
}
cudaError_t cudaStreamCreate(cudaStream_t* stream) { return cudaStreamCreateWithPriority(stream, 0, 0); }

cudaError_t cudaStreamDestroy(cudaStream_t stream) {
  return api_call("cudaStreamDestroy", [&](Runtime& rt) {
    return rt.streams().destroy(stream) ? cudaSuccess : cudaErrorInvalidResourceHandle;
  });
}

cudaError_t cudaStreamSynchronize(cudaStream_t stream) {
  return api_call("cudaStreamSynchronize", [&](Runtime& rt) {
    if (!rt.streams().valid(stream)) return cudaErrorInvalidResourceHandle;
    rt.device().synchronize_stream(rt.stream_ref(stream));
    return cudaSuccess;
  });
}
cudaError_t cudaStreamQuery(cudaStream_t stream) { return cudaStreamSynchronize(stream); }

cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event, unsigned int) {
  return api_call("cudaStreamWaitEvent", [&](Runtime& rt) {
    if (!rt.streams().valid(stream) || !rt.events().valid(event)) return cudaErrorInvalidResourceHandle;
    rt.device().wait_event(rt.stream_ref(stream), event_number(event));
    return cudaSuccess;
  });
}

cudaError_t cudaStreamAddCallback(cudaStream_t stream, cudaStreamCallback_t callback, void* data, unsigned int) {
  cudaError_t e = cudaStreamSynchronize(stream);
  if (e == cudaSuccess) callback(stream, cudaSuccess, data);
  return e;
}

cudaError_t cudaLaunchHostFunc(cudaStream_t stream, cudaHostFn_t fn, void* data) {
  cudaError_t e = cudaStreamSynchronize(stream);
  if (e == cudaSuccess) fn(data);
  return e;
}

// Events carry the simulated time (Device::now_ns) at which they were recorded.

cudaError_t cudaEventCreateWithFlags(cudaEvent_t* event, unsigned int flags) {
  return api_call("cudaEventCreate", [&](Runtime& rt) {
    if (event == nullptr) return cudaErrorInvalidValue;
    *event = static_cast<cudaEvent_t>(rt.events().create(flags));
    return cudaSuccess;
  });
}
cudaError_t cudaEventCreate(cudaEvent_t* event) { return cudaEventCreateWithFlags(event, 0); }

cudaError_t cudaEventDestroy(cudaEvent_t event) {
  return api_call("cudaEventDestroy", [&](Runtime& rt) {
    return rt.events().destroy(event) ? cudaSuccess : cudaErrorInvalidResourceHandle;
  });
}

cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream) {
  return api_call("cudaEventRecord", [&](Runtime& rt) {
    if (!rt.streams().valid(stream)) return cudaErrorInvalidResourceHandle;
    if (!rt.events().record(event, rt.device().now_ns())) return cudaErrorInvalidResourceHandle;
    rt.device().record_event(event_number(event), rt.stream_ref(stream));  // timed: completes with the stream's work
    return cudaSuccess;
  });
}
cudaError_t cudaEventRecordWithFlags(cudaEvent_t event, cudaStream_t stream, unsigned int) {
  return cudaEventRecord(event, stream);
}

cudaError_t cudaEventSynchronize(cudaEvent_t event) {
  return api_call("cudaEventSynchronize", [&](Runtime& rt) {
    if (!rt.events().valid(event)) return cudaErrorInvalidResourceHandle;
    wait_for_event(rt, event);
    return cudaSuccess;
  });
}
cudaError_t cudaEventQuery(cudaEvent_t event) { return cudaEventSynchronize(event); }

cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t start, cudaEvent_t end) {
  return api_call("cudaEventElapsedTime", [&](Runtime& rt) {
    if (ms == nullptr) return cudaErrorInvalidValue;
    if (!rt.events().valid(start) || !rt.events().valid(end)) return cudaErrorInvalidResourceHandle;
    wait_for_event(rt, start, false);
    wait_for_event(rt, end, false);
    auto t = rt.events().elapsed_ms(start, end);
    if (!t) return cudaErrorInvalidResourceHandle;
    *ms = *t;
    return cudaSuccess;
  });
}

}  // extern "C"

extern "C" {

cudaError_t cudaStreamSynchronize_ptsz(cudaStream_t s) { return cudaStreamSynchronize(per_thread_default(s)); }
cudaError_t cudaStreamQuery_ptsz(cudaStream_t s) { return cudaStreamQuery(per_thread_default(s)); }
cudaError_t cudaStreamWaitEvent_ptsz(cudaStream_t s, cudaEvent_t e, unsigned int flags) {
  return cudaStreamWaitEvent(per_thread_default(s), e, flags);
}
cudaError_t cudaStreamAddCallback_ptsz(cudaStream_t s, cudaStreamCallback_t cb, void* data, unsigned int flags) {
  return cudaStreamAddCallback(per_thread_default(s), cb, data, flags);
}
cudaError_t cudaLaunchHostFunc_ptsz(cudaStream_t s, cudaHostFn_t fn, void* data) {
  return cudaLaunchHostFunc(per_thread_default(s), fn, data);
}
cudaError_t cudaEventRecord_ptsz(cudaEvent_t e, cudaStream_t s) { return cudaEventRecord(e, per_thread_default(s)); }
cudaError_t cudaEventRecordWithFlags_ptsz(cudaEvent_t e, cudaStream_t s, unsigned int flags) {
  return cudaEventRecordWithFlags(e, per_thread_default(s), flags);
}

}  // extern "C"
