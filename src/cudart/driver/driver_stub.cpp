// libcuda.so.1 for `warpsim exec`: every entry point of NVIDIA's CUDA driver
// API, none of which warpsim implements. warpsim replaces the runtime API
// (libcudart.so.13) and runs the PTX a program embeds; code that talks to the
// driver itself (cuModuleLoad, cuLaunchKernel, ...) or a library that does
// (cuBLAS, cuFFT, ... call the driver through their own copy of the runtime,
// and carry their kernels as SASS for real GPUs) cannot run. Without this
// library such a program finds no driver and fails with an unexplained error
// code; with it, the first call prints which library called which entry point
// and why it cannot work, and every call returns CUDA_ERROR_NOT_SUPPORTED.
// The stubs take no parameters: the C calling convention lets a callee ignore
// its arguments, and no stub writes through a pointer argument.
#include <dlfcn.h>

#include <atomic>
#include <cstdio>
#include <cstring>

namespace {

constexpr int kCudaErrorNotSupported = 801;  // CUresult CUDA_ERROR_NOT_SUPPORTED

// The file name of the shared object (or executable) holding `address`.
const char* caller_of(const void* address) {
  Dl_info info{};
  if (dladdr(address, &info) == 0 || info.dli_fname == nullptr || *info.dli_fname == '\0') return "the program";
  const char* slash = std::strrchr(info.dli_fname, '/');
  return slash ? slash + 1 : info.dli_fname;
}

int driver_call(const char* name, const void* return_address) {
  static std::atomic<bool> told{false};
  if (!told.exchange(true)) {
    std::fprintf(stderr,
                 "warpsim: %s called %s, an entry point of the CUDA driver API (libcuda.so.1). warpsim emulates "
                 "the CUDA runtime API only (libcudart.so.13, with the kernels' PTX embedded by nvcc): a program "
                 "that calls the driver API itself (cuInit, cuModuleLoad, cuLaunchKernel, ...) cannot run, nor "
                 "can a library that does (cuBLAS, cuFFT, cuDNN, ... reach the driver through their own copy of "
                 "the runtime and ship SASS for real GPUs, not PTX for warpsim). To run such code, write the "
                 "kernels with the runtime API (<<<>>>, cudaLaunchKernel) and build them with "
                 "`-cudart shared -gencode arch=compute_XX,code=compute_XX` (docs/exec.md). Every driver call "
                 "returns CUDA_ERROR_NOT_SUPPORTED.\n",
                 caller_of(return_address), name);
  }
  return kCudaErrorNotSupported;
}

}  // namespace

#define WARPSIM_DRIVER_STUB(name) \
  extern "C" __attribute__((visibility("default"), noinline)) int name() { \
    return driver_call(#name, __builtin_return_address(0)); \
  }
#include "cudart/driver/driver_api.def"
