// Registration of fatbins, kernels and variables; kernel launches; kernel
// attributes and occupancy.
#include <algorithm>
#include <functional>
#include <cstdlib>
#include <memory>
#include <new>
#include <optional>
#include <string>

#include "cudart/properties.h"
#include "cudart/runtime.h"
#include "exec/runtime/kernel_params.h"
#include "sampling/plan.h"
#include "timing/gpu/gpu.h"

using ws::cudart::api_call;
using ws::cudart::KernelRef;
using ws::cudart::Runtime;

namespace {

ws::Dim3 to_dim3(dim3 d) { return ws::Dim3{d.x, d.y, d.z}; }

// The launch checks the real runtime makes before a kernel runs.
cudaError_t check_launch(Runtime& rt, const void* stub, const KernelRef& k, dim3 grid, dim3 block, size_t shmem) {
  const ws::exec::DeviceFacts& f = rt.device().facts();
  uint64_t threads = uint64_t{block.x} * block.y * block.z;
  if (threads == 0 || grid.x == 0 || grid.y == 0 || grid.z == 0 || grid.y > 65535 || grid.z > 65535 ||
      block.x > 1024 || block.y > 1024 || block.z > 64 || threads > static_cast<uint64_t>(f.max_threads_per_block))
    return cudaErrorInvalidConfiguration;
  int dyn_limit = rt.kernel_settings()[stub].max_dynamic_shmem;
  uint64_t limit = dyn_limit >= 0 ? k.static_shmem() + dyn_limit : f.shmem_per_block;
  if (k.static_shmem() + shmem > std::min<uint64_t>(limit, f.shmem_per_block_optin)) return cudaErrorInvalidValue;
  return cudaSuccess;
}

// A cooperative launch must fit on the GPU at once, or grid.sync() would
// wait for CTAs that cannot start: the runtime refuses a grid larger than the
// SMs times the occupancy cudaOccupancyMaxActiveBlocksPerMultiprocessor reports.
cudaError_t check_cooperative(Runtime& rt, const KernelRef& k, dim3 grid, dim3 block, size_t shmem) {
  const ws::exec::DeviceFacts& f = rt.device().facts();
  int threads = static_cast<int>(block.x * block.y * block.z);
  int per_sm = ws::cudart::occupancy(f, threads, ws::exec::regs_per_thread(f, *k.function), k.static_shmem() + shmem);
  uint64_t ctas = uint64_t{grid.x} * grid.y * grid.z;
  if (ctas <= uint64_t(per_sm) * uint64_t(f.sms)) return cudaSuccess;
  rt.log("cooperative launch of {} refused: {} CTAs, at most {} per SM x {} SMs fit at once", k.function->name, ctas,
         per_sm, f.sms);
  return cudaErrorCooperativeLaunchTooLarge;
}

// The grid workspace of CUDA's driver ABI ({u32 size, u32 barrier counter},
// read by cg::this_grid() through %envreg1/2), allocated for one cooperative
// launch and freed when the last copy of the launch goes: a launch queued on a
// stream keeps it until its kernel has ended.
class GridWorkspace {
 public:
  explicit GridWorkspace(ws::exec::DeviceMemory& mem) : mem_(mem) {
    std::optional<ws::Addr> a = mem.allocate(kBytes);
    if (!a) throw std::bad_alloc();
    addr_ = *a;
    const uint32_t init[2] = {kBytes, 0};
    mem.write(addr_, init, sizeof init);
  }
  ~GridWorkspace() { mem_.release(addr_); }
  GridWorkspace(const GridWorkspace&) = delete;
  GridWorkspace& operator=(const GridWorkspace&) = delete;
  ws::Addr address() const { return addr_; }

