// Cooperative-groups collectives beyond cooperative_groups.cu: inclusive and
// exclusive scans on static tiles and on coalesced groups, reductions with
// other operators (max, bit_and, bit_xor), a tile of a tile, a dynamic
// tiled_partition's ranks and sync, and tile-wide shfl/ballot/any/all/match.
// Every result is recomputed on the host. (Multi-warp tiles,
// thread_block_tile<64> and up, read %reserved_smem_offset_1, which warpsim
// does not provide yet.)
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cooperative_groups/scan.h>

#include <algorithm>

#include "check.h"

namespace cg = cooperative_groups;

constexpr int kThreads = 128;
// Per-thread output slots.
enum Slot { kIncl8, kExcl32Max, kTileOfTile, kDynRank, kShfl, kBallot, kAnyAll, kMatch, kCoalIncl, kCoalExcl,
            kXor16, kAnd4, kSlots };

__global__ void collectives(const unsigned* in, unsigned* out) {
  cg::thread_block block = cg::this_thread_block();
  const unsigned t = threadIdx.x, v = in[t];
  unsigned* o = out + t * kSlots;

  auto tile8 = cg::tiled_partition<8>(block);
  o[kIncl8] = cg::inclusive_scan(tile8, v);  // plus by default
  auto tile32 = cg::tiled_partition<32>(block);
  o[kExcl32Max] = cg::exclusive_scan(tile32, v, cg::greater<unsigned>());
  auto tile4 = cg::tiled_partition<4>(tile32);  // a tile of a tile
  o[kTileOfTile] = cg::reduce(tile4, v, cg::plus<unsigned>()) * 100 + tile4.meta_group_rank();

  cg::thread_group dyn = cg::tiled_partition(block, 16);
  dyn.sync();
  o[kDynRank] = dyn.thread_rank() * 1000 + dyn.size();

  o[kShfl] = tile32.shfl(v, (tile32.thread_rank() + 3) % 32) + tile8.shfl_down(v, 1);
  o[kBallot] = tile32.ballot(v % 2 == 0);
  o[kAnyAll] = tile8.any(v > 60) * 2 + tile8.all(v > 2);
  o[kMatch] = tile32.match_any(v % 5);

  if (v % 3 != 0) {  // a coalesced group of the lanes with v % 3 != 0
    cg::coalesced_group active = cg::coalesced_threads();
    o[kCoalIncl] = cg::inclusive_scan(active, v);
    o[kCoalExcl] = cg::exclusive_scan(active, v, cg::bit_or<unsigned>());
  }

  auto tile16 = cg::tiled_partition<16>(block);
  o[kXor16] = cg::reduce(tile16, v, cg::bit_xor<unsigned>());
  o[kAnd4] = cg::reduce(tile4, v | 0xf0u, cg::bit_and<unsigned>());

}

// The host side: each slot recomputed from `in` by the definitions.
long check(const unsigned* in, const unsigned* out) {
  long bad = 0;
  auto group = [](unsigned t, unsigned size) { return t / size * size; };
  for (unsigned t = 0; t < kThreads; ++t) {
    const unsigned* o = out + t * kSlots;
    unsigned lane = t % 32, w = group(t, 32);
    unsigned incl = 0, mx = 0, sum4 = 0, x16 = 0, and4 = ~0u;
    for (unsigned k = group(t, 8); k <= t; ++k) incl += in[k];
    for (unsigned k = w; k < t; ++k) mx = std::max(mx, in[k]);
    for (unsigned k = group(t, 4); k < group(t, 4) + 4; ++k) sum4 += in[k], and4 &= in[k] | 0xf0u;
    for (unsigned k = group(t, 16); k < group(t, 16) + 16; ++k) x16 ^= in[k];
    bad += o[kIncl8] != incl;
    bad += o[kExcl32Max] != mx;  // max over no lanes: 0, greater's identity for unsigned
    bad += o[kTileOfTile] != sum4 * 100 + lane / 4;
    bad += o[kDynRank] != (t % 16) * 1000 + 16;
    unsigned down = lane % 8 == 7 ? in[t] : in[t + 1];  // shfl_down past the tile keeps its own value
    bad += o[kShfl] != in[w + (lane + 3) % 32] + down;
    unsigned ballot = 0, any = 0, all = 1, match = 0;
    for (unsigned k = 0; k < 32; ++k) ballot |= unsigned(in[w + k] % 2 == 0) << k;
    for (unsigned k = group(t, 8); k < group(t, 8) + 8; ++k) any |= in[k] > 60, all &= in[k] > 2;
    for (unsigned k = 0; k < 32; ++k) match |= unsigned(in[w + k] % 5 == in[t] % 5) << k;
    bad += o[kBallot] != ballot;
    bad += o[kAnyAll] != any * 2 + all;
    bad += o[kMatch] != match;
    if (in[t] % 3 != 0) {
      unsigned ci = 0, ce = 0;
      for (unsigned k = w; k < t; ++k)
        if (in[k] % 3 != 0) ci += in[k], ce |= in[k];
      bad += o[kCoalIncl] != ci + in[t];
      bad += o[kCoalExcl] != ce;
    }
    bad += o[kXor16] != x16;
    bad += o[kAnd4] != and4;
  }
  return bad;
}

int main() {
  unsigned h[kThreads];
  for (unsigned i = 0; i < kThreads; ++i) h[i] = (i * 37 + 11) % 97;
  unsigned *d_in, *d_out;
  CHECK(cudaMalloc(&d_in, sizeof h));
  CHECK(cudaMalloc(&d_out, kThreads * kSlots * sizeof(unsigned)));
  CHECK(cudaMemset(d_out, 0, kThreads * kSlots * sizeof(unsigned)));
  CHECK(cudaMemcpy(d_in, h, sizeof h, cudaMemcpyHostToDevice));
  collectives<<<1, kThreads>>>(d_in, d_out);
  CHECK_LAUNCH();
  static unsigned out[kThreads * kSlots];
  CHECK(cudaMemcpy(out, d_out, sizeof out, cudaMemcpyDeviceToHost));
  return verdict("cooperative_groups_collectives", check(h, out));
}
