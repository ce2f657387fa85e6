// DRAM bandwidth of a copy (y[i] = x[i], 128-bit loads and stores; 2 CTAs
// of 1024 threads per SM, four loads in flight per thread), in the
// steady state a loop of copies reaches: every timed launch follows an
// untimed launch of the same copy, so the L2 holds the dirty lines that launch
// left, and the timed one pays their write-back as a kernel in a loop (or a
// profiler's replay pass without cache control) does. Bytes are read plus
// written; the figure comes from a copy of `mb` and one of 2 x `mb` (event
// time difference), so launch costs drop out. A copy's footprint (x and y)
// of at least twice the L2 keeps its reads missing there: a streaming launch
// finds none of its first lines left by the previous one.
//   args: mb=N (MiB of x in the short copy, default the L2 size, at least 4)
// Key: dram_copy_bandwidth_gbps.
#include "ubench.h"

__global__ void copy128(const uint4* __restrict__ x, uint4* __restrict__ y, size_t n) {
  const size_t step = size_t{gridDim.x} * blockDim.x;
#pragma unroll 4
  for (size_t i = size_t{blockIdx.x} * blockDim.x + threadIdx.x; i < n; i += step) y[i] = x[i];
}

int main(int argc, char** argv) {
  const int sms = ub::props().multiProcessorCount;
  const size_t l2 = std::max(ub::props().l2CacheSize, 1 << 20);
  const size_t mb = static_cast<size_t>(ub::arg(argc, argv, "mb", std::max<size_t>(l2 >> 20, 4)));
  const size_t bytes = mb << 20;
  uint4 *x, *y;
  UB_CHECK(cudaMalloc(&x, 2 * bytes));
  UB_CHECK(cudaMalloc(&y, 2 * bytes));
  UB_CHECK(cudaMemset(x, 1, 2 * bytes));
  ub::EventTimer timer;
  float ms[2];
  for (int k = 0; k < 2; ++k) {
    const size_t n = (bytes << k) / sizeof(uint4);
    copy128<<<2 * sms, 1024>>>(x, y, n);  // the untimed launch: code, and the L2 state it leaves
    UB_LAUNCHED();
    timer.begin();
    copy128<<<2 * sms, 1024>>>(x, y, n);
    ms[k] = timer.end_ms();
    UB_LAUNCHED();
  }
  ub::emit("dram_copy_bandwidth_gbps", 2.0 * static_cast<double>(bytes) / ((ms[1] - ms[0]) * 1e6));
  UB_CHECK(cudaFree(x));
  UB_CHECK(cudaFree(y));
  return 0;
}