 private:
  static constexpr uint32_t kBytes = 8;
  ws::exec::DeviceMemory& mem_;
  ws::Addr addr_ = 0;
};

// Runs a checked launch; a failed kernel makes the context unusable (sticky).
cudaError_t run_on_device(Runtime& rt, const ws::exec::Launch& l, cudaStream_t stream) {
  ws::exec::LaunchResult r;
  try {
    r = rt.device().launch(l, rt.stream_ref(stream));
  } catch (const ws::sampling::PlanMismatch&) {
    // A plan made for another program: stop it. At exit the device writes
    // stats.json with the error and the runtime prints it.
    std::exit(1);
  } catch (const ws::timing::KernelStopped& e) {
    // gpu.max_cycles is the simulator's watchdog: a real GPU's watchdog
    // reports a launch timeout, and the context is unusable afterwards.
    rt.kernel_fault(e.what(), cudaErrorLaunchTimeout);
    return cudaErrorLaunchTimeout;
  } catch (const ws::Error& e) {
    // The timing model failed (a deadlock, an opcode it cannot time): the
    // kernel did not complete, and the model's state is no longer usable.
    rt.kernel_fault(e.what(), cudaErrorLaunchFailure);
    return cudaErrorLaunchFailure;
  }
  if (!r.ok) {
    cudaError_t code = ws::cudart::launch_error(r.failure);
    rt.kernel_fault(r.error, code);
    return code;
  }
  rt.log("{}: {} warp instructions, {} thread instructions", l.kernel->name, r.warp_insts, r.thread_insts);
  return cudaSuccess;
}

cudaError_t launch(const char* name, const void* stub, dim3 grid, dim3 block, void** args, size_t shmem,
                   cudaStream_t stream, bool cooperative = false) {
  return api_call(name, [&](Runtime& rt) {
    const KernelRef* k = rt.kernel(stub);
    if (k == nullptr) return cudaErrorInvalidDeviceFunction;
    return ws::cudart::launch_kernel(rt, *k, stub, {grid, block, shmem, stream},
                                     [&] { return ws::runtime::pack_kernel_params(*k->function, args); },
                                     cooperative);
  });
}

}  // namespace

namespace ws::cudart {

cudaError_t launch_kernel(Runtime& rt, const KernelRef& k, const void* key, const CallConfig& c,
                          const std::function<std::vector<uint8_t>()>& params, bool cooperative) {
  if (!rt.streams().valid(c.stream)) return cudaErrorInvalidResourceHandle;
  if (cudaError_t e = check_launch(rt, key, k, c.grid, c.block, c.shmem); e != cudaSuccess) {
    rt.log("launch of {} refused: grid ({},{},{}) block ({},{},{}) dynamic shared {} B", k.function->name, c.grid.x,
           c.grid.y, c.grid.z, c.block.x, c.block.y, c.block.z, c.shmem);
    return e;
  }
  if (cooperative)
    if (cudaError_t e = check_cooperative(rt, k, c.grid, c.block, c.shmem); e != cudaSuccess) return e;
  std::shared_ptr<GridWorkspace> workspace;
  if (cooperative) workspace = std::make_shared<GridWorkspace>(rt.device().memory());
  exec::Launch l;
  l.module = k.module;
  l.kernel = k.function;
  l.grid = to_dim3(c.grid);
  l.block = to_dim3(c.block);
  l.dynamic_shmem = static_cast<uint32_t>(c.shmem);
  l.params = params();
  l.grid_workspace = workspace ? workspace->address() : 0;
  l.keep_alive = workspace;
  rt.log("{}launch {} grid ({},{},{}) block ({},{},{}) dynamic shared {} B", cooperative ? "cooperative " : "",
         k.function->name, c.grid.x, c.grid.y, c.grid.z, c.block.x, c.block.y, c.block.z, c.shmem);
  return run_on_device(rt, l, c.stream);
}

cudaFuncAttributes function_attributes(Runtime& rt, const KernelRef& k, const void* key) {
  cudaFuncAttributes a{};
  const ws::exec::DeviceFacts& f = rt.device().facts();
  const ws::ptx::Function& fn = *k.function;
  a.sharedSizeBytes = k.static_shmem();
  for (const ws::ptx::Variable& v : k.module->ast.globals)
    if (v.space == ws::ptx::StateSpace::Const) a.constSizeBytes += v.size;
  for (const ws::ptx::Variable& v : fn.locals)
    if (v.space == ws::ptx::StateSpace::Local) a.localSizeBytes += v.size;
  uint32_t max_threads = fn.maxntid[0] ? fn.maxntid[0] * std::max(1u, fn.maxntid[1]) * std::max(1u, fn.maxntid[2])
                                       : static_cast<uint32_t>(f.max_threads_per_block);
  a.maxThreadsPerBlock = static_cast<int>(std::min<uint32_t>(max_threads, f.max_threads_per_block));
  a.numRegs = static_cast<int>(ws::exec::regs_per_thread(f, fn));
  // The virtual architecture the PTX targets (".target sm_80" -> 80).
  a.ptxVersion = std::atoi(k.module->ast.target.c_str() + std::min<size_t>(3, k.module->ast.target.size()));
  a.binaryVersion = f.cc_major * 10 + f.cc_minor;
  int dyn = rt.kernel_settings()[key].max_dynamic_shmem;
  uint64_t static_bytes = std::min<uint64_t>(f.shmem_per_block, a.sharedSizeBytes);
  a.maxDynamicSharedSizeBytes = dyn >= 0 ? dyn : static_cast<int>(f.shmem_per_block - static_bytes);
  a.preferredShmemCarveout = rt.kernel_settings()[key].carveout;
  return a;
}

cudaError_t set_function_attribute(Runtime& rt, const KernelRef& k, const void* key, cudaFuncAttribute attr,
                                   int value) {
  const ws::exec::DeviceFacts& f = rt.device().facts();
  if (attr == cudaFuncAttributeMaxDynamicSharedMemorySize) {
    if (value < 0 || k.static_shmem() + value > f.shmem_per_block_optin) return cudaErrorInvalidValue;
    rt.kernel_settings()[key].max_dynamic_shmem = value;
  } else if (attr == cudaFuncAttributePreferredSharedMemoryCarveout) {
    if (value < -1 || value > 100) return cudaErrorInvalidValue;
    rt.kernel_settings()[key].carveout = value;
  }
  return cudaSuccess;  // other attributes (cluster shapes, ...) do not change functional results
}

}  // namespace ws::cudart

