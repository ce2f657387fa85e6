// shoc_sort: radix sort of 128K 32-bit keys with 32-bit values, SHOC Sort
// style: 4 bits per pass, all 8 passes, five launches a pass.
//   local_sort   - a CTA of 256 threads takes a tile of 1024 keys (4 per
//                  thread) and sorts it by the pass's 4-bit digit with four
//                  1-bit split steps (a CTA-wide exclusive scan of each
//                  thread's count of zero bits: warp shuffles, then the warp
//                  totals in shared memory), the keys and values moving
//                  through shared memory each step. It writes the sorted
//                  tile back, the tile's 16 digit counts digit-major
//                  (counts[digit * tiles + tile], so that one scan of the
//                  whole array gives every (digit, tile) its global start)
//                  and the tile-local start of each digit.
//   scan_blocks  - exclusive scan of 512 counts per CTA, CTA totals out;
//   scan_totals  - one CTA scans the CTA totals;
//   add_totals   - adds each CTA's scanned total back (a three-kernel scan
//                  of the 16 x 128 counts);
//   scatter      - each element of a sorted tile goes to its digit's global
//                  start plus its rank among its tile's keys of that digit.
// Keys: uniform random 32-bit values with a quarter drawn from 64 repeated
// values; values: the original positions. Checked exactly against
// std::stable_sort (radix sort is stable, so the values must match too).
#include <algorithm>
#include <numeric>
#include <vector>

#include "suite.h"

typedef unsigned int uint;

constexpr int kKeys = 128 * 1024;
constexpr int kThreads = 256, kPerThread = 4, kTile = kThreads * kPerThread;  // 1024
constexpr int kTiles = kKeys / kTile;                                           // 128
constexpr int kRadixBits = 4, kRadix = 1 << kRadixBits;                         // 16
constexpr int kPasses = 32 / kRadixBits;                                        // 8
constexpr int kCounts = kRadix * kTiles;                                        // 2048
constexpr int kScanThreads = 256, kScanChunk = 2 * kScanThreads;                // 512
constexpr int kScanBlocks = kCounts / kScanChunk;                               // 4
static_assert(kScanBlocks <= kScanThreads, "scan_totals scans the CTA totals in one CTA");

// Exclusive scan of one value per thread over the CTA; *total gets the sum.
template <int kCtaThreads>
__device__ inline uint cta_exclusive_scan(uint v, uint* s_warp, uint* total) {
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  uint incl = v;
#pragma unroll
  for (int off = 1; off < 32; off <<= 1) {
    uint n = __shfl_up_sync(0xFFFFFFFFu, incl, off);
    if (lane >= off) incl += n;
  }
  if (lane == 31) s_warp[warp] = incl;
  __syncthreads();
  if (warp == 0) {
    uint w = lane < kCtaThreads / 32 ? s_warp[lane] : 0;
    uint wincl = w;
#pragma unroll
    for (int off = 1; off < 32; off <<= 1) {
      uint n = __shfl_up_sync(0xFFFFFFFFu, wincl, off);
      if (lane >= off) wincl += n;
    }
    if (lane < kCtaThreads / 32) s_warp[lane] = wincl - w;
    if (lane == 31) s_warp[32] = wincl;
  }
  __syncthreads();
  uint result = s_warp[warp] + incl - v;
  *total = s_warp[32];
  __syncthreads();  // s_warp is reused by the next call
  return result;
}

__global__ void local_sort(const uint* __restrict__ keys_in, const uint* __restrict__ vals_in, uint* keys_out,
                           uint* vals_out, uint* counts, uint* tile_starts, int shift) {
  __shared__ uint s_keys[kTile], s_vals[kTile];
  __shared__ uint s_warp[33];
  __shared__ uint s_start[kRadix], s_end[kRadix];
  const int base = blockIdx.x * kTile, t = threadIdx.x;

  uint k[kPerThread], v[kPerThread];
#pragma unroll
  for (int e = 0; e < kPerThread; ++e) {
    k[e] = keys_in[base + t * kPerThread + e];
    v[e] = vals_in[base + t * kPerThread + e];
  }
  for (int bit = shift; bit < shift + kRadixBits; ++bit) {
    uint zeros = 0;
#pragma unroll
    for (int e = 0; e < kPerThread; ++e) zeros += ((k[e] >> bit) & 1u) ^ 1u;
    uint total_zeros;
    const uint zeros_before = cta_exclusive_scan<kThreads>(zeros, s_warp, &total_zeros);
    uint z = zeros_before;
#pragma unroll
    for (int e = 0; e < kPerThread; ++e) {
      const uint idx = t * kPerThread + e;
      const bool one = (k[e] >> bit) & 1u;
      // Zeros keep their order at the front, ones theirs after all zeros.
      const uint dst = one ? total_zeros + (idx - z) : z;
      z += one ? 0u : 1u;
      s_keys[dst] = k[e];
      s_vals[dst] = v[e];
    }
    __syncthreads();
#pragma unroll
    for (int e = 0; e < kPerThread; ++e) {
      k[e] = s_keys[t * kPerThread + e];
      v[e] = s_vals[t * kPerThread + e];
    }
    __syncthreads();
  }

  // Digit boundaries of the sorted tile.
  if (t < kRadix) {
    s_start[t] = 0;
    s_end[t] = 0;
  }
  __syncthreads();
#pragma unroll
  for (int e = 0; e < kPerThread; ++e) {
    const int idx = t * kPerThread + e;
    const uint d = (k[e] >> shift) & (kRadix - 1);
    const uint prev = idx > 0 ? (s_keys[idx - 1] >> shift) & (kRadix - 1) : kRadix;
    const uint next = idx < kTile - 1 ? (s_keys[idx + 1] >> shift) & (kRadix - 1) : kRadix;
    if (prev != d) s_start[d] = idx;
    if (next != d) s_end[d] = idx + 1;
  }
  __syncthreads();
  if (t < kRadix) {
    counts[t * kTiles + blockIdx.x] = s_end[t] - s_start[t];
    tile_starts[blockIdx.x * kRadix + t] = s_start[t];
  }
#pragma unroll
  for (int e = 0; e < kPerThread; ++e) {  // coalesced: consecutive threads, consecutive words
    keys_out[base + e * kThreads + t] = s_keys[e * kThreads + t];
    vals_out[base + e * kThreads + t] = s_vals[e * kThreads + t];
  }
}

