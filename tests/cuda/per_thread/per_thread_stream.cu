// Built with nvcc --default-stream per-thread: a launch without a stream
// goes to cudaLaunchKernel_ptsz with a null stream, which is then the
// per-thread default stream, a regular (blocking) stream. Kernel A on it
// and kernel B on a created blocking stream may run at the same time; with
// the null stream read as the legacy stream B would wait for A. Kernel C on
// the legacy stream (cudaStreamLegacy) waits for both. Results are checked
// on the CPU; under `warpsim exec --timing` the events time the pair.
#include <cstdlib>
#include <cstring>

#include "../check.h"

constexpr int kCtas = 4, kThreads = 64, kIters = 6000, kN = kCtas * kThreads;

__global__ void chain(float* out, float seed, int iters) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float x = seed + i * 1e-3f;
  for (int k = 0; k < iters; ++k) x = x * 0.999f + 0.5f;
  out[i] = x;
}

__global__ void sum(const float* a, const float* b, float* out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = a[i] + b[i];
}

float chain_cpu(int i, float seed) {
  float x = seed + i * 1e-3f;
  for (int k = 0; k < kIters; ++k) x = __builtin_fmaf(x, 0.999f, 0.5f);
  return x;
}

// Milliseconds of A (per-thread default stream) and, if `with_b`, B on `s`.
float pair_ms(cudaStream_t s, bool with_b, float* a, float* b) {
  cudaEvent_t start, stop;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));
  CHECK(cudaEventRecord(start, cudaStreamLegacy));
  chain<<<kCtas, kThreads>>>(a, 0.25f, kIters);
  CHECK(cudaGetLastError());
  if (with_b) chain<<<kCtas, kThreads, 0, s>>>(b, 1.25f, kIters);
  CHECK(cudaGetLastError());
  CHECK(cudaEventRecord(stop, cudaStreamLegacy));  // waits for both (blocking streams)
  return elapsed_ms_and_destroy(start, stop);
}

int main() {
  cudaStream_t s;
  CHECK(cudaStreamCreate(&s));
  float *a, *b, *c;
  CHECK(cudaMalloc(&a, kN * sizeof(float)));
  CHECK(cudaMalloc(&b, kN * sizeof(float)));
  CHECK(cudaMalloc(&c, kN * sizeof(float)));
  float one = pair_ms(s, false, a, b);
  float two = pair_ms(s, true, a, b);
  sum<<<kCtas, kThreads, 0, cudaStreamLegacy>>>(a, b, c);
  CHECK(cudaGetLastError());
  float host[kN];
  CHECK(cudaMemcpy(host, c, sizeof host, cudaMemcpyDeviceToHost));
  long bad = 0;
  for (int i = 0; i < kN; ++i) bad += !close_enough(host[i], chain_cpu(i, 0.25f) + chain_cpu(i, 1.25f), 1e-5);
  std::printf("per-thread stream alone %.4f ms, with a created stream %.4f ms\n", one, two);
  const char* timed = std::getenv("WARPSIM_TIMING");
  if (timed && std::strcmp(timed, "1") == 0) bad += !(two < 1.3f * one);  // they overlap
  CHECK(cudaStreamDestroy(s));
  return verdict("per_thread_stream", bad);
}
