// parboil_tpacf: two-point angular correlation function, Parboil style.
// Three sets of 1536 points on the unit sphere: a clustered "data" set D
// (half its points in 24 tight clumps) and two uniform random sets R0, R1,
// each given as right ascension / declination and converted to Cartesian
// x, y, z on the host (struct-of-arrays). Five pair histograms are counted
// over 20 log-spaced angular bins from 1 to 10,000 arcminutes (plus an
// underflow and an overflow slot): DD, R0R0, R1R1 over distinct pairs
// (i < j) and DR0, DR1 over all pairs. Kernel one: a CTA (blockIdx.y picks
// the histogram) copies a tile of 128 points of its first set and the bin
// boundaries (cosines, descending) into shared memory; each thread then
// takes points of the second set from its quarter of that set (blockIdx.z)
// and, for every tile point, forms the dot product (explicit fma order, so
// the host gets the same float), finds its bin by binary search over the
// shared boundaries and counts it with atomicAdd into its warp's
// sub-histogram in shared memory. The CTA sums its warps' sub-histograms
// into a partial histogram in global memory; kernel two (one CTA per
// histogram) adds the partials. Checked exactly against host counts.
#include <cmath>
#include <vector>

#include "suite.h"

typedef unsigned int uint;

constexpr int kPoints = 1536;
constexpr int kBins = 20, kEdges = kBins + 1, kSlots = kEdges + 1;  // slot 0: closer than bin 0; slot kEdges: beyond
constexpr float kMinArcmin = 1.0f, kMaxArcmin = 10000.0f;
constexpr int kTile = 128, kThreads = 256, kWarps = kThreads / 32;
constexpr int kTiles = kPoints / kTile;
constexpr int kSplits = 4, kSplitLen = kPoints / kSplits;
constexpr int kHists = 5;  // DD, R0R0, R1R1, DR0, DR1
constexpr int kPartials = kTiles * kSplits;
constexpr int kIters = 2;

struct Pair {
  int a, b;  // point sets: 0 = D, 1 = R0, 2 = R1
};
__constant__ Pair c_pairs[kHists];
static const Pair h_pairs[kHists] = {{0, 0}, {1, 1}, {2, 2}, {0, 1}, {0, 2}};

__host__ __device__ inline float dot3(float ax, float ay, float az, float bx, float by, float bz) {
#ifdef __CUDA_ARCH__
  return __fmaf_rn(az, bz, __fmaf_rn(ay, by, __fmul_rn(ax, bx)));
#else
  return std::fmaf(az, bz, std::fmaf(ay, by, ax * bx));
#endif
}

