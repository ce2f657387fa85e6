// histogram256: 256-bin histogram of 4M bytes, styled after the CUDA
// samples' histogram256. The bytes are read as uint (four per load) by
// kPartialCount CTAs of kWarpCount warps in a grid-stride loop; every warp
// owns a 256-bin sub-histogram in shared memory and counts each of the four
// bytes of a word with atomicAdd on shared memory. Each CTA then sums its
// warps' sub-histograms into one partial histogram in global memory, and a
// merge kernel (one CTA per bin) adds the kPartialCount partials with a
// strided loop and a shared-memory tree reduction. A second merge kernel
// does the same sum with __reduce_add_sync (redux.sync) over each warp and
// a shared array of warp totals; both results must agree. The input mixes
// uniform random bytes with long runs of a single byte value (the worst
// case for shared-memory atomics: all 32 lanes hit one address) and a
// stretch of bytes drawn from only four values. Checked exactly against a
// host histogram; the pipeline runs kIters times.
#include <vector>

#include "suite.h"

typedef unsigned int uint;
typedef unsigned char uchar;

constexpr int kBinCount = 256;
constexpr int kDataBytes = 4 * 1024 * 1024;
constexpr int kLogWarpSize = 5, kWarpSize = 1 << kLogWarpSize;
constexpr int kWarpCount = 6;
constexpr int kThreadblockSize = kWarpCount * kWarpSize;  // 192
constexpr int kThreadblockMemory = kWarpCount * kBinCount;
constexpr int kPartialCount = 240;
constexpr int kMergeThreadblockSize = 256;
constexpr int kIters = 2;

__device__ inline void add_byte(uint* s_warp_hist, uint data) { atomicAdd(s_warp_hist + data, 1); }

__device__ inline void add_word(uint* s_warp_hist, uint data) {
  add_byte(s_warp_hist, (data >> 0) & 0xFFU);
  add_byte(s_warp_hist, (data >> 8) & 0xFFU);
  add_byte(s_warp_hist, (data >> 16) & 0xFFU);
  add_byte(s_warp_hist, (data >> 24) & 0xFFU);
}

__global__ void histogram256_kernel(uint* d_partial_histograms, const uint* d_data, uint data_count) {
  // Per-warp sub-histograms.
  __shared__ uint s_hist[kThreadblockMemory];
  uint* s_warp_hist = s_hist + (threadIdx.x >> kLogWarpSize) * kBinCount;

#pragma unroll
  for (uint i = 0; i < (kThreadblockMemory / kThreadblockSize); i++) s_hist[threadIdx.x + i * kThreadblockSize] = 0;
  __syncthreads();

  for (uint pos = blockIdx.x * blockDim.x + threadIdx.x; pos < data_count; pos += blockDim.x * gridDim.x) {
    uint data = d_data[pos];
    add_word(s_warp_hist, data);
  }

  // Sum the warps' sub-histograms into this CTA's partial histogram.
  __syncthreads();
  for (uint bin = threadIdx.x; bin < kBinCount; bin += kThreadblockSize) {
    uint sum = 0;
    for (uint i = 0; i < kWarpCount; i++) sum += s_hist[bin + i * kBinCount];
    d_partial_histograms[blockIdx.x * kBinCount + bin] = sum;
  }
}

// One CTA per bin: sums that bin over all partial histograms.
__global__ void merge_histogram256_kernel(uint* d_histogram, const uint* d_partial_histograms, uint histogram_count) {
  uint sum = 0;
  for (uint i = threadIdx.x; i < histogram_count; i += kMergeThreadblockSize)
    sum += d_partial_histograms[blockIdx.x + i * kBinCount];

  __shared__ uint data[kMergeThreadblockSize];
  data[threadIdx.x] = sum;
  for (uint stride = kMergeThreadblockSize / 2; stride > 0; stride >>= 1) {
    __syncthreads();
    if (threadIdx.x < stride) data[threadIdx.x] += data[threadIdx.x + stride];
  }
  if (threadIdx.x == 0) d_histogram[blockIdx.x] = data[0];
}

