// parboil_histo: saturating histogram of a 2D image, Parboil style. The
// image (768 x 512 uint pixels) holds bin numbers of a 64 x 64 histogram
// "image" (4096 bins) drawn from a skewed distribution: four hot values take
// almost half of the pixels, a narrow bump around the middle bin most of
// the rest, a thin uniform floor the remainder, and 24 flat rectangles of
// one value each (every lane of a warp on one bin: the worst case for
// shared-memory atomics). Each iteration runs three kernels:
//   prescan - grid-stride min/max of the pixel values (warp shuffles, then
//             atomicMin/atomicMax on a global range pair);
//   main    - every CTA clears the used bin range [min, max] of a 4096-bin
//             sub-histogram in shared memory, bins its grid-stride share of
//             the pixels with shared-memory atomicAdd, and merges its
//             non-zero bins into the global uint histogram with global
//             atomicAdd;
//   final   - converts the uint histogram to 8-bit bins saturated at 255.
// The global counts and the range are reset with cudaMemsetAsync before each
// iteration. Both the uint counts and the 8-bit bins are checked exactly
// against a host histogram.
#include <algorithm>
#include <climits>
#include <vector>

#include "suite.h"

typedef unsigned int uint;
typedef unsigned char uchar;

constexpr int kImgW = 768, kImgH = 512, kPixels = kImgW * kImgH;
constexpr int kHistoW = 64, kHistoH = 64, kBins = kHistoW * kHistoH;  // 4096
constexpr int kPrescanBlocks = 64, kPrescanThreads = 256;
constexpr int kMainBlocks = 120, kMainThreads = 512;
constexpr int kFinalThreads = 256;
constexpr int kIters = 4;
constexpr int kFlatRects = 24, kFlatW = 64, kFlatH = 8;

__global__ void histo_prescan(const uint* __restrict__ img, int n, uint* range) {
  uint lo = UINT_MAX, hi = 0;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    uint v = img[i];
    lo = min(lo, v);
    hi = max(hi, v);
  }
  for (int off = 16; off > 0; off >>= 1) {
    lo = min(lo, __shfl_xor_sync(0xFFFFFFFFu, lo, off));
    hi = max(hi, __shfl_xor_sync(0xFFFFFFFFu, hi, off));
  }
  __shared__ uint s_lo[kPrescanThreads / 32], s_hi[kPrescanThreads / 32];
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  if (lane == 0) {
    s_lo[warp] = lo;
    s_hi[warp] = hi;
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    for (int w = 1; w < kPrescanThreads / 32; ++w) {
      lo = min(lo, s_lo[w]);
      hi = max(hi, s_hi[w]);
    }
    atomicMin(&range[0], lo);
    atomicMax(&range[1], hi);
  }
}

__global__ void histo_main(const uint* __restrict__ img, int n, const uint* __restrict__ range, uint* histo) {
  __shared__ uint s_hist[kBins];
  const uint lo = range[0], hi = range[1];
  for (uint b = lo + threadIdx.x; b <= hi; b += blockDim.x) s_hist[b] = 0;
  __syncthreads();

  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    atomicAdd(&s_hist[img[i]], 1u);
  __syncthreads();

  for (uint b = lo + threadIdx.x; b <= hi; b += blockDim.x) {
    uint c = s_hist[b];
    if (c) atomicAdd(&histo[b], c);
  }
}

__global__ void histo_final(const uint* __restrict__ histo, uchar* histo8, int bins) {
  int b = blockIdx.x * blockDim.x + threadIdx.x;
  if (b < bins) histo8[b] = uchar(min(histo[b], 255u));
}

int main() {
  // The skewed input.
  std::vector<uint> img(kPixels);
  XorShift32 rng(4242);
  const uint hot[4] = {1500, 1501, 2047, 3000};
  for (int i = 0; i < kPixels; ++i) {
    float r = rng.uniform();
    uint v;
    if (r < 0.45f) {
      v = hot[rng.next() >> 30];
    } else if (r < 0.9f) {
      // Sum of four uniforms: a bump around bin 2048, ~+-100 bins wide.
      float s = rng.uniform() + rng.uniform() + rng.uniform() + rng.uniform() - 2.0f;
      v = uint(2048 + int(s * 100.0f));
    } else {
      v = 256 + rng.next() % 3584u;  // [256, 3840)
    }
    img[i] = v;
  }
  for (int r = 0; r < kFlatRects; ++r) {
    int x0 = int(rng.next() % uint(kImgW - kFlatW)), y0 = int(rng.next() % uint(kImgH - kFlatH));
    uint v = 300 + rng.next() % 3400u;
    for (int y = y0; y < y0 + kFlatH; ++y)
      for (int x = x0; x < x0 + kFlatW; ++x) img[y * kImgW + x] = v;
  }

  std::vector<uint> want(kBins, 0);
  for (uint v : img) ++want[v];
  uint want_lo = UINT_MAX, want_hi = 0;
  for (uint v : img) {
    want_lo = std::min(want_lo, v);
    want_hi = std::max(want_hi, v);
  }

  uint* d_img = to_device(img);
  uint* d_range = device_zeros<uint>(2);
  uint* d_histo = device_zeros<uint>(kBins);
  uchar* d_histo8 = device_zeros<uchar>(kBins);

  EventTimer timer;
  timer.start();
  for (int it = 0; it < kIters; ++it) {
    CHECK(cudaMemsetAsync(d_histo, 0, kBins * sizeof(uint)));
    CHECK(cudaMemsetAsync(d_range, 0xFF, sizeof(uint)));
    CHECK(cudaMemsetAsync(d_range + 1, 0, sizeof(uint)));
    histo_prescan<<<kPrescanBlocks, kPrescanThreads>>>(d_img, kPixels, d_range);
    histo_main<<<kMainBlocks, kMainThreads>>>(d_img, kPixels, d_range, d_histo);
    histo_final<<<(kBins + kFinalThreads - 1) / kFinalThreads, kFinalThreads>>>(d_histo, d_histo8, kBins);
  }
  CHECK(cudaGetLastError());
  float ms = timer.stop_ms();
  CHECK_LAUNCH();

  std::vector<uint> got = to_host(d_histo, kBins), range = to_host(d_range, 2);
  std::vector<uchar> got8 = to_host(d_histo8, kBins);
  long bad = 0;
  int saturated = 0, used = 0;
  for (int b = 0; b < kBins; ++b) {
    bad += got[b] != want[b];
    bad += got8[b] != uchar(std::min(want[b], 255u));
    saturated += want[b] >= 255;
    used += want[b] != 0;
  }
  bad += range[0] != want_lo;
  bad += range[1] != want_hi;
  std::printf("range [%u, %u], %d bins used, %d saturated, largest bin %u of %d pixels\n", range[0], range[1], used,
              saturated, *std::max_element(want.begin(), want.end()), kPixels);

  print_timing(ms, 3 * kIters);
  device_free(d_img, d_range, d_histo, d_histo8);
  return verdict("parboil_histo", bad);
}
