// Unified memory: cudaMallocManaged arrays written by the host, updated by a
// kernel, read back by the host without copies; mapped page-locked memory
// (cudaHostAllocMapped + cudaHostGetDevicePointer) written by a kernel;
// __managed__ variables updated by a kernel and read directly by the host.
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

  fill_table<<<1, 64>>>();
  CHECK_LAUNCH();
  if (hits != 5 + 64) ++bad;
  for (int i = 0; i < 64; ++i)
    if (table[i] != i * 2.0f) ++bad;
  CHECK(cudaFree(data));
  CHECK(cudaFree(bias));
  return verdict("unified_memory", bad);
}
