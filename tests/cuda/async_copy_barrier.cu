// libcu++'s asynchronous copies and barriers, which nvcc builds from
// mbarrier (init, arrive, test_wait/try_wait, inval) and cp.async with
// cp.async.mbarrier.arrive: a two-stage cuda::pipeline producer/consumer
// loop, a cuda::barrier reused over several phases, and memcpy_async
// completed through a cuda::barrier. Every result is recomputed on the host.
#pragma nv_diag_suppress static_var_with_dynamic_init
#include <cooperative_groups.h>
#include <cuda/barrier>
#include <cuda/pipeline>

#include <vector>

#include "check.h"

namespace cg = cooperative_groups;

constexpr int kThreads = 128, kStages = 2, kChunks = 8, kPhases = 3;

// Each CTA streams kChunks chunks of its slice through a two-stage pipeline;
// thread t adds up element (t + 1) % kThreads of every chunk.
__global__ void pipelined_sum(const float* in, float* out) {
  __shared__ float buf[kStages][kThreads];
  __shared__ cuda::pipeline_shared_state<cuda::thread_scope_block, kStages> state;
  auto block = cg::this_thread_block();
  auto pipe = cuda::make_pipeline(block, &state);
  const float* slice = in + blockIdx.x * kChunks * kThreads;
  float acc = 0;
  for (int c = 0, fetch = 0; c < kChunks; ++c) {
    for (; fetch < kChunks && fetch < c + kStages; ++fetch) {
      pipe.producer_acquire();
      cuda::memcpy_async(block, buf[fetch % kStages], slice + fetch * kThreads, sizeof(float) * kThreads, pipe);
      pipe.producer_commit();
    }
    pipe.consumer_wait();
    acc += buf[c % kStages][(threadIdx.x + 1) % kThreads];
    pipe.consumer_release();
  }
  out[blockIdx.x * kThreads + threadIdx.x] = acc;
}

// A block barrier over kPhases phases (each thread reads a neighbour's write
// of the same phase), then a memcpy_async whose completion the barrier tracks.
__global__ void barrier_phases(const int* in, int* out) {
  __shared__ cuda::barrier<cuda::thread_scope_block> bar;
  __shared__ int s[kThreads], t[kThreads];
  if (threadIdx.x == 0) init(&bar, blockDim.x);
  __syncthreads();
  for (int ph = 0; ph < kPhases; ++ph) {
    s[threadIdx.x] = in[threadIdx.x] * (ph + 1);
    bar.arrive_and_wait();
    out[ph * kThreads + threadIdx.x] = s[(threadIdx.x + 5) % kThreads];
    bar.arrive_and_wait();
  }
  cuda::memcpy_async(cg::this_thread_block(), t, in, sizeof(int) * kThreads, bar);
  bar.arrive_and_wait();
  out[kPhases * kThreads + threadIdx.x] = t[kThreads - 1 - threadIdx.x];
}

int main() {
  const int ctas = 4;
  std::vector<float> hin(ctas * kChunks * kThreads);
  for (size_t i = 0; i < hin.size(); ++i) hin[i] = static_cast<float>(i % 7) + 0.25f * static_cast<float>(i % 3);
  std::vector<int> iin(kThreads);
  for (int i = 0; i < kThreads; ++i) iin[i] = i * 3 - 50;
  float *din, *dout;
  int *diin, *diout;
  CHECK(cudaMalloc(&din, hin.size() * sizeof(float)));
  CHECK(cudaMalloc(&dout, ctas * kThreads * sizeof(float)));
  CHECK(cudaMalloc(&diin, kThreads * sizeof(int)));
  CHECK(cudaMalloc(&diout, (kPhases + 1) * kThreads * sizeof(int)));
  CHECK(cudaMemcpy(din, hin.data(), hin.size() * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(diin, iin.data(), kThreads * sizeof(int), cudaMemcpyHostToDevice));
  pipelined_sum<<<ctas, kThreads>>>(din, dout);
  CHECK_LAUNCH();
  barrier_phases<<<1, kThreads>>>(diin, diout);
  CHECK_LAUNCH();
  std::vector<float> out(ctas * kThreads);
  std::vector<int> iout((kPhases + 1) * kThreads);
  CHECK(cudaMemcpy(out.data(), dout, out.size() * sizeof(float), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(iout.data(), diout, iout.size() * sizeof(int), cudaMemcpyDeviceToHost));
  long bad = 0;
  for (int b = 0; b < ctas; ++b)
    for (int t = 0; t < kThreads; ++t) {
      float want = 0;  // same order of additions as the kernel: exact
      for (int c = 0; c < kChunks; ++c) want += hin[(b * kChunks + c) * kThreads + (t + 1) % kThreads];
      bad += out[b * kThreads + t] != want;
    }
  for (int ph = 0; ph < kPhases; ++ph)
    for (int t = 0; t < kThreads; ++t) bad += iout[ph * kThreads + t] != iin[(t + 5) % kThreads] * (ph + 1);
  for (int t = 0; t < kThreads; ++t) bad += iout[kPhases * kThreads + t] != iin[kThreads - 1 - t];
  return verdict("async_copy_barrier", bad);
}