// Exclusive scan of kScanChunk counts per CTA (in place), CTA totals out.
__global__ void scan_blocks(uint* data, uint* totals) {
  __shared__ uint s_warp[33];
  const int base = blockIdx.x * kScanChunk + 2 * threadIdx.x;
  const uint a = data[base], b = data[base + 1];
  uint total;
  const uint before = cta_exclusive_scan<kScanThreads>(a + b, s_warp, &total);
  data[base] = before;
  data[base + 1] = before + a;
  if (threadIdx.x == 0) totals[blockIdx.x] = total;
}

__global__ void scan_totals(uint* totals, int n) {
  __shared__ uint s_warp[33];
  const uint v = threadIdx.x < n ? totals[threadIdx.x] : 0;
  uint total;
  const uint before = cta_exclusive_scan<kScanThreads>(v, s_warp, &total);
  if (threadIdx.x < n) totals[threadIdx.x] = before;
}

__global__ void add_totals(uint* data, const uint* __restrict__ totals) {
  const uint add = totals[blockIdx.x];
  const int base = blockIdx.x * kScanChunk;
  data[base + threadIdx.x] += add;
  data[base + kScanThreads + threadIdx.x] += add;
}

__global__ void scatter(const uint* __restrict__ keys_in, const uint* __restrict__ vals_in, uint* keys_out,
                        uint* vals_out, const uint* __restrict__ starts, const uint* __restrict__ tile_starts,
                        int shift) {
  __shared__ uint s_global[kRadix], s_local[kRadix];
  if (threadIdx.x < kRadix) {
    s_global[threadIdx.x] = starts[threadIdx.x * kTiles + blockIdx.x];
    s_local[threadIdx.x] = tile_starts[blockIdx.x * kRadix + threadIdx.x];
  }
  __syncthreads();
  const int base = blockIdx.x * kTile;
#pragma unroll
  for (int e = 0; e < kPerThread; ++e) {
    const int idx = e * kThreads + threadIdx.x;
    const uint key = keys_in[base + idx];
    const uint d = (key >> shift) & (kRadix - 1);
    const uint dst = s_global[d] + (idx - s_local[d]);
    keys_out[dst] = key;
    vals_out[dst] = vals_in[base + idx];
  }
}

int main() {
  std::vector<uint> keys(kKeys), vals(kKeys);
  XorShift32 rng(31337);
  uint repeated[64];
  for (uint& r : repeated) r = rng.next();
  for (int i = 0; i < kKeys; ++i) {
    keys[i] = (rng.next() & 3u) == 0 ? repeated[rng.next() & 63u] : rng.next();
    vals[i] = uint(i);
  }

  uint* d_keys = to_device(keys);
  uint* d_vals = to_device(vals);
  uint* d_keys_tmp = device_alloc<uint>(kKeys);
  uint* d_vals_tmp = device_alloc<uint>(kKeys);
  uint* d_counts = device_alloc<uint>(kCounts);
  uint* d_tile_starts = device_alloc<uint>(kCounts);
  uint* d_totals = device_alloc<uint>(kScanBlocks);

  EventTimer timer;
  timer.start();
  for (int pass = 0; pass < kPasses; ++pass) {
    const int shift = pass * kRadixBits;
    local_sort<<<kTiles, kThreads>>>(d_keys, d_vals, d_keys_tmp, d_vals_tmp, d_counts, d_tile_starts, shift);
    scan_blocks<<<kScanBlocks, kScanThreads>>>(d_counts, d_totals);
    scan_totals<<<1, kScanThreads>>>(d_totals, kScanBlocks);
    add_totals<<<kScanBlocks, kScanThreads>>>(d_counts, d_totals);
    scatter<<<kTiles, kThreads>>>(d_keys_tmp, d_vals_tmp, d_keys, d_vals, d_counts, d_tile_starts, shift);
  }
  CHECK(cudaGetLastError());
  float ms = timer.stop_ms();
  CHECK_LAUNCH();

  std::vector<uint> got_keys = to_host(d_keys, kKeys), got_vals = to_host(d_vals, kKeys);
  std::vector<uint> order(kKeys);
  std::iota(order.begin(), order.end(), 0u);
  std::stable_sort(order.begin(), order.end(), [&](uint a, uint b) { return keys[a] < keys[b]; });
  long bad = 0;
  for (int i = 0; i < kKeys; ++i) {
    bad += got_keys[i] != keys[order[i]];
    bad += got_vals[i] != order[i];
  }
  std::printf("%d keys, %d passes of %d bits, %d tiles of %d\n", kKeys, kPasses, kRadixBits, kTiles, kTile);

  print_timing(ms, 5 * kPasses);
  device_free(d_keys, d_vals, d_keys_tmp, d_vals_tmp, d_counts, d_tile_starts, d_totals);
  return verdict("shoc_sort", bad);
}
