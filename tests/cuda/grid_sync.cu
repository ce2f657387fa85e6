// Grid-wide synchronisation (cooperative groups) through
// cudaLaunchCooperativeKernel and cudaLaunchKernelEx's cooperative attribute.
// Each phase reads what other CTAs wrote in the phase before, so a grid.sync()
// that let a CTA through early, or a CTA that never ran alongside the others,
// gives wrong sums (or hangs). The runtime's residency check is exercised too:
// the largest co-resident grid is accepted, one CTA more is refused.
#include <cooperative_groups.h>

#include <vector>

#include "check.h"

namespace cg = cooperative_groups;

constexpr int kThreads = 128;

// Phase 1: a[i] = i * 3 + 1. Phase 2: b[i] = a of the mirrored thread
// (another CTA) plus a of the next CTA's same thread. Phase 3: CTA r sums b
// over CTA (r + 1)'s slice into sums[r]. Phase 4: thread 0 of CTA 0 adds up
// every CTA's sum (written by other CTAs in phase 3).
__global__ void phases(int* a, int* b, int* sums, int* total, int* valid) {
  cg::grid_group grid = cg::this_grid();
  const unsigned n = grid.size();
  const unsigned i = grid.thread_rank();
  const unsigned ctas = gridDim.x;
  if (i == 0) *valid = grid.is_valid();
  a[i] = static_cast<int>(i) * 3 + 1;
  grid.sync();
  b[i] = a[n - 1 - i] + a[(i + blockDim.x) % n];
  grid.sync();
  if (threadIdx.x == 0) {
    unsigned from = (blockIdx.x + 1) % ctas * blockDim.x;
    int s = 0;
    for (unsigned k = 0; k < blockDim.x; ++k) s += b[from + k];
    sums[blockIdx.x] = s;
  }
  grid.sync();
  if (i == 0) {
    // Modulo 2^32: on 132 SMs (264 CTAs) the sum passes INT_MAX.
    unsigned t = 0;
    for (unsigned r = 0; r < ctas; ++r) t += static_cast<unsigned>(sums[r]);
    *total = static_cast<int>(t);
  }
}

// Each CTA counts itself in, then waits until every CTA has: completes only
// when all CTAs of the grid run at once.
__global__ void all_resident(int* count, int* seen) {
  if (threadIdx.x == 0) atomicAdd(count, 1);
  cg::this_grid().sync();
  if (threadIdx.x == 0) seen[blockIdx.x] = atomicAdd(count, 0);
}

long check_phases(int ctas, const std::vector<int>& b, const std::vector<int>& sums, int total) {
  const int n = ctas * kThreads;
  auto a = [](int i) { return i * 3 + 1; };
  long bad = 0;
  std::vector<int> want_b(n);
  for (int i = 0; i < n; ++i) want_b[i] = a(n - 1 - i) + a((i + kThreads) % n);
  for (int i = 0; i < n; ++i) bad += b[i] != want_b[i];
  unsigned want_total = 0;  // modulo 2^32, as the kernel adds
  for (int r = 0; r < ctas; ++r) {
    int s = 0;
    for (int k = 0; k < kThreads; ++k) s += want_b[(r + 1) % ctas * kThreads + k];
    bad += sums[r] != s;
    want_total += static_cast<unsigned>(s);
  }
  bad += static_cast<unsigned>(total) != want_total;
  return bad;
}

