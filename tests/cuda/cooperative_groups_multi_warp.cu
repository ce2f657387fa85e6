// Multi-warp cooperative-groups tiles: cg::tiled_partition<64> and <128> of
// a 256-thread block (sm_80+ code keeps their barrier and exchange slots in
// the CTA's reserved shared memory, %reserved_smem_offset_1). Each thread
// records its tile's view of itself (rank, tile index, size), the tile's
// sum, max and xor through cg::reduce, its inclusive scan, a value broadcast
// from the tile's rank 7 by shfl, and any/all votes; tile.sync() orders a
// write to shared memory before another warp of the tile reads it. Every
// result is recomputed on the host.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cooperative_groups/scan.h>

#include <vector>

#include "check.h"

namespace cg = cooperative_groups;

constexpr int kThreads = 256, kBlocks = 3, kN = kThreads * kBlocks, kFields = 9;

template <unsigned Size>
__device__ void tile_work(const int* in, int* out) {
  __shared__ int stage[kThreads];
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<Size> tile = cg::tiled_partition<Size>(block);
  unsigned t = block.thread_rank();
  int i = blockIdx.x * kThreads + t;
  int v = in[i];
  int* o = out + i * kFields;
  o[0] = tile.thread_rank() + 1000 * tile.meta_group_rank() + 100000 * tile.num_threads();
  o[1] = cg::reduce(tile, v, cg::plus<int>());
  o[2] = cg::reduce(tile, v, cg::greater<int>());
  o[3] = cg::reduce(tile, v, cg::bit_xor<int>());
  o[4] = cg::inclusive_scan(tile, v, cg::plus<int>());
  o[5] = tile.shfl(v, 7);
  o[6] = tile.any(v % 97 == 0) + 2 * tile.all(v >= 0);
  // The tile's first thread writes; after tile.sync() its last thread (in another warp) reads.
  if (tile.thread_rank() == 0) stage[t] = v * 3;
  tile.sync();
  o[7] = tile.thread_rank() == Size - 1 ? stage[t - (Size - 1)] : -1;
  o[8] = tile.meta_group_size();
}

__global__ void tiles64(const int* in, int* out) { tile_work<64>(in, out); }
__global__ void tiles128(const int* in, int* out) { tile_work<128>(in, out); }

long check(const std::vector<int>& in, const std::vector<int>& out, unsigned size) {
  long bad = 0;
  for (int i = 0; i < kN; ++i) {
    int t = i % kThreads, first = i - t % size;
    int rank = t % size, sum = 0, mx = in[first], x = 0, scan = 0, any = 0, all = 1;
    for (unsigned k = 0; k < size; ++k) {
      int w = in[first + k];
      sum += w, mx = std::max(mx, w), x ^= w, any |= w % 97 == 0, all &= w >= 0;
      if (int(k) <= rank) scan += w;
    }
    const int* o = &out[size_t(i) * kFields];
    int want[kFields] = {rank + 1000 * (t / int(size)) + 100000 * int(size), sum, mx, x, scan, in[first + 7],
                         any + 2 * all, rank == int(size) - 1 ? in[first] * 3 : -1, kThreads / int(size)};
    for (int f = 0; f < kFields; ++f)
      if (o[f] != want[f]) {
        if (bad < 5) std::printf("tile<%u> thread %d field %d: got %d, want %d\n", size, i, f, o[f], want[f]);
        ++bad;
      }
  }
  return bad;
}

int main() {
  std::vector<int> in(kN), out(size_t(kN) * kFields);
  for (int i = 0; i < kN; ++i) in[i] = (i * 7919) % 1009;
  int *d_in, *d_out;
  CHECK(cudaMalloc(&d_in, kN * sizeof(int)));
  CHECK(cudaMalloc(&d_out, out.size() * sizeof(int)));
  CHECK(cudaMemcpy(d_in, in.data(), kN * sizeof(int), cudaMemcpyHostToDevice));
  long bad = 0;
  tiles64<<<kBlocks, kThreads>>>(d_in, d_out);
  CHECK_LAUNCH();
  CHECK(cudaMemcpy(out.data(), d_out, out.size() * sizeof(int), cudaMemcpyDeviceToHost));
  bad += check(in, out, 64);
  tiles128<<<kBlocks, kThreads>>>(d_in, d_out);
  CHECK_LAUNCH();
  CHECK(cudaMemcpy(out.data(), d_out, out.size() * sizeof(int), cudaMemcpyDeviceToHost));
  bad += check(in, out, 128);
  return verdict("cooperative_groups_multi_warp", bad);
}
