// Two small independent kernels (4 CTAs each, a long dependent FMA chain per
// thread) on two streams, then on one stream; a producer and a consumer
// ordered by cudaStreamWaitEvent; a kernel on the legacy stream followed by
// one on a blocking, then on a non-blocking created stream. Results are
// checked on the CPU. Under
// `warpsim exec --timing` the events time the phases: each kernel uses 4 of
// the GPU's SMs, so on two streams the pair takes about as long as one
// kernel, on one stream about twice as long.
#include <cstdlib>
#include <cstring>

#include "check.h"

constexpr int kCtas = 4, kThreads = 64, kIters = 6000;

__global__ void chain(float* out, float seed, int iters) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float x = seed + i * 1e-3f;
  for (int k = 0; k < iters; ++k) x = x * 0.999f + 0.5f;  // each step needs the last
  out[i] = x;
}

__global__ void consume(const float* in, float* out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = in[i] * 2.0f + 1.0f;
}

float chain_cpu(int i, float seed, int iters) {
  float x = seed + i * 1e-3f;
  for (int k = 0; k < iters; ++k) x = __builtin_fmaf(x, 0.999f, 0.5f);
  return x;
}

// Milliseconds from `start` to `stop`, both recorded on the legacy stream
// (which waits for the work of blocking streams before it).
float phase_ms(cudaStream_t first, cudaStream_t second, float* a, float* b, float seed) {
  cudaEvent_t start, stop;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));
  CHECK(cudaEventRecord(start, 0));
  chain<<<kCtas, kThreads, 0, first>>>(a, seed, kIters);
  CHECK(cudaGetLastError());
  if (second) chain<<<kCtas, kThreads, 0, second>>>(b, seed + 1.0f, kIters);
  CHECK(cudaGetLastError());
  CHECK(cudaEventRecord(stop, 0));
  return elapsed_ms_and_destroy(start, stop);
}

// Milliseconds from before kernel A on the legacy stream to after kernel B,
// issued next on `other`, both events on `other`. A blocking stream's B
// waits for A; a cudaStreamNonBlocking stream's B may run beside it.
float legacy_then_ms(cudaStream_t other, float* a, float* b, float seed) {
  cudaEvent_t start, stop;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));
  CHECK(cudaEventRecord(start, other));
  chain<<<kCtas, kThreads>>>(a, seed, kIters);
  CHECK(cudaGetLastError());
  chain<<<kCtas, kThreads, 0, other>>>(b, seed + 1.0f, kIters);
  CHECK(cudaGetLastError());
  CHECK(cudaEventRecord(stop, other));
  CHECK(cudaDeviceSynchronize());
  return elapsed_ms_and_destroy(start, stop);
}

long check_chain(const float* dev, float seed) {
  const int n = kCtas * kThreads;
  float host[n];
  CHECK(cudaMemcpy(host, dev, sizeof host, cudaMemcpyDeviceToHost));
  long bad = 0;
  for (int i = 0; i < n; ++i) bad += !close_enough(host[i], chain_cpu(i, seed, kIters), 1e-5);
  return bad;
}

int main() {
  const int n = kCtas * kThreads;
  cudaStream_t s1, s2;
  CHECK(cudaStreamCreate(&s1));
  CHECK(cudaStreamCreate(&s2));
  float *a, *b, *c;
  CHECK(cudaMalloc(&a, n * sizeof(float)));
  CHECK(cudaMalloc(&b, n * sizeof(float)));
  CHECK(cudaMalloc(&c, n * sizeof(float)));
  long bad = 0;
  float one = phase_ms(s1, nullptr, a, b, 0.25f);
  float two_streams = phase_ms(s1, s2, a, b, 0.5f);
  bad += check_chain(a, 0.5f) + check_chain(b, 1.5f);
  float one_stream = phase_ms(s1, s1, a, b, 0.75f);
  bad += check_chain(a, 0.75f) + check_chain(b, 1.75f);

  // Producer on s1, consumer on s2 after an event recorded behind the producer.
  cudaEvent_t produced;
  CHECK(cudaEventCreateWithFlags(&produced, cudaEventDisableTiming));
  chain<<<kCtas, kThreads, 0, s1>>>(a, 3.0f, kIters);
  CHECK(cudaEventRecord(produced, s1));
  CHECK(cudaStreamWaitEvent(s2, produced, 0));
  consume<<<kCtas, kThreads, 0, s2>>>(a, c);
  CHECK(cudaStreamSynchronize(s2));
  float host[n];
  CHECK(cudaMemcpy(host, c, sizeof host, cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; ++i) bad += !close_enough(host[i], chain_cpu(i, 3.0f, kIters) * 2.0f + 1.0f, 1e-5);

  // The legacy stream against a blocking and a non-blocking created stream.
  cudaStream_t nb;
  CHECK(cudaStreamCreateWithFlags(&nb, cudaStreamNonBlocking));
  float legacy_blocking = legacy_then_ms(s1, a, b, 5.0f);
  bad += check_chain(a, 5.0f) + check_chain(b, 6.0f);
  float legacy_nonblocking = legacy_then_ms(nb, a, b, 7.0f);
  bad += check_chain(a, 7.0f) + check_chain(b, 8.0f);
  CHECK(cudaStreamDestroy(nb));

  std::printf("one kernel %.4f ms, two streams %.4f ms, one stream %.4f ms\n", one, two_streams, one_stream);
  std::printf("legacy then blocking stream %.4f ms, legacy then non-blocking stream %.4f ms\n", legacy_blocking,
              legacy_nonblocking);
  const char* timed = std::getenv("WARPSIM_TIMING");
  if (timed && std::strcmp(timed, "1") == 0) {
    // Concurrent: about one kernel (plus a launch overhead); in sequence:
    // about two kernels (plus a launch overhead).
    bad += !(two_streams < 1.3f * one);
    bad += !(one_stream > 1.8f * one);
    bad += !(two_streams < 0.75f * one_stream);
    // The legacy stream's kernel and a non-blocking stream's overlap; a
    // blocking stream's waits for it.
    bad += !(legacy_blocking > 1.8f * one);
    bad += !(legacy_nonblocking < 1.3f * one);
  }
  CHECK(cudaEventDestroy(produced));
  CHECK(cudaStreamDestroy(s1));
  CHECK(cudaStreamDestroy(s2));
  CHECK(cudaFree(a));
  CHECK(cudaFree(b));
  CHECK(cudaFree(c));
  return verdict("concurrent_streams", bad);
}
