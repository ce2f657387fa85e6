// libcuda.so.1: modules, functions, launches (through the runtime's bridge
// table, cudart/driver_bridge.h), error names, and cuGetProcAddress.
#include <dlfcn.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "cudart/driver/driver.h"

namespace {

const ws::cudart::bridge::Table* table() { return ws::driver::bridge(); }

// "PTX image 0x... (cuModuleLoadData from app)": how errors name an image.
std::string image_name(const char* entry, const void* image, const void* caller) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%p", image);
  return std::string("module image ") + buf + " (" + entry + " from " + ws::driver::caller_of(caller) + ")";
}

CUresult load_image(CUmodule* module, const void* image, const char* entry, const void* caller) {
  const auto* t = table();
  if (t == nullptr) return CUDA_ERROR_NOT_INITIALIZED;
  return t->module_load(module, image, 0, image_name(entry, image, caller).c_str());
}

CUresult load_file(CUmodule* module, const char* path, const char* entry) {
  const auto* t = table();
  if (t == nullptr) return CUDA_ERROR_NOT_INITIALIZED;
  if (module == nullptr || path == nullptr) return CUDA_ERROR_INVALID_VALUE;
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "warpsim: %s: cannot open %s\n", entry, path);
    return CUDA_ERROR_FILE_NOT_FOUND;
  }
  std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (bytes.empty()) return CUDA_ERROR_INVALID_IMAGE;
  bytes.push_back('\0');  // PTX text needs its terminator; a binary's length is in its header
  return t->module_load(module, bytes.data(), bytes.size(), path);
}

struct ErrorText {
  CUresult code;
  const char* name;
};
// {code, "CUDA_ERROR_..."} for every CUresult of the installed cuda.h.
constexpr ErrorText kErrorNames[] = {
#include "cuda_result_names.inc"
};

}  // namespace

