// Cooperative groups over partial warps: a thread_block_tile<16> reduce and
// exclusive scan (redux.sync / shfl with per-half member masks), __reduce_add_sync
// with a mask per half warp, a dynamic tiled_partition of 8, coalesced_threads
// after a branch, and labeled_partition. Every result is recomputed on the host.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cooperative_groups/scan.h>

#include "check.h"

namespace cg = cooperative_groups;

constexpr int kThreads = 128;
// out: [0, 8) tile-16 sums, [100, 116) tile-8 sums, [200, 204) coalesced sums,
// [300, 428) labeled-partition sums at each label's first lane.
__global__ void groups(const int* in, int* out, int* scan, int* redux) {
  cg::thread_block block = cg::this_thread_block();
  int v = in[threadIdx.x];
  auto tile16 = cg::tiled_partition<16>(block);
  int s16 = cg::reduce(tile16, v, cg::plus<int>());
  if (tile16.thread_rank() == 0) out[threadIdx.x / 16] = s16;
  scan[threadIdx.x] = cg::exclusive_scan(tile16, v, cg::plus<int>());
  unsigned half = (threadIdx.x % 32) < 16 ? 0x0000ffffu : 0xffff0000u;
  redux[threadIdx.x] = __reduce_add_sync(half, v);

  cg::thread_group tile8 = cg::tiled_partition(block, 8);
  int s8 = v;
  for (int o = 4; o > 0; o /= 2) s8 += __shfl_down_sync(0xffffffffu, s8, o, 8);
  tile8.sync();
  if (tile8.thread_rank() == 0) out[100 + threadIdx.x / 8] = s8;

  if (threadIdx.x % 3 == 0) {
    auto active = cg::coalesced_threads();
    int cs = cg::reduce(active, v, cg::plus<int>());
    if (active.thread_rank() == 0) out[200 + threadIdx.x / 32] = cs;
  }
  auto labeled = cg::labeled_partition(cg::tiled_partition<32>(block), threadIdx.x % 4);
  int ls = cg::reduce(labeled, v, cg::plus<int>());
  if (labeled.thread_rank() == 0) out[300 + threadIdx.x] = ls;
}

int main() {
  int h[kThreads];
  for (int i = 0; i < kThreads; ++i) h[i] = i * 7 % 13 + 1;
  int *d_in, *d_out, *d_scan, *d_redux;
  CHECK(cudaMalloc(&d_in, sizeof h));
  CHECK(cudaMalloc(&d_out, 1024 * sizeof(int)));
  CHECK(cudaMalloc(&d_scan, sizeof h));
  CHECK(cudaMalloc(&d_redux, sizeof h));
  CHECK(cudaMemset(d_out, 0, 1024 * sizeof(int)));
  CHECK(cudaMemcpy(d_in, h, sizeof h, cudaMemcpyHostToDevice));
  groups<<<1, kThreads>>>(d_in, d_out, d_scan, d_redux);
  CHECK_LAUNCH();
  int out[1024], scan[kThreads], redux[kThreads];
  CHECK(cudaMemcpy(out, d_out, sizeof out, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(scan, d_scan, sizeof scan, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(redux, d_redux, sizeof redux, cudaMemcpyDeviceToHost));
  auto sum = [&](int from, int to, int step) {
    int s = 0;
    for (int i = from; i < to; i += step) s += h[i];
    return s;
  };
  long bad = 0;
  for (int i = 0; i < kThreads; ++i) {
    int tile = i / 16 * 16;
    bad += redux[i] != sum(tile, tile + 16, 1);
    bad += scan[i] != sum(tile, i, 1);
  }
  for (int g = 0; g < kThreads / 16; ++g) bad += out[g] != sum(g * 16, g * 16 + 16, 1);
  for (int g = 0; g < kThreads / 8; ++g) bad += out[100 + g] != sum(g * 8, g * 8 + 8, 1);
  for (int w = 0; w < kThreads / 32; ++w) bad += out[200 + w] != sum(w * 32 + (3 - w * 32 % 3) % 3, w * 32 + 32, 3);
  for (int w = 0; w < kThreads / 32; ++w)
    for (int label = 0; label < 4; ++label) bad += out[300 + w * 32 + label] != sum(w * 32 + label, w * 32 + 32, 4);
  return verdict("cooperative_groups", bad);
}
