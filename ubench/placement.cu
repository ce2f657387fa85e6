// Which SM each CTA of a grid runs on (%smid), for grids whose CTAs are all
// resident at once: each CTA records its SM and then holds its place for
// `hold` cycles, so that no CTA finishes before the last one is placed.
// Kernels that share data between CTAs (a GEMM's CTAs on one column strip)
// move less data from the L2 when the GPU puts such CTAs on one SM, so the
// rule matters to the L1's traffic.
//
// Keys, per grid shape (`gemm`: 256 CTAs x 256 threads; `2x_sms`: twice as
// many CTAs as SMs x 128 threads): the smallest k > 0 for which CTA k
// shares CTA 0's SM (`..._first_repeat_ctas`), and how many CTAs CTA 0's
// SM holds (`..._ctas_on_first_sm`). A `# placement` note lists the whole
// map. In the simulator %smid is the CTA's linear index modulo the SM count
// (the functional emulator's value, not the timing model's dispatch).
#include "ubench.h"

__global__ void where(unsigned* sm_of, long hold) {
  if (threadIdx.x == 0) {
    unsigned sm;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
    sm_of[blockIdx.x] = sm;
  }
  long long t0 = clock64();
  while (clock64() - t0 < hold) {
  }
}

void shape(const char* label, int ctas, int threads, long hold) {
  unsigned* sm_of;
  UB_CHECK(cudaMalloc(&sm_of, sizeof(unsigned) * ctas));
  where<<<ctas, threads>>>(sm_of, hold);
  UB_LAUNCHED();
  std::vector<unsigned> host(ctas);
  UB_CHECK(cudaMemcpy(host.data(), sm_of, sizeof(unsigned) * ctas, cudaMemcpyDeviceToHost));
  UB_CHECK(cudaFree(sm_of));
  int first_repeat = 0, on_first = 0;
  for (int k = 0; k < ctas; ++k) {
    if (host[k] != host[0]) continue;
    ++on_first;
    if (k > 0 && first_repeat == 0) first_repeat = k;
  }
  std::string name = std::string("placement_") + label;
  std::string map = "placement " + std::to_string(ctas) + "x" + std::to_string(threads) + ":";
  for (int k = 0; k < ctas; ++k) map += " " + std::to_string(host[k]);
  ub::note(map.c_str());
  ub::emit((name + "_first_repeat_ctas").c_str(), first_repeat);
  ub::emit((name + "_ctas_on_first_sm").c_str(), on_first);
}

int main(int argc, char** argv) {
  const long hold = ub::arg(argc, argv, "hold", 20000);
  // A GEMM's grid (8 x 32 CTAs of 32 x 8 threads, suite/gemm) and one of
  // twice as many smaller CTAs as SMs.
  shape("gemm", 256, 256, hold);
  shape("2x_sms", 2 * ub::props().multiProcessorCount, 128, hold);
  return 0;
}
