// The runtime's side of warpsim's driver API (driver_bridge.h): PTX modules
// loaded by cuModuleLoad*, their functions and variables, and launches of
// them, on the same simulated device as the runtime's own kernels.
#include <dlfcn.h>

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "cudart/driver_bridge.h"
#include "cudart/launch_params.h"
#include "cudart/runtime.h"
#include "frontend/fatbin/fatbin.h"
#include "frontend/ptx/parser.h"

using ws::cudart::Runtime;

static_assert(ws::cudart::kLaunchParamEnd == CU_LAUNCH_PARAM_END_AS_INT);
static_assert(ws::cudart::kLaunchParamBufferPointer == CU_LAUNCH_PARAM_BUFFER_POINTER_AS_INT);
static_assert(ws::cudart::kLaunchParamBufferSize == CU_LAUNCH_PARAM_BUFFER_SIZE_AS_INT);

namespace {

struct DriverModule;

// A CUfunction: a kernel of a loaded module.
struct DriverFunction {
  ws::cudart::KernelRef ref;
  DriverModule* owner = nullptr;
};

// A CUmodule. Unloading keeps the record (and the device keeps the code and
// variables: exec::Program cannot drop a module) but its handles stop working.
struct DriverModule {
  const ws::exec::LoadedModule* loaded = nullptr;
  std::string name;
  bool unloaded = false;
  std::vector<std::unique_ptr<DriverFunction>> functions;
};

// Every module ever loaded, under the runtime's lock; handles are the records' addresses.
std::vector<std::unique_ptr<DriverModule>>& modules() {
  static auto* all = new std::vector<std::unique_ptr<DriverModule>>();
  return *all;
}

DriverModule* module_of(CUmodule handle) {
  for (auto& m : modules())
    if (reinterpret_cast<CUmodule>(m.get()) == handle) return m->unloaded ? nullptr : m.get();
  return nullptr;
}

DriverFunction* function_of(CUfunction handle) {
  for (auto& m : modules())
    for (auto& f : m->functions)
      if (reinterpret_cast<CUfunction>(f.get()) == handle) return m->unloaded ? nullptr : f.get();
  return nullptr;
}

// A module that cannot load, with the driver's code for why.
class ModuleError : public ws::InputError {
 public:
  ModuleError(CUresult code, const std::string& what) : InputError(what), code_(code) {}
  CUresult code() const { return code_; }

