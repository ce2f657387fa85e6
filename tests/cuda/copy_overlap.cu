// Copies on the copy engines (docs/exec.md, "Copy engines"): asynchronous
// copies of page-locked memory run beside kernels of other streams, in
// order with their own stream's work. Under `warpsim exec --timing` events
// time each phase against the preset's figures (QV100: 2 engines, one per
// direction, 12 GB/s per direction, 2 us per copy), reasoned from sizes:
//   a copy of kBytes = 384 KiB takes 2 us + 393,216 B / 12 GB/s = 34.8 us;
//   the kernel (4 CTAs of dependent FMA chains) takes about 30 us;
//   - copy on s1 + kernel on s2: about the longer of the two (not the sum);
//   - copy then kernel on one stream: the sum;
//   - two uploads (one engine): twice a copy; an upload and a download (two
//     engines): one copy.
// A copy from pageable memory (malloc) makes the host wait for it, as CUDA
// may; a synchronous cudaMemcpy waits for earlier work. Every result is
// checked on the CPU, functional and timed.
#include <cstdlib>
#include <cstring>

#include "check.h"

constexpr int kCtas = 4, kThreads = 64, kIters = 6000;
constexpr size_t kBytes = 384 << 10, kFloats = kBytes / sizeof(float);

__global__ void chain(float* out, float seed, int iters) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float x = seed + i * 1e-3f;
  for (int k = 0; k < iters; ++k) x = x * 0.999f + 0.5f;
  out[i] = x;
}

__global__ void scale(float* data, size_t n, float by) {
  for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) data[i] *= by;
}

struct Buffers {
  float *up_host, *down_host, *dev_a, *dev_b, *chain_out;
};

// Milliseconds of what `work` queues, between events on the legacy stream
// (which waits for the blocking streams' work before it).
template <typename F>
float timed_ms(F work) {
  cudaEvent_t start, stop;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));
  CHECK(cudaEventRecord(start, 0));
  work();
  CHECK(cudaEventRecord(stop, 0));
  return elapsed_ms_and_destroy(start, stop);
}

void launch_chain(const Buffers& b, cudaStream_t s) {
  chain<<<kCtas, kThreads, 0, s>>>(b.chain_out, 0.5f, kIters);
  CHECK(cudaGetLastError());
}

// Upload, scale by 3 on the same stream, download: the data goes through
// the stream's order (copy engine, SMs, copy engine).
long round_trip(const Buffers& b, cudaStream_t s, float base) {
  for (size_t i = 0; i < kFloats; ++i) b.up_host[i] = base + float(i % 1000);
  CHECK(cudaMemcpyAsync(b.dev_a, b.up_host, kBytes, cudaMemcpyHostToDevice, s));
  scale<<<64, 256, 0, s>>>(b.dev_a, kFloats, 3.0f);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpyAsync(b.down_host, b.dev_a, kBytes, cudaMemcpyDeviceToHost, s));
  CHECK(cudaStreamSynchronize(s));
  long bad = 0;
  for (size_t i = 0; i < kFloats; ++i) bad += b.down_host[i] != 3.0f * (base + float(i % 1000));
  return bad;
}

// A pageable host buffer: cudaMemcpyAsync returns once the copy is done.
long pageable(const Buffers& b, cudaStream_t s) {
  float* host = static_cast<float*>(std::malloc(kBytes));
  for (size_t i = 0; i < kFloats; ++i) host[i] = float(i);
  CHECK(cudaMemcpyAsync(b.dev_b, host, kBytes, cudaMemcpyHostToDevice, s));
  std::memset(host, 0, kBytes);  // allowed: the copy has read it
  CHECK(cudaMemcpyAsync(host, b.dev_b, kBytes, cudaMemcpyDeviceToHost, s));
  long bad = 0;
  for (size_t i = 0; i < kFloats; ++i) bad += host[i] != float(i);  // read without a synchronisation
  std::free(host);
  return bad;
}

