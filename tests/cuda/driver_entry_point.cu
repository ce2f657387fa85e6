// A runtime-API program that fetches driver entry points by name
// (cudaGetDriverEntryPointByVersion, as libraries do for the driver calls the
// runtime lacks) and mixes both APIs on one device: memory allocated and set
// through the driver is used by a <<<>>> kernel and copied back by the runtime.
#include <cuda.h>

#include <cstdint>
#include <vector>

#include "check.h"

__global__ void add_index(unsigned* data, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] += static_cast<unsigned>(i);
}

using MemAlloc = CUresult (*)(CUdeviceptr*, size_t);
using MemsetD32 = CUresult (*)(CUdeviceptr, unsigned, size_t);
using MemFree = CUresult (*)(CUdeviceptr);

template <typename F>
F entry(const char* name) {
  void* fn = nullptr;
  cudaDriverEntryPointQueryResult status{};
  CHECK(cudaGetDriverEntryPointByVersion(name, &fn, 12000, cudaEnableDefault, &status));
  if (status != cudaDriverEntryPointSuccess || fn == nullptr) {
    std::printf("%s: not found (status %d)\nFAIL\n", name, static_cast<int>(status));
    std::exit(1);
  }
  return reinterpret_cast<F>(fn);
}

int main() {
  auto mem_alloc = entry<MemAlloc>("cuMemAlloc");
  auto memset_d32 = entry<MemsetD32>("cuMemsetD32");
  auto mem_free = entry<MemFree>("cuMemFree");
  void* missing = nullptr;
  cudaDriverEntryPointQueryResult status{};
  CHECK(cudaGetDriverEntryPointByVersion("cuNoSuchCall", &missing, 12000, cudaEnableDefault, &status));
  bool ok = missing == nullptr && status == cudaDriverEntryPointSymbolNotFound;

  const int n = 4096;
  CUdeviceptr d = 0;
  ok = ok && mem_alloc(&d, n * sizeof(unsigned)) == CUDA_SUCCESS;
  ok = ok && memset_d32(d, 1000u, n) == CUDA_SUCCESS;
  auto* data = reinterpret_cast<unsigned*>(static_cast<uintptr_t>(d));
  add_index<<<(n + 255) / 256, 256>>>(data, n);
  CHECK_LAUNCH();
  std::vector<unsigned> got(n);
  CHECK(cudaMemcpy(got.data(), data, n * sizeof(unsigned), cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; ++i) ok = ok && got[i] == 1000u + i;
  ok = ok && mem_free(d) == CUDA_SUCCESS;
  std::printf("%s\n", ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}