 private:
  CUresult code_;
};

// Runs one driver call under the runtime lock, as api_call does for the
// runtime's: a faulted context answers with its sticky error, and warpsim's
// exceptions become a printed line and the driver's error code.
template <typename F>
CUresult driver_call(const char* name, F&& body) {
  Runtime& rt = Runtime::get();
  std::lock_guard lock(rt.mutex());
  if (rt.sticky_error() != cudaSuccess) return ws::cudart::bridge::to_result(rt.sticky_error());
  try {
    CUresult r = body(rt);
    if (cudaError_t f = rt.deferred_fault(); f != cudaSuccess) return ws::cudart::bridge::to_result(f);
    return r;
  } catch (const ModuleError& e) {
    Runtime::print_line(fmt::format("{}: {}", name, e.what()));
    return e.code();
  } catch (const ws::cudart::LaunchParamError& e) {
    Runtime::print_line(e.what());
    return CUDA_ERROR_INVALID_VALUE;
  } catch (const std::bad_alloc&) {
    return CUDA_ERROR_OUT_OF_MEMORY;
  } catch (const std::exception& e) {
    Runtime::print_line(fmt::format("{}: {}", name, e.what()));
    return CUDA_ERROR_UNKNOWN;
  }
}

// The fat binary container at `image`: its header gives its length.
std::span<const uint8_t> container_at(const void* image, size_t bytes, const std::string& what) {
  const auto* p = static_cast<const uint8_t*>(image);
  uint16_t header = 0;
  uint64_t payload = 0;
  std::memcpy(&header, p + 6, sizeof header);
  std::memcpy(&payload, p + 8, sizeof payload);
  if (bytes != 0 && header + payload > bytes)
    throw ModuleError(CUDA_ERROR_INVALID_IMAGE, fmt::format("{}: the fat binary's header claims {} bytes, the "
                                                            "file has {}",
                                                            what, header + payload, bytes));
  return {p, header + payload};
}

[[noreturn]] void no_ptx(const std::string& what, const std::string& holds) {
  throw ModuleError(CUDA_ERROR_NO_BINARY_FOR_GPU,
                    fmt::format("{} holds {}, no PTX. warpsim runs PTX only: build the module's kernels with "
                                "-gencode arch=compute_XX,code=compute_XX (or load nvcc -ptx output); a library "
                                "that ships only SASS (cuBLAS, cuFFT, ...) cannot run under warpsim",
                                what, holds));
}

// The PTX text of a module image: PTX itself, or the best PTX entry of a fat
// binary for the device's compute capability.
std::string ptx_of_image(const void* image, size_t bytes, const std::string& what, uint32_t cc) {
  uint32_t magic = 0;
  if (bytes == 0 || bytes >= sizeof magic) std::memcpy(&magic, image, sizeof magic);
  std::vector<ws::fatbin::Entry> entries;
  if (magic == ws::fatbin::kWrapperMagic)
    entries = ws::fatbin::parse_container(ws::fatbin::container_of_wrapper(image, what), what);
  else if (magic == ws::fatbin::kContainerMagic)
    entries = ws::fatbin::parse_container(container_at(image, bytes, what), what);
  else if (std::memcmp(&magic, "\x7f" "ELF", 4) == 0)
    no_ptx(what, "an ELF cubin (SASS for one real GPU)");
  else if (bytes != 0)
    return std::string(static_cast<const char*>(image), strnlen(static_cast<const char*>(image), bytes));
  else
    return std::string(static_cast<const char*>(image));
  int pick = ws::fatbin::select_ptx(entries, cc);
  if (pick < 0) {
    std::string archs;
    for (const ws::fatbin::Entry& e : entries) archs += fmt::format(" sm_{}", e.arch);
    no_ptx(what, fmt::format("a fat binary with cubins only (entries:{})", archs));
  }
  return ws::fatbin::entry_text(entries[pick], what);
}

CUresult module_load(CUmodule* out, const void* image, size_t bytes, const char* name) {
  return driver_call("cuModuleLoad", [&](Runtime& rt) {
    if (out == nullptr || image == nullptr) return CUDA_ERROR_INVALID_VALUE;
    const ws::exec::DeviceFacts& facts = rt.device().facts();
    std::string text = ptx_of_image(image, bytes, name, facts.cc_major * 10 + facts.cc_minor);
    ws::ptx::Module parsed;
    try {
      parsed = ws::ptx::parse_module(text, name);
    } catch (const ws::InputError& e) {
      throw ModuleError(CUDA_ERROR_INVALID_PTX, e.what());
    }
    parsed.filename = name;
    auto m = std::make_unique<DriverModule>();
    m->name = name;
    m->loaded = &rt.device().program().load(std::move(parsed), text);
    rt.log("{}: loaded ({} functions)", name, m->loaded->ast.functions.size());
    *out = reinterpret_cast<CUmodule>(m.get());
    modules().push_back(std::move(m));
    return CUDA_SUCCESS;
  });
}

CUresult module_unload(CUmodule module) {
  return driver_call("cuModuleUnload", [&](Runtime&) {
    DriverModule* m = module_of(module);
    if (m == nullptr) return CUDA_ERROR_INVALID_HANDLE;
    m->unloaded = true;
    return CUDA_SUCCESS;
  });
}

CUresult module_get_function(CUfunction* out, CUmodule module, const char* name) {
  return driver_call("cuModuleGetFunction", [&](Runtime& rt) {
    DriverModule* m = module_of(module);
    if (m == nullptr) return CUDA_ERROR_INVALID_HANDLE;
    if (out == nullptr || name == nullptr) return CUDA_ERROR_INVALID_VALUE;
    for (auto& f : m->functions)
      if (f->ref.function->name == name) return *out = reinterpret_cast<CUfunction>(f.get()), CUDA_SUCCESS;
    for (const ws::ptx::Function& fn : m->loaded->ast.functions) {
      if (!fn.is_entry || fn.name != name) continue;
      m->functions.push_back(std::make_unique<DriverFunction>(DriverFunction{{m->loaded, &fn}, m}));
      *out = reinterpret_cast<CUfunction>(m->functions.back().get());
      return CUDA_SUCCESS;
    }
    rt.log("cuModuleGetFunction: {} has no .entry {}", m->name, name);
    return CUDA_ERROR_NOT_FOUND;
  });
}

CUresult module_get_global(CUdeviceptr* dptr, size_t* bytes, CUmodule module, const char* name) {
  return driver_call("cuModuleGetGlobal", [&](Runtime& rt) {
    DriverModule* m = module_of(module);
    if (m == nullptr) return CUDA_ERROR_INVALID_HANDLE;
    if (name == nullptr) return CUDA_ERROR_INVALID_VALUE;
    auto it = m->loaded->symbols.find(name);
    if (it == m->loaded->symbols.end()) {
      rt.log("cuModuleGetGlobal: {} has no variable {}", m->name, name);
      return CUDA_ERROR_NOT_FOUND;
    }
    if (dptr) *dptr = it->second;
    if (bytes) {
      auto size = m->loaded->symbol_sizes.find(name);
      *bytes = size != m->loaded->symbol_sizes.end() ? size->second : 0;
    }
    return CUDA_SUCCESS;
  });
}

CUresult launch(CUfunction f, const unsigned* gb, unsigned shmem, CUstream stream, void** params, void** extra) {
  return driver_call("cuLaunchKernel", [&](Runtime& rt) {
    DriverFunction* fn = function_of(f);
    if (fn == nullptr) return CUDA_ERROR_INVALID_HANDLE;
    ws::cudart::CallConfig c{dim3(gb[0], gb[1], gb[2]), dim3(gb[3], gb[4], gb[5]), shmem, stream};
    auto pack = [&] { return ws::cudart::driver_launch_params(*fn->ref.function, params, extra); };
    return ws::cudart::bridge::to_result(ws::cudart::launch_kernel(rt, fn->ref, fn, c, pack));
  });
}

CUresult func_get_attribute(int* value, CUfunction_attribute attr, CUfunction f) {
  return driver_call("cuFuncGetAttribute", [&](Runtime& rt) {
    DriverFunction* fn = function_of(f);
    if (fn == nullptr) return CUDA_ERROR_INVALID_HANDLE;
    if (value == nullptr || attr < 0 || attr >= CU_FUNC_ATTRIBUTE_MAX) return CUDA_ERROR_INVALID_VALUE;
    cudaFuncAttributes a = ws::cudart::function_attributes(rt, fn->ref, fn);
    switch (attr) {
      case CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK: *value = a.maxThreadsPerBlock; break;
      case CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES: *value = static_cast<int>(a.sharedSizeBytes); break;
      case CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES: *value = static_cast<int>(a.constSizeBytes); break;
      case CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES: *value = static_cast<int>(a.localSizeBytes); break;
      case CU_FUNC_ATTRIBUTE_NUM_REGS: *value = a.numRegs; break;
      case CU_FUNC_ATTRIBUTE_PTX_VERSION: *value = a.ptxVersion; break;
      case CU_FUNC_ATTRIBUTE_BINARY_VERSION: *value = a.binaryVersion; break;
      case CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES: *value = a.maxDynamicSharedSizeBytes; break;
      case CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT: *value = a.preferredShmemCarveout; break;
      default: *value = 0;  // caching mode, cluster shapes: not modelled, 0 as on a GPU without them
    }
    return CUDA_SUCCESS;
  });
}

CUresult func_set_attribute(CUfunction f, CUfunction_attribute attr, int value) {
  // The two settable attributes share the runtime's numbers (static_asserts below).
  return driver_call("cuFuncSetAttribute", [&](Runtime& rt) {
    DriverFunction* fn = function_of(f);
    if (fn == nullptr) return CUDA_ERROR_INVALID_HANDLE;
    auto runtime_attr = static_cast<cudaFuncAttribute>(attr);
    return ws::cudart::bridge::to_result(ws::cudart::set_function_attribute(rt, fn->ref, fn, runtime_attr, value));
  });
}
static_assert(int{CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES} == int{cudaFuncAttributeMaxDynamicSharedMemorySize});
static_assert(int{CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT} ==
              int{cudaFuncAttributePreferredSharedMemoryCarveout});

CUresult memset_elements(CUdeviceptr dst, unsigned value, unsigned element_bytes, size_t count) {
  return driver_call("cuMemsetD", [&](Runtime& rt) {
    if (element_bytes != 1 && element_bytes != 2 && element_bytes != 4) return CUDA_ERROR_INVALID_VALUE;
    size_t bytes = count * element_bytes;
    // cudaMemset checks the range and does the memset's bookkeeping (timing,
    // trace-out); the pattern is written over its zeros.
    void* p = reinterpret_cast<void*>(static_cast<uintptr_t>(dst));
    if (cudaError_t e = cudaMemset(p, static_cast<int>(value), bytes); e != cudaSuccess || element_bytes == 1)
      return ws::cudart::bridge::to_result(e);
    std::vector<uint8_t> pattern(bytes);
    for (size_t i = 0; i < bytes; i += element_bytes) std::memcpy(&pattern[i], &value, element_bytes);
    rt.device().memory().write(dst, pattern.data(), bytes);
    return CUDA_SUCCESS;
  });
}

const ws::cudart::bridge::Table kTable = {
    sizeof(ws::cudart::bridge::Table), module_load, module_unload, module_get_function, module_get_global, launch,
    func_get_attribute, func_set_attribute, memset_elements,
};

}  // namespace