extern "C" {

void** __cudaRegisterFatBinary(void* wrapper) {
  Runtime& rt = Runtime::get();
  std::lock_guard lock(rt.mutex());
  return rt.registry().add_fatbin(wrapper);
}

void __cudaRegisterFatBinaryEnd(void** handle) {
  Runtime& rt = Runtime::get();
  std::lock_guard lock(rt.mutex());
  rt.load_pending();  // only fatbins registered after the device exists (dlopen)
}

void __cudaUnregisterFatBinary(void** handle) {
  Runtime& rt = Runtime::get();
  std::lock_guard lock(rt.mutex());
  rt.registry().remove_fatbin(handle);
}

void __cudaRegisterFunction(void** handle, const char* host_stub, char* device_fun, const char* device_name,
                            int thread_limit, uint3* tid, uint3* bid, dim3* bdim, dim3* gdim, int* wsize) {
  Runtime& rt = Runtime::get();
  std::lock_guard lock(rt.mutex());
  rt.registry().add_kernel(handle, host_stub, device_name);
}

void __cudaRegisterVar(void** handle, char* host_var, char* device_address, const char* device_name, int ext,
                       size_t size, int constant, int global) {
  Runtime& rt = Runtime::get();
  std::lock_guard lock(rt.mutex());
  rt.registry().add_variable(handle, host_var, device_name, size, constant != 0);
}

unsigned __cudaPushCallConfiguration(dim3 grid, dim3 block, size_t shmem, void* stream) {
  Runtime& rt = Runtime::get();
  std::lock_guard lock(rt.mutex());
  rt.call_stack().push_back({grid, block, shmem, static_cast<cudaStream_t>(stream)});
  return 0;
}

cudaError_t __cudaPopCallConfiguration(dim3* grid, dim3* block, size_t* shmem, void* stream) {
  Runtime& rt = Runtime::get();
  std::lock_guard lock(rt.mutex());
  if (rt.call_stack().empty()) return rt.fail(cudaErrorMissingConfiguration);
  ws::cudart::CallConfig c = rt.call_stack().back();
  rt.call_stack().pop_back();
  *grid = c.grid;
  *block = c.block;
  *shmem = c.shmem;
  *static_cast<cudaStream_t*>(stream) = c.stream;
  return cudaSuccess;
}

// The kernel handle is the host stub itself: launches look kernels up by it.
cudaError_t __cudaGetKernel(cudaKernel_t* kernel, const void* host_stub) {
  *kernel = reinterpret_cast<cudaKernel_t>(const_cast<void*>(host_stub));
  return cudaSuccess;
}

cudaError_t __cudaLaunchKernel(cudaKernel_t kernel, dim3 grid, dim3 block, void** args, size_t shmem,
                               cudaStream_t stream) {
  return launch("kernel launch", reinterpret_cast<const void*>(kernel), grid, block, args, shmem, stream);
}

cudaError_t cudaLaunchKernel(const void* func, dim3 grid, dim3 block, void** args, size_t shmem,
                             cudaStream_t stream) {
  return launch("cudaLaunchKernel", func, grid, block, args, shmem, stream);
}

cudaError_t cudaLaunchCooperativeKernel(const void* func, dim3 grid, dim3 block, void** args, size_t shmem,
                                        cudaStream_t stream) {
  return launch("cudaLaunchCooperativeKernel", func, grid, block, args, shmem, stream, true);
}

namespace {

// Launch attributes warpsim can honour by running the launch as an ordinary
// one: hints (priority, L2 access policy, carve-out preference, memory-sync
// domains) change no result, and programmatic stream serialization only
// allows the kernel to start before its predecessor ends; starting after it,
// as warpsim does, is one of the orders the program must accept. The
// cooperative flag is read by the launch itself. Anything else stops the
// program with the attribute's name.
const char* unsupported_attribute(const cudaLaunchAttribute& a) {
  switch (a.id) {
    case cudaLaunchAttributeIgnore:
    case cudaLaunchAttributeAccessPolicyWindow:
    case cudaLaunchAttributePriority:
    case cudaLaunchAttributeMemSyncDomainMap:
    case cudaLaunchAttributeMemSyncDomain:
    case cudaLaunchAttributePreferredSharedMemoryCarveout:
    case cudaLaunchAttributeProgrammaticStreamSerialization:
    case cudaLaunchAttributeCooperative:
      return nullptr;
    case cudaLaunchAttributeClusterDimension:
      return a.val.clusterDim.x * a.val.clusterDim.y * a.val.clusterDim.z > 1
                 ? "cudaLaunchAttributeClusterDimension (thread-block clusters)"
                 : nullptr;
    case cudaLaunchAttributeProgrammaticEvent: return "cudaLaunchAttributeProgrammaticEvent";
    case cudaLaunchAttributeLaunchCompletionEvent: return "cudaLaunchAttributeLaunchCompletionEvent";
    default: return "this launch attribute";
  }
}

}  // namespace

cudaError_t cudaLaunchKernelExC(const cudaLaunchConfig_t* config, const void* func, void** args) {
  bool cooperative = false;
  for (unsigned i = 0; i < config->numAttrs; ++i) {
    const cudaLaunchAttribute& a = config->attrs[i];
    if (const char* what = unsupported_attribute(a))
      Runtime::fatal(std::string("cudaLaunchKernelEx: ") + what + " (attribute id " +
                         std::to_string(static_cast<int>(a.id)) + ") is not supported by the warpsim runtime",
                     2);
    if (a.id == cudaLaunchAttributeCooperative) cooperative = a.val.cooperative != 0;
  }
  return launch("cudaLaunchKernelExC", func, config->gridDim, config->blockDim, args, config->dynamicSmemBytes,
                config->stream, cooperative);
}

cudaError_t cudaFuncGetAttributes(cudaFuncAttributes* attr, const void* func) {
  return api_call("cudaFuncGetAttributes", [&](Runtime& rt) {
    const KernelRef* k = rt.kernel(func);
    if (k == nullptr) return cudaErrorInvalidDeviceFunction;
    if (attr == nullptr) return cudaErrorInvalidValue;
    *attr = ws::cudart::function_attributes(rt, *k, func);
    return cudaSuccess;
  });
}

cudaError_t cudaFuncSetAttribute(const void* func, cudaFuncAttribute attr, int value) {
  return api_call("cudaFuncSetAttribute", [&](Runtime& rt) {
    const KernelRef* k = rt.kernel(func);
    if (k == nullptr) return cudaErrorInvalidDeviceFunction;
    return ws::cudart::set_function_attribute(rt, *k, func, attr, value);
  });
}

cudaError_t cudaFuncSetCacheConfig(const void* func, cudaFuncCache config) {
  return api_call("cudaFuncSetCacheConfig", [&](Runtime& rt) {
    return rt.kernel(func) ? cudaSuccess : cudaErrorInvalidDeviceFunction;
  });
}

cudaError_t cudaFuncSetSharedMemConfig(const void* func, cudaSharedMemConfig config) {
  return api_call("cudaFuncSetSharedMemConfig", [&](Runtime& rt) {
    return rt.kernel(func) ? cudaSuccess : cudaErrorInvalidDeviceFunction;
  });
}

cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int* blocks, const void* func, int block_size,
                                                                   size_t dynamic_shmem, unsigned int flags) {
  return api_call("cudaOccupancyMaxActiveBlocksPerMultiprocessor", [&](Runtime& rt) {
    const KernelRef* k = rt.kernel(func);
    if (k == nullptr) return cudaErrorInvalidDeviceFunction;
    if (blocks == nullptr || block_size <= 0) return cudaErrorInvalidValue;
    const ws::exec::DeviceFacts& f = rt.device().facts();
    *blocks = ws::cudart::occupancy(f, block_size, ws::exec::regs_per_thread(f, *k->function),
                                    k->static_shmem() + dynamic_shmem);
    return cudaSuccess;
  });
}

cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int* blocks, const void* func, int block_size,
                                                          size_t dynamic_shmem) {
  return cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(blocks, func, block_size, dynamic_shmem, 0);
}

cudaError_t cudaOccupancyAvailableDynamicSMemPerBlock(size_t* bytes, const void* func, int blocks_per_sm,
                                                      int block_size) {
  return api_call("cudaOccupancyAvailableDynamicSMemPerBlock", [&](Runtime& rt) {
    const KernelRef* k = rt.kernel(func);
    if (k == nullptr) return cudaErrorInvalidDeviceFunction;
    if (bytes == nullptr || blocks_per_sm <= 0) return cudaErrorInvalidValue;
    const ws::exec::DeviceFacts& f = rt.device().facts();
    uint64_t per_block = std::min<uint64_t>(f.shmem_per_sm / blocks_per_sm, f.shmem_per_block_optin);
    uint64_t fixed = k->static_shmem();
    *bytes = per_block > fixed ? per_block - fixed : 0;
    return cudaSuccess;
  });
}

}  // extern "C"

extern "C" {

cudaError_t __cudaLaunchKernel_ptsz(cudaKernel_t kernel, dim3 grid, dim3 block, void** args, size_t shmem,
                                    cudaStream_t stream) {
  return __cudaLaunchKernel(kernel, grid, block, args, shmem, per_thread_default(stream));
}
cudaError_t cudaLaunchKernel_ptsz(const void* func, dim3 grid, dim3 block, void** args, size_t shmem,
                                  cudaStream_t stream) {
  return cudaLaunchKernel(func, grid, block, args, shmem, per_thread_default(stream));
}
cudaError_t cudaLaunchCooperativeKernel_ptsz(const void* func, dim3 grid, dim3 block, void** args, size_t shmem,
                                             cudaStream_t stream) {
  return cudaLaunchCooperativeKernel(func, grid, block, args, shmem, per_thread_default(stream));
}
cudaError_t cudaLaunchKernelExC_ptsz(const cudaLaunchConfig_t* config, const void* func, void** args) {
  if (!config) return cudaLaunchKernelExC(config, func, args);
  cudaLaunchConfig_t c = *config;
  c.stream = per_thread_default(c.stream);
  return cudaLaunchKernelExC(&c, func, args);
}

}  // extern "C"
