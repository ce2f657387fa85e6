// Native only (scripts/hw-ground-truth.sh runs it): under warpsim, %globaltimer
// is not the simulated time at the instruction. args: ctas=N, threads=T
// When each CTA starts, per SM, on the GPU's global timer: how a kernel's CTAs
// spread over time at its start (the burst of cold instruction fetches the
// model sees depends on it). Prints the spread of the first CTA start across
// SMs, and the rate of CTA starts in the first wave.
#include <algorithm>
#include <cstdio>
#include <vector>

#include "../ubench.h"

__global__ void stamp(unsigned long long* start, unsigned* sm, int spin) {
  if (threadIdx.x == 0) {
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    unsigned s;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(s));
    start[blockIdx.x] = t;
    sm[blockIdx.x] = s;
  }
  long long c0 = clock64();
  while (clock64() - c0 < spin) {
  }
}

int main(int argc, char** argv) {
  const long ctas = ub::arg(argc, argv, "ctas", 1056), threads = ub::arg(argc, argv, "threads", 128);
  unsigned long long* dstart;
  unsigned* dsm;
  cudaMalloc(&dstart, ctas * sizeof(unsigned long long));
  cudaMalloc(&dsm, ctas * sizeof(unsigned));
  stamp<<<ctas, threads>>>(dstart, dsm, 20000);  // warm the code
  cudaDeviceSynchronize();
  stamp<<<ctas, threads>>>(dstart, dsm, 20000);
  cudaDeviceSynchronize();
  std::vector<unsigned long long> start(ctas);
  std::vector<unsigned> sm(ctas);
  cudaMemcpy(start.data(), dstart, ctas * sizeof(unsigned long long), cudaMemcpyDeviceToHost);
  cudaMemcpy(sm.data(), dsm, ctas * sizeof(unsigned), cudaMemcpyDeviceToHost);
  unsigned long long t0 = *std::min_element(start.begin(), start.end());
  unsigned max_sm = *std::max_element(sm.begin(), sm.end());
  std::vector<unsigned long long> first(max_sm + 1, ~0ull);
  for (long i = 0; i < ctas; ++i) first[sm[i]] = std::min(first[sm[i]], start[i] - t0);
  std::vector<unsigned long long> f;
  for (auto x : first)
    if (x != ~0ull) f.push_back(x);
  std::sort(f.begin(), f.end());
  std::vector<unsigned long long> all;
  for (auto x : start) all.push_back(x - t0);
  std::sort(all.begin(), all.end());
  ub::emit("cta_dispatch_sms_used", static_cast<double>(f.size()));
  ub::emit("cta_dispatch_first_start_spread_ns", static_cast<double>(f.back()));
  ub::emit("cta_dispatch_first_start_median_ns", static_cast<double>(f[f.size() / 2]));
  long wave = std::min<long>(ctas, static_cast<long>(f.size()) * 8);
  ub::emit("cta_dispatch_first_wave_ns", static_cast<double>(all[wave - 1]));
  std::printf("# first CTA start per SM (ns after the first):");
  for (size_t i = 0; i < f.size(); i += std::max<size_t>(1, f.size() / 16)) std::printf(" %llu", f[i]);
  std::printf("\n# CTA starts (ns):");
  for (long i = 0; i < ctas; i += std::max<long>(1, ctas / 24)) std::printf(" %llu", all[i]);
  std::printf("\n");
  return 0;
}
