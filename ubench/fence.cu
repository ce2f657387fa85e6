// Memory fences: cycles per fence for one warp (one CTA of 32 threads), a
// dependent loop of N iterations against 2N (the difference cancels the
// loop's entry and exit). Each iteration does, in order:
// - fence_cta / fence_gpu / fence_sys_cycles: __threadfence_block(),
//   __threadfence(), __threadfence_system() with no memory access around it;
// - fence_gpu_after_store_cycles: a store to global memory, then
//   __threadfence() (the fence waits for the store to be performed);
// - store_loop_cycles: the same store alone (subtract it from the line above
//   for what the fence adds).
//   args: iters=N (default 64)
#include "ubench.h"

enum Kind { kCta, kGpu, kSys, kGpuAfterStore, kStoreOnly };

template <Kind K>
__global__ void fences(unsigned* data, long iters, long long* cycles) {
  unsigned* mine = data + threadIdx.x;
  long long t0 = ub::clock_now();
  for (long i = 0; i < iters; ++i) {
    if (K == kGpuAfterStore || K == kStoreOnly) *reinterpret_cast<volatile unsigned*>(mine) = static_cast<unsigned>(i);
    if (K == kCta) __threadfence_block();
    if (K == kGpu || K == kGpuAfterStore) __threadfence();
    if (K == kSys) __threadfence_system();
  }
  long long t1 = ub::clock_now();
  if (threadIdx.x == 0) *cycles = t1 - t0;
}

template <Kind K>
double per_iteration(unsigned* data, long long* dcycles, long iters) {
  long long c[2];
  for (int k = 0; k < 2; ++k) {
    fences<K><<<1, 32>>>(data, iters << k, dcycles);  // the first launch warms the code
    UB_LAUNCHED();
    fences<K><<<1, 32>>>(data, iters << k, dcycles);
    UB_LAUNCHED();
    UB_CHECK(cudaMemcpy(&c[k], dcycles, sizeof(long long), cudaMemcpyDeviceToHost));
  }
  return static_cast<double>(c[1] - c[0]) / static_cast<double>(iters);
}

int main(int argc, char** argv) {
  const long iters = ub::arg(argc, argv, "iters", 64);
  unsigned* data;
  long long* cycles;
  UB_CHECK(cudaMalloc(&data, 32 * sizeof(unsigned)));
  UB_CHECK(cudaMalloc(&cycles, sizeof(long long)));
  ub::emit("fence_cta_cycles", per_iteration<kCta>(data, cycles, iters));
  ub::emit("fence_gpu_cycles", per_iteration<kGpu>(data, cycles, iters));
  ub::emit("fence_sys_cycles", per_iteration<kSys>(data, cycles, iters));
  ub::emit("fence_gpu_after_store_cycles", per_iteration<kGpuAfterStore>(data, cycles, iters));
  ub::emit("store_loop_cycles", per_iteration<kStoreOnly>(data, cycles, iters));
  return 0;
}
