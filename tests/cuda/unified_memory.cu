// Unified memory: cudaMallocManaged arrays written by the host, updated by a
// kernel, read back by the host without copies; mapped page-locked memory
// (cudaHostAllocMapped + cudaHostGetDevicePointer) written by a kernel;
// __managed__ variables updated by a kernel and read directly by the host;
// memory from cudaMallocHost (mapped implicitly under unified addressing: the
// device pointer is the host pointer) and from malloc registered with
// cudaHostRegister (a device pointer of its own), written by kernels.
#include <cstdlib>
#include <vector>

#include "check.h"

__managed__ int hits = 5;
__managed__ float table[64];

__global__ void fill_table() {
  atomicAdd(&hits, 1);
  table[threadIdx.x] = threadIdx.x * 2.0f;
}

__global__ void scale_add(float* data, const float* bias, int n, float s) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] = data[i] * s + bias[i % 16];
}

__global__ void squares(unsigned* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = unsigned(i) * unsigned(i);
}

// cudaMallocHost without flags: kernels use the host pointer itself, and a
// cudaMemcpyDefault from it is a host-to-device copy.
long pinned_memory(int n) {
  long bad = 0;
  unsigned* host;
  CHECK(cudaMallocHost(&host, n * sizeof(unsigned)));
  void* dptr = nullptr;
  CHECK(cudaHostGetDevicePointer(&dptr, host, 0));
  if (dptr != host) ++bad;
  cudaPointerAttributes attr;
  CHECK(cudaPointerGetAttributes(&attr, host));
  if (attr.type != cudaMemoryTypeHost) ++bad;
  squares<<<(n + 255) / 256, 256>>>(host, n);
  CHECK_LAUNCH();
  unsigned* dev;
  CHECK(cudaMalloc(&dev, n * sizeof(unsigned)));
  CHECK(cudaMemcpy(dev, host, n * sizeof(unsigned), cudaMemcpyDefault));
  std::vector<unsigned> back(n);
  CHECK(cudaMemcpy(back.data(), dev, n * sizeof(unsigned), cudaMemcpyDefault));
  for (int i = 0; i < n; ++i)
    if (host[i] != unsigned(i) * unsigned(i) || back[i] != host[i]) ++bad;
  CHECK(cudaFree(dev));
  CHECK(cudaFreeHost(host));
  return bad;
}

// malloc'd memory registered from an offset that is not page aligned,
// spanning several 64 KB pages: a kernel writes it through the device
// pointer; the words just outside the registered range stay as they were.
long registered_memory() {
  long bad = 0;
  const int n = 70000, guard = 25;
  std::vector<unsigned> buffer(n + 2 * guard, 0xdeadbeefu);
  unsigned* host = buffer.data() + guard;
  CHECK(cudaHostRegister(host, n * sizeof(unsigned), cudaHostRegisterMapped));
  if (cudaHostRegister(host + 10, 4, 0) != cudaErrorHostMemoryAlreadyRegistered) ++bad;
  cudaGetLastError();  // (the expected error)
  unsigned* dptr = nullptr;
  CHECK(cudaHostGetDevicePointer(reinterpret_cast<void**>(&dptr), host + 5, 0));
  dptr -= 5;
  cudaPointerAttributes attr;
  CHECK(cudaPointerGetAttributes(&attr, host));
  if (attr.type != cudaMemoryTypeHost || attr.devicePointer != dptr || attr.hostPointer != host) ++bad;
  CHECK(cudaPointerGetAttributes(&attr, dptr + 7));
  if (attr.type != cudaMemoryTypeHost || attr.hostPointer != host + 7) ++bad;
  squares<<<(n + 255) / 256, 256>>>(dptr, n);
  CHECK_LAUNCH();
  for (int i = 0; i < n; ++i)
    if (host[i] != unsigned(i) * unsigned(i)) ++bad;
  for (int i = 0; i < guard; ++i)
    if (buffer[i] != 0xdeadbeefu || buffer[guard + n + i] != 0xdeadbeefu) ++bad;
  CHECK(cudaHostUnregister(host));
  if (cudaHostUnregister(host) != cudaErrorHostMemoryNotRegistered) ++bad;
  void* gone = nullptr;
  if (cudaHostGetDevicePointer(&gone, host, 0) != cudaErrorInvalidValue) ++bad;
  cudaGetLastError();
  return bad;
}

int main() {
  const int n = 5000;
  long bad = 0;
  float *data, *bias;
  CHECK(cudaMallocManaged(&data, n * sizeof(float)));
  CHECK(cudaMallocManaged(&bias, 16 * sizeof(float)));
  for (int i = 0; i < n; ++i) data[i] = float(i % 100);
  for (int i = 0; i < 16; ++i) bias[i] = float(i) * 0.5f;
  cudaMemLocation dev{};
  dev.type = cudaMemLocationTypeDevice;
  dev.id = 0;
  CHECK(cudaMemPrefetchAsync(data, n * sizeof(float), dev, 0, 0));
  cudaPointerAttributes attr;
  CHECK(cudaPointerGetAttributes(&attr, data));
  if (attr.type != cudaMemoryTypeManaged) ++bad;
  scale_add<<<(n + 127) / 128, 128>>>(data, bias, n, 3.0f);
  CHECK_LAUNCH();
  for (int i = 0; i < n; ++i)
    if (data[i] != float(i % 100) * 3.0f + float(i % 16) * 0.5f) ++bad;

  unsigned* host;
  CHECK(cudaHostAlloc(&host, n * sizeof(unsigned), cudaHostAllocMapped));
  unsigned* dptr;
  CHECK(cudaHostGetDevicePointer(reinterpret_cast<void**>(&dptr), host, 0));
  squares<<<(n + 255) / 256, 256>>>(dptr, n);
  CHECK_LAUNCH();
  for (int i = 0; i < n; ++i)
    if (host[i] != unsigned(i) * unsigned(i)) ++bad;
  CHECK(cudaFreeHost(host));

  bad += pinned_memory(n);
  bad += registered_memory();

  fill_table<<<1, 64>>>();
  CHECK_LAUNCH();
  if (hits != 5 + 64) ++bad;
  for (int i = 0; i < 64; ++i)
    if (table[i] != i * 2.0f) ++bad;
  CHECK(cudaFree(data));
  CHECK(cudaFree(bias));
  return verdict("unified_memory", bad);
}