extern "C" {

__attribute__((noinline)) CUresult cuModuleLoadData(CUmodule* module, const void* image) {
  return load_image(module, image, "cuModuleLoadData", __builtin_return_address(0));
}

// JIT options (optimisation level, log buffers, ...) do not apply: warpsim
// interprets the PTX; errors are printed on stderr instead of the log buffer.
__attribute__((noinline)) CUresult cuModuleLoadDataEx(CUmodule* module, const void* image, unsigned int,
                                                      CUjit_option*, void**) {
  return load_image(module, image, "cuModuleLoadDataEx", __builtin_return_address(0));
}

__attribute__((noinline)) CUresult cuModuleLoadFatBinary(CUmodule* module, const void* fatbin) {
  return load_image(module, fatbin, "cuModuleLoadFatBinary", __builtin_return_address(0));
}

// A file of PTX text, a fat binary (nvcc -fatbin) or a cubin (refused: SASS).
CUresult cuModuleLoad(CUmodule* module, const char* path) { return load_file(module, path, "cuModuleLoad"); }

CUresult cuModuleUnload(CUmodule module) {
  const auto* t = table();
  return t ? t->module_unload(module) : CUDA_ERROR_NOT_INITIALIZED;
}

CUresult cuModuleGetFunction(CUfunction* function, CUmodule module, const char* name) {
  const auto* t = table();
  return t ? t->module_get_function(function, module, name) : CUDA_ERROR_NOT_INITIALIZED;
}

CUresult cuModuleGetGlobal(CUdeviceptr* dptr, size_t* bytes, CUmodule module, const char* name) {
  const auto* t = table();
  return t ? t->module_get_global(dptr, bytes, module, name) : CUDA_ERROR_NOT_INITIALIZED;
}

CUresult cuLaunchKernel(CUfunction f, unsigned int gx, unsigned int gy, unsigned int gz, unsigned int bx,
                        unsigned int by, unsigned int bz, unsigned int shmem, CUstream stream, void** params,
                        void** extra) {
  const auto* t = table();
  if (t == nullptr) return CUDA_ERROR_NOT_INITIALIZED;
  const unsigned dims[6] = {gx, gy, gz, bx, by, bz};
  return t->launch(f, dims, shmem, stream, params, extra);
}

CUresult cuFuncGetAttribute(int* value, CUfunction_attribute attr, CUfunction f) {
  const auto* t = table();
  return t ? t->func_get_attribute(value, attr, f) : CUDA_ERROR_NOT_INITIALIZED;
}

CUresult cuFuncSetAttribute(CUfunction f, CUfunction_attribute attr, int value) {
  const auto* t = table();
  return t ? t->func_set_attribute(f, attr, value) : CUDA_ERROR_NOT_INITIALIZED;
}

// Libraries (CUDA 12's context-independent loading) are modules here, and
// their kernels are functions: a CUkernel may be launched as a CUfunction,
// as the driver allows. Library options (lazy loading, ...) do not apply.
__attribute__((noinline)) CUresult cuLibraryLoadData(CUlibrary* library, const void* code, CUjit_option*, void**,
                                                     unsigned int, CUlibraryOption*, void**, unsigned int) {
  return load_image(reinterpret_cast<CUmodule*>(library), code, "cuLibraryLoadData", __builtin_return_address(0));
}

CUresult cuLibraryLoadFromFile(CUlibrary* library, const char* path, CUjit_option*, void**, unsigned int,
                               CUlibraryOption*, void**, unsigned int) {
  return load_file(reinterpret_cast<CUmodule*>(library), path, "cuLibraryLoadFromFile");
}

CUresult cuLibraryUnload(CUlibrary library) { return cuModuleUnload(reinterpret_cast<CUmodule>(library)); }

CUresult cuLibraryGetModule(CUmodule* module, CUlibrary library) {
  if (module == nullptr || library == nullptr) return CUDA_ERROR_INVALID_VALUE;
  *module = reinterpret_cast<CUmodule>(library);
  return CUDA_SUCCESS;
}

CUresult cuLibraryGetKernel(CUkernel* kernel, CUlibrary library, const char* name) {
  return cuModuleGetFunction(reinterpret_cast<CUfunction*>(kernel), reinterpret_cast<CUmodule>(library), name);
}

CUresult cuLibraryGetGlobal(CUdeviceptr* dptr, size_t* bytes, CUlibrary library, const char* name) {
  return cuModuleGetGlobal(dptr, bytes, reinterpret_cast<CUmodule>(library), name);
}

CUresult cuKernelGetFunction(CUfunction* function, CUkernel kernel) {
  if (function == nullptr || kernel == nullptr) return CUDA_ERROR_INVALID_VALUE;
  *function = reinterpret_cast<CUfunction>(kernel);
  return CUDA_SUCCESS;
}

CUresult cuKernelGetAttribute(int* value, CUfunction_attribute attr, CUkernel kernel, CUdevice) {
  return cuFuncGetAttribute(value, attr, reinterpret_cast<CUfunction>(kernel));
}

CUresult cuKernelSetAttribute(CUfunction_attribute attr, int value, CUkernel kernel, CUdevice) {
  return cuFuncSetAttribute(reinterpret_cast<CUfunction>(kernel), attr, value);
}

CUresult cuGetErrorName(CUresult error, const char** str) {
  if (str == nullptr) return CUDA_ERROR_INVALID_VALUE;
  for (const ErrorText& e : kErrorNames)
    if (e.code == error) return *str = e.name, CUDA_SUCCESS;
  *str = nullptr;
  return CUDA_ERROR_INVALID_VALUE;
}

// The description is the name without its prefix, in words
// ("CUDA_ERROR_NOT_FOUND" -> "not found"): warpsim does not carry NVIDIA's texts.
CUresult cuGetErrorString(CUresult error, const char** str) {
  if (str == nullptr) return CUDA_ERROR_INVALID_VALUE;
  static const std::vector<std::string> texts = [] {
    std::vector<std::string> out;
    for (const ErrorText& e : kErrorNames) {
      std::string s = std::strncmp(e.name, "CUDA_ERROR_", 11) == 0 ? e.name + 11 : "no error";
      for (char& c : s) c = c == '_' ? ' ' : static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      out.push_back(s);
    }
    return out;
  }();
  for (size_t i = 0; i < std::size(kErrorNames); ++i)
    if (kErrorNames[i].code == error) return *str = texts[i].c_str(), CUDA_SUCCESS;
  *str = nullptr;
  return CUDA_ERROR_INVALID_VALUE;
}

}  // extern "C"