int main() {
  long bad = 0;
  int coop = 0, sms = 0, per_sm = 0;
  CHECK(cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, 0));
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, all_resident, kThreads, 0));
  if (coop != 1 || per_sm < 1) {
    std::printf("cooperative launch %d, %d CTAs per SM\n", coop, per_sm);
    return verdict("grid_sync", 1);
  }

  // A few CTAs per SM, several phases.
  const int ctas = 2 * sms;
  const int n = ctas * kThreads;
  int *a, *b, *sums, *total, *valid;
  CHECK(cudaMalloc(&a, n * sizeof(int)));
  CHECK(cudaMalloc(&b, n * sizeof(int)));
  CHECK(cudaMalloc(&sums, ctas * sizeof(int)));
  CHECK(cudaMalloc(&total, sizeof(int)));
  CHECK(cudaMalloc(&valid, sizeof(int)));
  void* args[] = {&a, &b, &sums, &total, &valid};
  CHECK(cudaLaunchCooperativeKernel((void*)phases, ctas, kThreads, args, 0, 0));
  CHECK_LAUNCH();
  std::vector<int> hb(n), hs(ctas);
  int ht = 0, hv = 0;
  CHECK(cudaMemcpy(hb.data(), b, n * sizeof(int), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(hs.data(), sums, ctas * sizeof(int), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(&ht, total, sizeof(int), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(&hv, valid, sizeof(int), cudaMemcpyDeviceToHost));
  bad += check_phases(ctas, hb, hs, ht) + (hv != 1);

  // The same through cudaLaunchKernelEx with the cooperative attribute, after
  // clearing the results (a second launch reuses the grid barrier).
  CHECK(cudaMemset(b, 0, n * sizeof(int)));
  CHECK(cudaMemset(total, 0, sizeof(int)));
  cudaLaunchAttribute attr{};
  attr.id = cudaLaunchAttributeCooperative;
  attr.val.cooperative = 1;
  cudaLaunchConfig_t config{};
  config.gridDim = dim3(ctas);
  config.blockDim = dim3(kThreads);
  config.attrs = &attr;
  config.numAttrs = 1;
  CHECK(cudaLaunchKernelEx(&config, phases, a, b, sums, total, valid));
  CHECK_LAUNCH();
  CHECK(cudaMemcpy(hb.data(), b, n * sizeof(int), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(&ht, total, sizeof(int), cudaMemcpyDeviceToHost));
  bad += check_phases(ctas, hb, hs, ht);

  // On a created stream the launch returns before the kernel runs (timed
  // mode queues it): its grid workspace must outlive the launch call.
  CHECK(cudaMemset(b, 0, n * sizeof(int)));
  CHECK(cudaMemset(total, 0, sizeof(int)));
  cudaStream_t stream;
  CHECK(cudaStreamCreate(&stream));
  CHECK(cudaLaunchCooperativeKernel((void*)phases, ctas, kThreads, args, 0, stream));
  CHECK_LAUNCH();
  CHECK(cudaStreamSynchronize(stream));
  CHECK(cudaMemcpy(hb.data(), b, n * sizeof(int), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(&ht, total, sizeof(int), cudaMemcpyDeviceToHost));
  bad += check_phases(ctas, hb, hs, ht);
  CHECK(cudaStreamDestroy(stream));

  // The largest grid the runtime allows runs with every CTA resident; one
  // CTA more is refused before anything runs, and the error is not sticky.
  const int most = per_sm * sms;
  int *count, *seen;
  CHECK(cudaMalloc(&count, sizeof(int)));
  CHECK(cudaMalloc(&seen, (most + 1) * sizeof(int)));
  CHECK(cudaMemset(count, 0, sizeof(int)));
  void* args2[] = {&count, &seen};
  CHECK(cudaLaunchCooperativeKernel((void*)all_resident, most, kThreads, args2, 0, 0));
  CHECK_LAUNCH();
  std::vector<int> hseen(most);
  CHECK(cudaMemcpy(hseen.data(), seen, most * sizeof(int), cudaMemcpyDeviceToHost));
  for (int r = 0; r < most; ++r) bad += hseen[r] < most;  // every CTA had arrived before any left
  cudaError_t e = cudaLaunchCooperativeKernel((void*)all_resident, most + 1, kThreads, args2, 0, 0);
  if (e != cudaErrorCooperativeLaunchTooLarge) {
    std::printf("grid of %d CTAs (%d per SM x %d SMs + 1): %s\n", most + 1, per_sm, sms, cudaGetErrorName(e));
    ++bad;
  }
  bad += cudaGetLastError() != cudaErrorCooperativeLaunchTooLarge;
  bad += cudaGetLastError() != cudaSuccess;
  std::printf("%d CTAs x %d threads, 3 grid barriers; largest cooperative grid %d (%d per SM)\n", ctas, kThreads,
              most, per_sm);
  return verdict("grid_sync", bad);
}