extern "C" cudaError_t cudaGetExportTable(const void** table, const cudaUUID_t* id) {
  if (table == nullptr || id == nullptr) return cudaErrorInvalidValue;
  if (std::memcmp(id->bytes, ws::cudart::bridge::kTableId.bytes, sizeof id->bytes) != 0) {
    // NVIDIA's private tables (CUDA's own tools ask for them): none here.
    Runtime::print_line("cudaGetExportTable: not supported for this table id (warpsim has no NVIDIA-private tables)");
    return cudaErrorNotSupported;
  }
  *table = &kTable;
  return cudaSuccess;
}

namespace {

using ProcAddress = CUresult (*)(const char*, void**, int, cuuint64_t, CUdriverProcAddressQueryResult*);

// warpsim's libcuda.so.1, beside this library (or wherever the loader finds
// it): cudaGetDriverEntryPoint hands out its entry points.
ProcAddress driver_lookup() {
  static ProcAddress lookup = [] {
    Dl_info info{};
    dladdr(reinterpret_cast<void*>(&driver_lookup), &info);
    std::string path = info.dli_fname ? info.dli_fname : "";
    path = path.substr(0, path.rfind('/') + 1) + "libcuda.so.1";
    void* lib = dlopen(path.c_str(), RTLD_NOW | RTLD_GLOBAL);
    if (lib == nullptr) lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_GLOBAL);
    return lib ? reinterpret_cast<ProcAddress>(dlsym(lib, "cuGetProcAddress_v2")) : nullptr;
  }();
  return lookup;
}

