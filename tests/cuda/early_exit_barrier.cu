// Threads of a block return before a __syncthreads() that the others reach.
// The PTX ISA counts exited threads as arrived at bar.sync, so the remaining
// threads pass the barrier (issue 17 item 4: the timing model deadlocked
// when the last warp to exit opened the barrier, and the replay of the trace
// it wrote did too). Two shapes: the first warps leave (after some work of
// their own), and all but the first 40 threads leave at once (a warp split
// between leaving and waiting; 31 whole warps leave).
#include "check.h"

// Threads below `keep_from` leave; the others exchange values through shared
// memory across the barrier.
__global__ void low_threads_leave(const int* in, int* out, int keep_from) {
  __shared__ int tile[1024];
  int t = threadIdx.x, base = blockIdx.x * blockDim.x;
  if (t < keep_from) {
    out[base + t] = -in[base + t];
    return;
  }
  tile[t] = in[base + t] * 3;
  __syncthreads();
  int kept = blockDim.x - keep_from;
  out[base + t] = tile[keep_from + (t - keep_from + 1) % kept] + 1;
}

// Threads from `keep_below` on leave at once. The others reach the barrier
// without waiting for memory, before the last of the leaving warps is gone.
__global__ void high_threads_leave(int* out, int keep_below) {
  __shared__ int tile[1024];
  int t = threadIdx.x, base = blockIdx.x * blockDim.x;
  if (t >= keep_below) return;
  tile[t] = t * 5 + blockIdx.x;
  __syncthreads();
  out[base + t] = tile[(t + 1) % keep_below];
}

long check_low(const int* in, const int* out, int blocks, int threads, int keep_from) {
  long wrong = 0;
  for (int b = 0; b < blocks; ++b)
    for (int t = 0; t < threads; ++t) {
      int i = b * threads + t, kept = threads - keep_from;
      int want = t < keep_from ? -in[i] : in[b * threads + keep_from + (t - keep_from + 1) % kept] * 3 + 1;
      wrong += out[i] != want;
    }
  return wrong;
}

long check_high(const int* out, int blocks, int threads, int keep_below) {
  long wrong = 0;
  for (int b = 0; b < blocks; ++b)
    for (int t = 0; t < threads; ++t) {
      int i = b * threads + t;
      int want = t < keep_below ? (t + 1) % keep_below * 5 + b : 7;  // 7: left as filled
      wrong += out[i] != want;
    }
  return wrong;
}

int main() {
  const int blocks = 4, threads = 1024, n = blocks * threads;
  int *in = nullptr, *out = nullptr;
  CHECK(cudaMallocManaged(&in, n * sizeof(int)));
  CHECK(cudaMallocManaged(&out, n * sizeof(int)));
  for (int i = 0; i < n; ++i) in[i] = i * 7 + 1;

  for (int i = 0; i < n; ++i) out[i] = 7;
  low_threads_leave<<<blocks, threads>>>(in, out, 96);
  CHECK_LAUNCH();
  long wrong = check_low(in, out, blocks, threads, 96);

  for (int i = 0; i < n; ++i) out[i] = 7;
  high_threads_leave<<<blocks, threads>>>(out, 40);
  CHECK_LAUNCH();
  wrong += check_high(out, blocks, threads, 40);
  return verdict("early_exit_barrier", wrong);
}