int main() {
  cudaStream_t s1, s2;
  CHECK(cudaStreamCreate(&s1));
  CHECK(cudaStreamCreate(&s2));
  Buffers b;
  CHECK(cudaMallocHost(&b.up_host, kBytes));
  CHECK(cudaMallocHost(&b.down_host, kBytes));
  CHECK(cudaMalloc(&b.dev_a, kBytes));
  CHECK(cudaMalloc(&b.dev_b, kBytes));
  CHECK(cudaMalloc(&b.chain_out, kCtas * kThreads * sizeof(float)));
  std::memset(b.up_host, 0, kBytes);
  auto up = [&](float* dev, cudaStream_t s) {
    CHECK(cudaMemcpyAsync(dev, b.up_host, kBytes, cudaMemcpyHostToDevice, s));
  };
  auto down = [&](float* dev, cudaStream_t s) {
    CHECK(cudaMemcpyAsync(b.down_host, dev, kBytes, cudaMemcpyDeviceToHost, s));
  };
  float copy = timed_ms([&] { up(b.dev_a, s1); });
  float kernel = timed_ms([&] { launch_chain(b, s2); });
  float beside = timed_ms([&] { up(b.dev_a, s1); launch_chain(b, s2); });
  float in_order = timed_ms([&] { up(b.dev_a, s1); launch_chain(b, s1); });
  float two_up = timed_ms([&] { up(b.dev_a, s1); up(b.dev_b, s2); });
  float up_down = timed_ms([&] { up(b.dev_a, s1); down(b.dev_b, s2); });
  long bad = round_trip(b, s1, 1.0f) + round_trip(b, s2, 7.0f) + pageable(b, s1);

  std::printf("copy %.4f ms, kernel %.4f ms, copy beside kernel %.4f ms, copy then kernel %.4f ms\n", copy, kernel,
              beside, in_order);
  std::printf("two uploads %.4f ms, upload and download %.4f ms\n", two_up, up_down);
  // The relations hold for the detailed model's copy engines (the abstract
  // model has none: its copies wait for everything, docs/exec.md).
  const char* timed = std::getenv("WARPSIM_TIMING");
  const char* sets = std::getenv("WARPSIM_SET");
  bool engines = !sets || !std::strstr(sets, "gpu.model=abstract");
  if (timed && std::strcmp(timed, "1") == 0 && engines) {
    const char* gpu = std::getenv("WARPSIM_GPU");
    if (!gpu || std::strcmp(gpu, "qv100") == 0) bad += !(copy > 0.0340f && copy < 0.0360f);  // 34.8 us
    bad += !(beside < 0.8f * (copy + kernel));             // overlapped: about the longer
    bad += !(beside >= 0.99f * copy);
    // In order: the sum, less the launch latency the kernel alone paid after
    // a host synchronisation (5,000 cycles) that behind the copy is a launch
    // overhead (1,000 cycles): 3.5 us.
    bad += !(in_order > 0.9f * (copy + kernel));
    bad += !(two_up >= 1.99f * copy && two_up < 2.1f * copy);  // one engine: in turn
    int engines = 0;  // asyncEngineCount: copy.engines
    CHECK(cudaDeviceGetAttribute(&engines, cudaDevAttrAsyncEngineCount, 0));
    if (engines >= 2) bad += !(up_down < 1.05f * copy);    // two engines: together
    else bad += !(up_down >= 1.99f * copy);                // one engine (gtx480, titan): in turn
  }
  CHECK(cudaFreeHost(b.up_host));
  CHECK(cudaFreeHost(b.down_host));
  CHECK(cudaFree(b.dev_a));
  CHECK(cudaFree(b.dev_b));
  CHECK(cudaFree(b.chain_out));
  CHECK(cudaStreamDestroy(s1));
  CHECK(cudaStreamDestroy(s2));
  return verdict("copy_overlap", bad);
}
