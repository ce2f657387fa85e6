// Many short kernels, launched the way dynamic-programming benchmarks (NW,
// LUD) launch them: one step per launch, queued back to back with no host
// synchronisation in between, ping-ponging two buffers; then a second round
// with cudaDeviceSynchronize after every launch. Under `warpsim exec --timing`
// the queued launches overlap their launch work with the kernel before them
// and the code stays cached across launches (docs/stats.md, launch gaps).
#include <vector>

#include "check.h"

__global__ void step(const float* in, float* out, int n, int d) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float left = i > 0 ? in[i - 1] : 0.0f;
  out[i] = 0.5f * in[i] + 0.25f * left + float(d);
}

void host_step(const std::vector<float>& in, std::vector<float>& out, int d) {
  for (size_t i = 0; i < in.size(); ++i) out[i] = 0.5f * in[i] + 0.25f * (i > 0 ? in[i - 1] : 0.0f) + float(d);
}

int main() {
  const int n = 4096, block = 256, launches = 24;
  std::vector<float> h(n), ref(n), tmp(n);
  for (int i = 0; i < n; ++i) h[i] = ref[i] = float(i % 17);
  float *a, *b;
  CHECK(cudaMalloc(&a, n * sizeof(float)));
  CHECK(cudaMalloc(&b, n * sizeof(float)));
  CHECK(cudaMemcpy(a, h.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  for (int round = 0; round < 2; ++round) {
    for (int d = 0; d < launches; ++d) {
      step<<<n / block, block>>>(a, b, n, d);
      CHECK(cudaGetLastError());
      if (round == 1) CHECK(cudaDeviceSynchronize());
      float* t = a;
      a = b;
      b = t;
      host_step(ref, tmp, d);
      ref.swap(tmp);
    }
  }
  CHECK(cudaMemcpy(h.data(), a, n * sizeof(float), cudaMemcpyDeviceToHost));
  long bad = 0;
  for (int i = 0; i < n; ++i) bad += !close_enough(h[i], ref[i], 1e-5, 1e-4);
  CHECK(cudaFree(a));
  CHECK(cudaFree(b));
  return verdict("many_launches", bad);
}
