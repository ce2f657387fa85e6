// libcuda.so.1: cuGetProcAddress, how the runtime and newer programs find
// driver entry points by name. A name has one ABI symbol per version of its
// signature: cuCtxCreate (CUDA 2.0), cuCtxCreate_v2 (3.2), _v3 (11.4), _v4
// (12.5). cuda.h's cudaTypedefs.h lists the versions (PFN_cuCtxCreate_v3020,
// ...); the n-th version of a name is its symbol with suffix _v<n> (none for
// the first), and the per-thread-stream forms add _ptds/_ptsz to the newest.
// The symbol found is this library's own: an implemented entry point or a
// stub that says what the caller asked for.
#include <dlfcn.h>

#include <algorithm>
#include <string>
#include <vector>

#include "cudart/driver/driver.h"

namespace {

constexpr int kDriverVersion = 13000;  // what cuDriverGetVersion reports

enum class Form { Plain, Ptds, Ptsz };

struct ProcVersion {
  const char* name;
  int version;
  Form form;
};
// Every PFN_<name>_v<version>[_ptds|_ptsz] of the installed cudaTypedefs.h.
constexpr ProcVersion kVersions[] = {
#include "cuda_proc_versions.inc"
};

struct Resolved {
  std::string symbol;
  CUdriverProcAddressQueryResult status = CU_GET_PROC_ADDRESS_SUCCESS;
};

Resolved resolve(const std::string& name, int cuda_version, cuuint64_t flags) {
  std::vector<int> versions;
  Form per_thread = Form::Plain;
  for (const ProcVersion& v : kVersions) {
    if (name != v.name) continue;
    if (v.form == Form::Plain)
      versions.push_back(v.version);
    else
      per_thread = v.form;
  }
  if (versions.empty()) return {name};  // not in the typedefs: the name is the symbol
  std::sort(versions.begin(), versions.end());
  size_t n = 0;
  while (n < versions.size() && versions[n] <= cuda_version) ++n;
  if (n == 0) return {"", CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT};
  std::string symbol = n == 1 ? name : name + "_v" + std::to_string(n);
  if ((flags & CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM) && n == versions.size()) {
    if (per_thread == Form::Ptds) symbol += "_ptds";
    if (per_thread == Form::Ptsz) symbol += "_ptsz";
  }
  return {symbol};
}

// This library's handle, for dlsym among its own symbols only.
void* self() {
  static void* handle = [] {
    Dl_info info{};
    dladdr(reinterpret_cast<void*>(&resolve), &info);
    return dlopen(info.dli_fname, RTLD_LAZY | RTLD_NOLOAD);
  }();
  return handle;
}

}  // namespace

extern "C" {

CUresult cuGetProcAddress(const char* symbol, void** pfn, int cuda_version, cuuint64_t flags,
                          CUdriverProcAddressQueryResult* status) {
  if (symbol == nullptr || pfn == nullptr || cuda_version > kDriverVersion) return CUDA_ERROR_INVALID_VALUE;
  *pfn = nullptr;
  Resolved r = resolve(symbol, cuda_version, flags);
  if (r.status == CU_GET_PROC_ADDRESS_SUCCESS) {
    void* f = self() ? dlsym(self(), r.symbol.c_str()) : nullptr;
    if (f == nullptr) r.status = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
    *pfn = f;
  }
  if (status) *status = r.status;
  return CUDA_SUCCESS;  // with a null *pfn when nothing matched, as the driver does
}

// The CUDA 11.3 form, without the status: it reports a missing symbol as an error.
CUresult cuGetProcAddress_v1(const char* symbol, void** pfn, int cuda_version, cuuint64_t flags) __asm__(
    "cuGetProcAddress");
CUresult cuGetProcAddress_v1(const char* symbol, void** pfn, int cuda_version, cuuint64_t flags) {
  CUdriverProcAddressQueryResult status{};
  CUresult r = cuGetProcAddress(symbol, pfn, cuda_version, flags, &status);
  return r == CUDA_SUCCESS && status != CU_GET_PROC_ADDRESS_SUCCESS ? CUDA_ERROR_NOT_FOUND : r;
}

}  // extern "C"
