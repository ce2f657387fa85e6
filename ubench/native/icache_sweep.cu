// Native only (scripts/hw-ground-truth.sh runs it): instruction-fetch cost
// against code size, to find the instruction caches' capacities and the
// rate at which an SM fetches code it does not hold. For each block size N
// (straight-line independent FFMAs, 16 B each in SASS), one warp runs the
// block three times in one launch:
//   pass 0  the kernel's first launch: code fresh from the module load,
//   pass 1, 2  the same SM again: the block is in the SM's caches if it fits.
// A second launch of two CTAs times pass 0 on the CTA whose SM did not run
// the first launch (its caches are cold, the code is in the L2).
// A third kernel of each listed size runs its first launch on every SM at once
// (two CTAs per SM): _burst_mean/_burst_max, the cold fetch of a kernel start.
// Prints icache_sweep_n<N>_<what>_cycles_per_inst. Check the SASS
// (cuobjdump -sass) before reading the figures: each block must be N FFMAs.
#include <algorithm>
#include <vector>

#include "../ubench.h"

constexpr int kChains = 8;

template <int N, int kTag = 0>
__global__ void block(float b, float c, long long* cycles, unsigned* sms, float* sink) {
  float x[kChains];
  for (int k = 0; k < kChains; ++k) x[k] = threadIdx.x;
#pragma unroll 1
  for (int pass = 0; pass < 3; ++pass) {
    long long t0 = ub::clock_now();
#pragma unroll
    for (int i = 0; i < N; ++i) asm volatile("fma.rn.f32 %0, %0, %1, %2;" : "+f"(x[i % kChains]) : "f"(b), "f"(c));
    float acc = 0;
    for (int k = 0; k < kChains; ++k) acc += x[k];
    sink[blockIdx.x * 32 + threadIdx.x] = acc;
    long long t1 = ub::clock_now();
    if (threadIdx.x == 0) cycles[3 * blockIdx.x + pass] = t1 - t0;
  }
  if (threadIdx.x == 0) sms[blockIdx.x] = ub::sm_id();
}

template <int N>
void sweep(long long* dcycles, unsigned* dsms, float* sink) {
  long long c[6];
  unsigned sm[2];
  char key[96];
  block<N><<<1, 32>>>(0.999f, 0.001f, dcycles, dsms, sink);
  UB_LAUNCHED();
  UB_CHECK(cudaMemcpy(c, dcycles, 3 * sizeof(long long), cudaMemcpyDeviceToHost));
  UB_CHECK(cudaMemcpy(sm, dsms, sizeof(unsigned), cudaMemcpyDeviceToHost));
  const char* what[3] = {"first", "again", "third"};
  for (int p = 0; p < 3; ++p) {
    std::snprintf(key, sizeof key, "icache_sweep_n%d_%s_cycles_per_inst", N, what[p]);
    ub::emit(key, static_cast<double>(c[p]) / N, 3);
  }
  const unsigned first_sm = sm[0];
  block<N><<<2, 32>>>(0.999f, 0.001f, dcycles, dsms, sink);
  UB_LAUNCHED();
  UB_CHECK(cudaMemcpy(c, dcycles, sizeof c, cudaMemcpyDeviceToHost));
  UB_CHECK(cudaMemcpy(sm, dsms, sizeof sm, cudaMemcpyDeviceToHost));
  for (int cta = 0; cta < 2; ++cta)
    if (sm[cta] != first_sm) {
      std::snprintf(key, sizeof key, "icache_sweep_n%d_l2_cycles_per_inst", N);
      ub::emit(key, static_cast<double>(c[3 * cta]) / N, 3);
      return;
    }
}

// The first launch of a fresh copy of the size-N kernel on `ctas` CTAs:
// the mean and largest per-instruction time of its cold pass.
template <int N>
void burst(int ctas) {
  long long* dcycles;
  unsigned* dsms;
  float* sink;
  UB_CHECK(cudaMalloc(&dcycles, 3 * ctas * sizeof(long long)));
  UB_CHECK(cudaMalloc(&dsms, ctas * sizeof(unsigned)));
  UB_CHECK(cudaMalloc(&sink, 32 * ctas * sizeof(float)));
  block<N, 1><<<ctas, 32>>>(0.999f, 0.001f, dcycles, dsms, sink);
  UB_LAUNCHED();
  std::vector<long long> c(3 * ctas);
  UB_CHECK(cudaMemcpy(c.data(), dcycles, c.size() * sizeof(long long), cudaMemcpyDeviceToHost));
  double sum = 0, most = 0;
  for (int i = 0; i < ctas; ++i) {
    sum += static_cast<double>(c[3 * i]);
    most = std::max(most, static_cast<double>(c[3 * i]));
  }
  char key[96];
  std::snprintf(key, sizeof key, "icache_sweep_n%d_burst_mean_cycles_per_inst", N);
  ub::emit(key, sum / ctas / N, 3);
  std::snprintf(key, sizeof key, "icache_sweep_n%d_burst_max_cycles_per_inst", N);
  ub::emit(key, most / N, 3);
}

int main() {
  long long* cycles;
  unsigned* sms;
  float* sink;
  UB_CHECK(cudaMalloc(&cycles, 6 * sizeof(long long)));
  UB_CHECK(cudaMalloc(&sms, 2 * sizeof(unsigned)));
  UB_CHECK(cudaMalloc(&sink, 64 * sizeof(float)));
  sweep<256>(cycles, sms, sink);
  sweep<512>(cycles, sms, sink);
  sweep<1024>(cycles, sms, sink);
  sweep<2048>(cycles, sms, sink);
  sweep<2560>(cycles, sms, sink);
  sweep<3072>(cycles, sms, sink);
  sweep<3584>(cycles, sms, sink);
  sweep<4096>(cycles, sms, sink);
  sweep<8192>(cycles, sms, sink);
  sweep<16384>(cycles, sms, sink);
  int sms_on_gpu = 0;
  UB_CHECK(cudaDeviceGetAttribute(&sms_on_gpu, cudaDevAttrMultiProcessorCount, 0));
  burst<1024>(2 * sms_on_gpu);
  burst<4096>(2 * sms_on_gpu);
  return 0;
}