cudaError_t entry_point(const char* symbol, void** fn, unsigned version, unsigned long long flags,
                        cudaDriverEntryPointQueryResult* status) {
  ProcAddress lookup = driver_lookup();
  if (lookup == nullptr) {
    Runtime::print_line("cudaGetDriverEntryPoint: warpsim's libcuda.so.1 is not beside libcudart.so.13");
    return cudaErrorNotSupported;
  }
  CUdriverProcAddressQueryResult found{};
  CUresult r = lookup(symbol, fn, static_cast<int>(version), flags, &found);
  if (status) *status = static_cast<cudaDriverEntryPointQueryResult>(found);
  return r == CUDA_SUCCESS ? cudaSuccess : cudaErrorInvalidValue;
}
// The query results and flags share their numbers with the driver's.
static_assert(int{cudaDriverEntryPointSymbolNotFound} == int{CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND});
static_assert(int{cudaEnablePerThreadDefaultStream} == int{CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM});

constexpr unsigned kRuntimeVersion = 13000;  // what cudaRuntimeGetVersion reports

// The per-thread-stream forms: a default search looks for per-thread symbols.
unsigned long long per_thread_flags(unsigned long long flags) {
  return flags == cudaEnableDefault ? static_cast<unsigned long long>(cudaEnablePerThreadDefaultStream) : flags;
}

}  // namespace

extern "C" {

cudaError_t cudaGetDriverEntryPoint(const char* symbol, void** fn, unsigned long long flags,
                                    cudaDriverEntryPointQueryResult* status) {
  return entry_point(symbol, fn, kRuntimeVersion, flags, status);
}
cudaError_t cudaGetDriverEntryPointByVersion(const char* symbol, void** fn, unsigned int version,
                                             unsigned long long flags, cudaDriverEntryPointQueryResult* status) {
  return entry_point(symbol, fn, version, flags, status);
}
cudaError_t cudaGetDriverEntryPoint_ptsz(const char* symbol, void** fn, unsigned long long flags,
                                         cudaDriverEntryPointQueryResult* status) {
  return entry_point(symbol, fn, kRuntimeVersion, per_thread_flags(flags), status);
}
cudaError_t cudaGetDriverEntryPointByVersion_ptsz(const char* symbol, void** fn, unsigned int version,
                                                  unsigned long long flags,
                                                  cudaDriverEntryPointQueryResult* status) {
  return entry_point(symbol, fn, version, per_thread_flags(flags), status);
}

}  // extern "C"
