// Two streams, each with its own pinned buffers: async copy in, kernel,
// async copy out; events around the work give a non-negative elapsed time;
// queries report completion after synchronisation.
#include "check.h"

__global__ void scale_offset(float* v, int n, float scale, float offset) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) v[i] = v[i] * scale + offset;
}

int main() {
  const int n = 2048, streams = 2;
  cudaStream_t s[streams];
  float *host[streams], *dev[streams];
  for (int k = 0; k < streams; ++k) {
    CHECK(cudaStreamCreateWithFlags(&s[k], cudaStreamNonBlocking));
    CHECK(cudaMallocHost(&host[k], n * sizeof(float)));
    CHECK(cudaMalloc(&dev[k], n * sizeof(float)));
    for (int i = 0; i < n; ++i) host[k][i] = static_cast<float>(i + k * 1000);
  }
  cudaEvent_t start, stop;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));
  CHECK(cudaEventRecord(start, 0));
  for (int k = 0; k < streams; ++k) {
    CHECK(cudaMemcpyAsync(dev[k], host[k], n * sizeof(float), cudaMemcpyHostToDevice, s[k]));
    scale_offset<<<(n + 255) / 256, 256, 0, s[k]>>>(dev[k], n, k + 2.0f, -1.0f);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpyAsync(host[k], dev[k], n * sizeof(float), cudaMemcpyDeviceToHost, s[k]));
  }
  CHECK(cudaEventRecord(stop, 0));
  for (int k = 0; k < streams; ++k) CHECK(cudaStreamSynchronize(s[k]));
  CHECK(cudaEventSynchronize(stop));
  long bad = 0;
  float ms = -1.0f;
  CHECK(cudaEventElapsedTime(&ms, start, stop));
  bad += !(ms >= 0.0f);
  bad += cudaEventQuery(stop) != cudaSuccess;
  for (int k = 0; k < streams; ++k) bad += cudaStreamQuery(s[k]) != cudaSuccess;
  for (int k = 0; k < streams; ++k)
    for (int i = 0; i < n; ++i) bad += host[k][i] != static_cast<float>(i + k * 1000) * (k + 2.0f) - 1.0f;
  for (int k = 0; k < streams; ++k) {
    CHECK(cudaStreamDestroy(s[k]));
    CHECK(cudaFreeHost(host[k]));
    CHECK(cudaFree(dev[k]));
  }
  CHECK(cudaEventDestroy(start));
  CHECK(cudaEventDestroy(stop));
  return verdict("streams_events", bad);
}