// Number of boundaries b (descending) with b >= d: the histogram slot.
__device__ inline int find_slot(const float* s_bounds, float d) {
  int lo = 0, hi = kEdges;
  while (lo < hi) {
    int mid = (lo + hi) >> 1;
    if (s_bounds[mid] >= d)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

// xyz: the three point sets, laid out as [set][coordinate][point].
__global__ void tpacf_pairs(const float* __restrict__ xyz, const float* __restrict__ bounds, uint* partials) {
  __shared__ float s_x[kTile], s_y[kTile], s_z[kTile];
  __shared__ float s_bounds[kEdges];
  __shared__ uint s_hist[kWarps][kSlots];

  const Pair pr = c_pairs[blockIdx.y];
  const bool self = pr.a == pr.b;
  const float* a = xyz + size_t(pr.a) * 3 * kPoints;
  const float* b = xyz + size_t(pr.b) * 3 * kPoints;
  const int tile0 = blockIdx.x * kTile;

  for (int i = threadIdx.x; i < kWarps * kSlots; i += kThreads) (&s_hist[0][0])[i] = 0;
  for (int i = threadIdx.x; i < kTile; i += kThreads) {
    s_x[i] = a[tile0 + i];
    s_y[i] = a[kPoints + tile0 + i];
    s_z[i] = a[2 * kPoints + tile0 + i];
  }
  if (threadIdx.x < kEdges) s_bounds[threadIdx.x] = bounds[threadIdx.x];
  __syncthreads();

  uint* my_hist = s_hist[threadIdx.x >> 5];
  const int begin = blockIdx.z * kSplitLen, end = begin + kSplitLen;
  // Distinct pairs only: second points at or past the tile's first.
  const int first = self ? max(begin, tile0) : begin;
  for (int j = first + threadIdx.x; j < end; j += kThreads) {
    const float bx = b[j], by = b[kPoints + j], bz = b[2 * kPoints + j];
    const int limit = self ? min(kTile, j - tile0) : kTile;  // tile points i < j
    for (int i = 0; i < limit; ++i) {
      float d = dot3(s_x[i], s_y[i], s_z[i], bx, by, bz);
      atomicAdd(&my_hist[find_slot(s_bounds, d)], 1u);
    }
  }
  __syncthreads();

  uint* out = partials + (size_t(blockIdx.y) * kPartials + blockIdx.z * kTiles + blockIdx.x) * kSlots;
  for (int s = threadIdx.x; s < kSlots; s += kThreads) {
    uint sum = 0;
    for (int w = 0; w < kWarps; ++w) sum += s_hist[w][s];
    out[s] = sum;
  }
}

// One CTA per histogram, one thread per slot.
__global__ void tpacf_merge(const uint* __restrict__ partials, uint* hists) {
  const int s = threadIdx.x;
  if (s >= kSlots) return;
  const uint* p = partials + size_t(blockIdx.x) * kPartials * kSlots;
  uint sum = 0;
  for (int k = 0; k < kPartials; ++k) sum += p[k * kSlots + s];
  hists[blockIdx.x * kSlots + s] = sum;
}

int main() {
  const double kPi = 3.14159265358979323846;
  XorShift32 rng(2718);
  // Right ascension / declination in degrees, then unit vectors.
  std::vector<float> xyz(size_t(3) * 3 * kPoints);
  for (int set = 0; set < 3; ++set) {
    std::vector<double> clump_ra(24), clump_dec(24);
    for (int c = 0; c < 24; ++c) {
      clump_ra[c] = 360.0 * rng.uniform();
      clump_dec[c] = std::asin(2.0 * rng.uniform() - 1.0) * 180.0 / kPi;
    }
    for (int p = 0; p < kPoints; ++p) {
      double ra, dec;
      if (set == 0 && p % 2 == 0) {  // a clump member, within ~0.5 degree
        int c = int(rng.next() % 24u);
        ra = clump_ra[c] + 0.5 * rng.uniform_pm1();
        dec = std::fmax(-89.9, std::fmin(89.9, clump_dec[c] + 0.5 * rng.uniform_pm1()));
      } else {  // uniform on the sphere
        ra = 360.0 * rng.uniform();
        dec = std::asin(2.0 * rng.uniform() - 1.0) * 180.0 / kPi;
      }
      double r = ra * kPi / 180.0, d = dec * kPi / 180.0;
      float* base = &xyz[size_t(set) * 3 * kPoints];
      base[p] = float(std::cos(d) * std::cos(r));
      base[kPoints + p] = float(std::cos(d) * std::sin(r));
      base[2 * kPoints + p] = float(std::sin(d));
    }
  }
  // Bin boundaries: cosines of log-spaced angles, descending.
  std::vector<float> bounds(kEdges);
  for (int k = 0; k < kEdges; ++k) {
    double arcmin = kMinArcmin * std::pow(double(kMaxArcmin / kMinArcmin), double(k) / kBins);
    bounds[k] = float(std::cos(arcmin / 60.0 * kPi / 180.0));
  }

  // Host reference with the same float dot products.
  std::vector<uint> want(kHists * kSlots, 0);
  for (int h = 0; h < kHists; ++h) {
    const float* a = &xyz[size_t(h_pairs[h].a) * 3 * kPoints];
    const float* b = &xyz[size_t(h_pairs[h].b) * 3 * kPoints];
    const bool self = h_pairs[h].a == h_pairs[h].b;
    for (int i = 0; i < kPoints; ++i)
      for (int j = self ? i + 1 : 0; j < kPoints; ++j) {
        float d = dot3(a[i], a[kPoints + i], a[2 * kPoints + i], b[j], b[kPoints + j], b[2 * kPoints + j]);
        int slot = 0;
        while (slot < kEdges && bounds[slot] >= d) ++slot;
        ++want[h * kSlots + slot];
      }
  }

  CHECK(cudaMemcpyToSymbol(c_pairs, h_pairs, sizeof(h_pairs)));
  float* d_xyz = to_device(xyz);
  float* d_bounds = to_device(bounds);
  uint* d_partials = device_zeros<uint>(size_t(kHists) * kPartials * kSlots);
  uint* d_hists = device_zeros<uint>(kHists * kSlots);

  EventTimer timer;
  timer.start();
  for (int it = 0; it < kIters; ++it) {
    tpacf_pairs<<<dim3(kTiles, kHists, kSplits), kThreads>>>(d_xyz, d_bounds, d_partials);
    tpacf_merge<<<kHists, 32>>>(d_partials, d_hists);
  }
  CHECK(cudaGetLastError());
  float ms = timer.stop_ms();
  CHECK_LAUNCH();

  std::vector<uint> got = to_host(d_hists, kHists * kSlots);
  long bad = 0;
  for (int i = 0; i < kHists * kSlots; ++i) bad += got[i] != want[i];
  const char* names[kHists] = {"DD", "RR0", "RR1", "DR0", "DR1"};
  for (int h = 0; h < kHists; ++h) {
    std::printf("%-4s", names[h]);
    for (int s = 0; s < kSlots; ++s) std::printf(" %u", got[h * kSlots + s]);
    std::printf("\n");
  }

  print_timing(ms, 2 * kIters);
  device_free(d_xyz, d_bounds, d_partials, d_hists);
  return verdict("parboil_tpacf", bad);
}
