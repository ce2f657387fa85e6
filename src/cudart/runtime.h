// The state behind the CUDA runtime C ABI of libcudart.so.13: registrations,
// the simulated device (created on first use from the WARPSIM_* environment),
// the PTX modules loaded onto it, streams, events and CUDA's error state.
// The C entry points (api_*.cpp) are thin wrappers over this class.
#pragma once
#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <new>
#include <set>
#include <string>
#include <vector>

#include "exec/device.h"
#include "exec/runtime/env_options.h"
#include "exec/runtime/registry.h"
#include "exec/runtime/streams.h"

namespace ws::cudart {

// A kernel as a launch needs it: its module and PTX function.
struct KernelRef {
  const exec::LoadedModule* module = nullptr;
  const ptx::Function* function = nullptr;
  uint64_t static_shmem() const { return exec::static_shared_bytes(*module, *function); }
};

// Per-kernel settings from cudaFuncSetAttribute / cudaFuncSetCacheConfig.
struct KernelSettings {
  int max_dynamic_shmem = -1;  // -1: not set (the 48 KiB default applies)
  int carveout = -1;
};

// A CUDA array: pitch-linear rows in device memory (real GPUs use a
// block-linear layout; rows keep the timing model's addresses plausible).
struct ArrayRecord {
  Addr base = 0;
  cudaChannelFormatDesc desc{};
  cudaExtent extent{};   // width in elements; height 0 for 1D arrays
  uint64_t pitch = 0;    // bytes per row
  uint32_t texel_bytes = 0;
  unsigned flags = 0;
  uint64_t rows() const { return extent.height ? extent.height : 1; }
};

// What cudaGetTextureObject*Desc report back.
struct TextureRecord {
  cudaResourceDesc resource{};
  cudaTextureDesc texture{};
};

struct CallConfig {
  dim3 grid, block;
  size_t shmem = 0;
  cudaStream_t stream = nullptr;
};

class Runtime {
 public:
  // The process's one runtime: the C ABI offers no other place to keep it.
  // Never destroyed, so that API calls from static destructors still work.
  static Runtime& get();

  std::recursive_mutex& mutex() { return mutex_; }
  const runtime::RuntimeOptions& options() const { return options_; }
  runtime::Registry& registry() { return registry_; }
  runtime::StreamTable& streams() { return streams_; }
  runtime::EventTable& events() { return events_; }
  std::vector<CallConfig>& call_stack() { return call_stack_; }
  std::map<const void*, KernelSettings>& kernel_settings() { return kernel_settings_; }
  std::map<int, int64_t>& limits() { return limits_; }

  // The simulated device, created (and every registered fatbin loaded) on
  // first use. A device that cannot be created is fatal.
  exec::Device& device();
  // Loads fatbins registered since the last call (only once the device exists).
  void load_pending();

  // The kernel whose host stub is `host_stub`; nullptr when unregistered.
  // Fatal when its fatbin's PTX could not be loaded.
  const KernelRef* kernel(const void* host_stub);
  // Device address and size of the variable whose host shadow is `symbol`.
  std::optional<std::pair<Addr, uint64_t>> symbol(const void* symbol);

  // Error state. `fail` records a non-success code as the last error.
  cudaError_t fail(cudaError_t e);
  cudaError_t take_last_error();
  cudaError_t peek_last_error() const { return last_error_; }
  cudaError_t sticky_error() const { return sticky_; }
  // A kernel fault: the device context is unusable from now on (sticky).
  void kernel_fault(const std::string& what, cudaError_t code = cudaErrorIllegalAddress);
  // A queued kernel (timing mode) failed at a synchronisation point: made
  // the sticky error and returned (cudaSuccess: none).
  cudaError_t deferred_fault();
  // The stream as the device sees it (a valid handle).
  exec::StreamRef stream_ref(cudaStream_t stream) const {
    return {streams_.number(stream), streams_.blocking(stream), streams_.nonblocking() > 0};
  }
  // cudaDeviceReset: frees allocations, forgets streams, events, errors.
  void reset();
  std::set<Addr>& allocations() { return allocations_; }
  // CUDA arrays by handle (an ArrayRecord's address), and texture objects' descriptors.
  std::map<const void*, std::unique_ptr<ArrayRecord>>& arrays() { return arrays_; }
  ArrayRecord* array(const void* handle);
  std::map<uint64_t, TextureRecord>& textures() { return textures_; }

  template <typename... Args>
  void log(fmt::format_string<Args...> f, Args&&... args) {
    if (options_.verbose) print_line("debug: " + fmt::format(f, std::forward<Args>(args)...));
  }
  static void print_line(const std::string& msg);
  [[noreturn]] static void fatal(const std::string& msg, int status = 1);

