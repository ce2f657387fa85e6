// libcuda.so.1: the driver entry points warpsim does not implement. They
// exist so that every program and library linked against NVIDIA's driver
// loads; the first call prints which library called which entry point and
// why it cannot work, and every call returns CUDA_ERROR_NOT_SUPPORTED, which
// the program handles as it would on a machine without that feature.
// Libraries such as cuBLAS, cuFFT and cuDNN reach the driver through their
// own copy of the runtime and ship their kernels as SASS for real GPUs; they
// fail here or at cuModuleLoadData/cuLibraryLoadData, with the reason.
// The stubs take no parameters: the C calling convention lets a callee ignore
// its arguments, and no stub writes through a pointer argument.
#include <atomic>
#include <cstdio>

#include "cudart/driver/caller.h"

namespace {

constexpr int kCudaErrorNotSupported = 801;  // CUresult CUDA_ERROR_NOT_SUPPORTED

int driver_call(const char* name, const void* return_address) {
  static std::atomic<bool> told{false};
  if (!told.exchange(true)) {
    std::fprintf(stderr,
                 "warpsim: %s called %s, an entry point of the CUDA driver API (libcuda.so.1) that warpsim does "
                 "not implement. warpsim runs PTX: the runtime API (libcudart.so.13) with the kernels' PTX "
                 "embedded by nvcc, and the driver API's modules of PTX (cuModuleLoad*, cuLaunchKernel; "
                 "docs/exec.md lists the entry points). Libraries that ship only SASS for real GPUs (cuBLAS, "
                 "cuFFT, cuDNN, ...) cannot run; to run such code, write the kernels with the runtime API or "
                 "load their PTX through the driver API. Every unimplemented driver call returns "
                 "CUDA_ERROR_NOT_SUPPORTED.\n",
                 ws::driver::caller_of(return_address), name);
  }
  return kCudaErrorNotSupported;
}

}  // namespace

#define WARPSIM_DRIVER_STUB(name) \
  extern "C" __attribute__((visibility("default"), noinline)) int name() { \
    return driver_call(#name, __builtin_return_address(0)); \
  }
#define WARPSIM_DRIVER_IMPL(name)
#include "cudart/driver/driver_api.def"