// The same merge with a warp reduction instruction.
__global__ void merge_histogram256_redux_kernel(uint* d_histogram, const uint* d_partial_histograms,
                                                uint histogram_count) {
  uint sum = 0;
  for (uint i = threadIdx.x; i < histogram_count; i += kMergeThreadblockSize)
    sum += d_partial_histograms[blockIdx.x + i * kBinCount];

  __shared__ uint warp_sums[kMergeThreadblockSize / kWarpSize];
  uint warp_sum = __reduce_add_sync(0xFFFFFFFFu, sum);
  if ((threadIdx.x & (kWarpSize - 1)) == 0) warp_sums[threadIdx.x >> kLogWarpSize] = warp_sum;
  __syncthreads();
  if (threadIdx.x < kWarpSize) {
    uint v = threadIdx.x < kMergeThreadblockSize / kWarpSize ? warp_sums[threadIdx.x] : 0;
    v = __reduce_add_sync(0xFFFFFFFFu, v);
    if (threadIdx.x == 0) d_histogram[blockIdx.x] = v;
  }
}

int main() {
  std::vector<uchar> bytes(kDataBytes);
  XorShift32 rng(777);
  for (int i = 0; i < kDataBytes; ++i) bytes[i] = uchar(rng.next() >> 24);
  // Runs of one value: 64 runs of 8 KB each.
  for (int r = 0; r < 64; ++r) {
    int start = int(rng.next() % uint(kDataBytes - 8192));
    uchar value = uchar(rng.next() >> 24);
    for (int i = 0; i < 8192; ++i) bytes[start + i] = value;
  }
  // 256 KB drawn from four values only.
  for (int i = 0; i < 256 * 1024; ++i) bytes[1024 * 1024 + i] = uchar(17 + 64 * (rng.next() >> 30));

  std::vector<uint> want(kBinCount, 0);
  for (uchar b : bytes) ++want[b];

  std::vector<uint> words(kDataBytes / 4);
  for (int i = 0; i < kDataBytes / 4; ++i)
    words[i] = uint(bytes[4 * i]) | uint(bytes[4 * i + 1]) << 8 | uint(bytes[4 * i + 2]) << 16 |
               uint(bytes[4 * i + 3]) << 24;

  uint* d_data = to_device(words);
  uint* d_partial = device_zeros<uint>(size_t(kPartialCount) * kBinCount);
  uint* d_hist = device_zeros<uint>(kBinCount);
  uint* d_hist_redux = device_zeros<uint>(kBinCount);

  EventTimer timer;
  timer.start();
  for (int it = 0; it < kIters; ++it) {
    histogram256_kernel<<<kPartialCount, kThreadblockSize>>>(d_partial, d_data, kDataBytes / 4);
    merge_histogram256_kernel<<<kBinCount, kMergeThreadblockSize>>>(d_hist, d_partial, kPartialCount);
    merge_histogram256_redux_kernel<<<kBinCount, kMergeThreadblockSize>>>(d_hist_redux, d_partial, kPartialCount);
  }
  CHECK(cudaGetLastError());
  float ms = timer.stop_ms();
  CHECK_LAUNCH();

  std::vector<uint> got = to_host(d_hist, kBinCount), got_redux = to_host(d_hist_redux, kBinCount);
  long bad = 0, bad_redux = 0;
  unsigned long long total = 0;
  for (int b = 0; b < kBinCount; ++b) {
    bad += got[b] != want[b];
    bad_redux += got_redux[b] != want[b];
    total += got[b];
  }
  std::printf("bytes counted %llu of %d, tree merge %s, redux merge %s\n", total, kDataBytes,
              bad ? "mismatch" : "ok", bad_redux ? "mismatch" : "ok");
  double gbs = ms > 0 ? double(kDataBytes) * kIters / (ms * 1e-3) / 1e9 : 0.0;
  std::printf("%.2f GB/s\n", gbs);

  print_timing(ms, 3 * kIters);
  device_free(d_data, d_partial, d_hist, d_hist_redux);
  return verdict("histogram256", bad + bad_redux);
}