 private:
  Runtime();
  exec::LoadedModule* load_relocatable(const std::string& what);
  void load_fatbin(runtime::FatbinRecord& f);
  static void at_exit();

  std::recursive_mutex mutex_;
  runtime::RuntimeOptions options_;
  runtime::Registry registry_;
  runtime::StreamTable streams_;
  runtime::EventTable events_;
  std::vector<CallConfig> call_stack_;
  std::map<const void*, KernelSettings> kernel_settings_;
  std::map<int, int64_t> limits_;
  std::set<Addr> allocations_;
  std::map<const void*, std::unique_ptr<ArrayRecord>> arrays_;
  std::map<uint64_t, TextureRecord> textures_;
  std::unique_ptr<exec::Device> device_;
  std::map<int, exec::LoadedModule*> modules_;  // fatbin id -> module
  exec::LoadedModule* relocatable_ = nullptr;   // -rdc=true units, linked once
  std::map<int, std::string> load_errors_;      // fatbin id -> why its PTX did not load
  std::set<int> attempted_;                     // fatbin ids already tried
  std::map<const void*, KernelRef> kernels_;    // host stub -> resolved kernel
  cudaError_t last_error_ = cudaSuccess;
  cudaError_t sticky_ = cudaSuccess;
};

// Runs one API call under the runtime lock: returns the sticky error when the
// device has faulted, turns warpsim exceptions into a printed line and an
// error code, and records failures as the last error.
template <typename F>
cudaError_t api_call(const char* name, F&& body) {
  Runtime& rt = Runtime::get();
  std::lock_guard lock(rt.mutex());
  if (rt.sticky_error() != cudaSuccess) return rt.fail(rt.sticky_error());
  try {
    cudaError_t code = body(rt);
    if (cudaError_t f = rt.deferred_fault(); f != cudaSuccess) return rt.fail(f);
    return rt.fail(code);
  } catch (const std::bad_alloc&) {
    return rt.fail(cudaErrorMemoryAllocation);
  } catch (const std::exception& e) {
    Runtime::print_line(fmt::format("{}: {}", name, e.what()));
    return rt.fail(cudaErrorUnknown);
  }
}

// The stream of a *Async copy (none: a synchronous copy).
struct CopyStream {
  bool async = false;
  cudaStream_t stream = nullptr;
};
// Copies as cudaMemcpy[Async] and cudaMemcpy2D[Async] do (api_memory.cpp),
// inside an api_call.
cudaError_t copy_bytes(Runtime& rt, void* dst, const void* src, size_t bytes, cudaMemcpyKind kind,
                       CopyStream on = {});
cudaError_t copy_2d(Runtime& rt, void* dst, size_t dpitch, const void* src, size_t spitch, size_t width,
                    size_t height, cudaMemcpyKind kind, CopyStream on = {});
// The element format of a channel descriptor: 1, 2 or 4 equal channels of 8,
// 16 or 32 bits (api_texture.cpp); nullopt for anything else.
std::optional<exec::TexelFormat> texel_format(const cudaChannelFormatDesc& d);
// The error a failed launch reports (sticky).
cudaError_t launch_error(exec::LaunchFailure why);
// Checks and runs a launch of `k` (api_launch.cpp), inside an api_call.
// `key` names the kernel in kernel_settings() (a host stub, or a driver
// CUfunction); `params` builds the parameter buffer once the checks passed.
cudaError_t launch_kernel(Runtime& rt, const KernelRef& k, const void* key, const CallConfig& c,
                          const std::function<std::vector<uint8_t>()>& params, bool cooperative = false);
// What cudaFuncGetAttributes reports for `k` (settings under `key`).
cudaFuncAttributes function_attributes(Runtime& rt, const KernelRef& k, const void* key);
// cudaFuncSetAttribute for `k` (settings under `key`).
cudaError_t set_function_attribute(Runtime& rt, const KernelRef& k, const void* key, cudaFuncAttribute attr,
                                   int value);

}  // namespace ws::cudart

// The per-thread-default-stream variants (nvcc --default-stream per-thread)
// of calls whose null stream does not matter here (copies and memsets
// synchronise everything): the legacy ones.
#define WARPSIM_PER_THREAD_ALIAS(variant, target) \
  extern "C" decltype(target) variant __attribute__((alias(#target)))

// The others: in them a null stream is the per-thread default stream.
inline cudaStream_t per_thread_default(cudaStream_t stream) { return stream ? stream : cudaStreamPerThread; }
