// CUB from the CUDA toolkit's own headers, unmodified, beside the Thrust
// test (thrust_algorithms.cu): block primitives (BlockReduce, BlockScan,
// BlockRadixSort) and device primitives (DeviceHistogram::HistogramEven,
// DeviceSegmentedReduce::Sum, DeviceReduce::Max, DeviceRadixSort on double
// keys), and thrust::transform / sort / reduce on unsigned and double
// vectors. Every result is recomputed on the host.
#include <cub/cub.cuh>
#include <thrust/device_vector.h>
#include <thrust/reduce.h>
#include <thrust/sort.h>
#include <thrust/transform.h>

#include <algorithm>
#include <numeric>
#include <vector>

#include "check.h"

constexpr int kBlock = 128, kItems = 4;

// Per block: the sum of its tile (BlockReduce), the inclusive prefix sums
// (BlockScan) and the tile sorted (BlockRadixSort), kBlock x kItems keys.
__global__ void block_primitives(const int* in, int* sums, int* scanned, int* sorted) {
  using Reduce = cub::BlockReduce<int, kBlock>;
  using Scan = cub::BlockScan<int, kBlock>;
  using Sort = cub::BlockRadixSort<int, kBlock, kItems>;
  __shared__ union {
    typename Reduce::TempStorage reduce;
    typename Scan::TempStorage scan;
    typename Sort::TempStorage sort;
  } temp;
  int base = blockIdx.x * kBlock * kItems, t = threadIdx.x;
  int items[kItems];
  for (int i = 0; i < kItems; ++i) items[i] = in[base + t * kItems + i];
  int sum = Reduce(temp.reduce).Sum(items);
  if (t == 0) sums[blockIdx.x] = sum;
  __syncthreads();
  int prefix[kItems];
  Scan(temp.scan).InclusiveSum(items, prefix);
  for (int i = 0; i < kItems; ++i) scanned[base + t * kItems + i] = prefix[i];
  __syncthreads();
  Sort(temp.sort).Sort(items);
  for (int i = 0; i < kItems; ++i) sorted[base + t * kItems + i] = items[i];
}

long check_block_primitives() {
  const int blocks = 6, n = blocks * kBlock * kItems;
  std::vector<int> h(n);
  for (int i = 0; i < n; ++i) h[i] = (i * 7919) % 1000 - 300;
  thrust::device_vector<int> d(h.begin(), h.end()), sums(blocks), scanned(n), sorted(n);
  block_primitives<<<blocks, kBlock>>>(thrust::raw_pointer_cast(d.data()), thrust::raw_pointer_cast(sums.data()),
                                       thrust::raw_pointer_cast(scanned.data()),
                                       thrust::raw_pointer_cast(sorted.data()));
  CHECK_LAUNCH();
  std::vector<int> got_sums(blocks), got_scan(n), got_sorted(n);
  thrust::copy(sums.begin(), sums.end(), got_sums.begin());
  thrust::copy(scanned.begin(), scanned.end(), got_scan.begin());
  thrust::copy(sorted.begin(), sorted.end(), got_sorted.begin());
  long bad = 0;
  for (int b = 0; b < blocks; ++b) {
    auto first = h.begin() + b * kBlock * kItems, last = first + kBlock * kItems;
    bad += got_sums[b] != std::accumulate(first, last, 0);
    std::vector<int> scan(kBlock * kItems), tile(first, last);
    std::partial_sum(first, last, scan.begin());
    std::sort(tile.begin(), tile.end());
    for (int i = 0; i < kBlock * kItems; ++i) {
      bad += got_scan[b * kBlock * kItems + i] != scan[i];
      bad += got_sorted[b * kBlock * kItems + i] != tile[i];
    }
  }
  return bad;
}

// Device-wide calls go through CUB's two-phase temp-storage protocol.
template <typename Call>
void with_temp(Call call) {
  size_t bytes = 0;
  CHECK(call(nullptr, bytes));
  void* temp = nullptr;
  CHECK(cudaMalloc(&temp, bytes));
  CHECK(call(temp, bytes));
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaFree(temp));
}

long check_device_primitives() {
  const int n = 5000, bins = 16, segments = 7;
  std::vector<float> samples(n);
  for (int i = 0; i < n; ++i) samples[i] = float((i * 37) % 1600) / 10.0f;  // [0, 160)
  thrust::device_vector<float> d_samples(samples.begin(), samples.end());
  thrust::device_vector<int> d_hist(bins);
  const float* ps = thrust::raw_pointer_cast(d_samples.data());
  int* ph = thrust::raw_pointer_cast(d_hist.data());
  with_temp([&](void* t, size_t& b) {
    return cub::DeviceHistogram::HistogramEven(t, b, ps, ph, bins + 1, 0.0f, 160.0f, n);
  });
  std::vector<int> want_hist(bins, 0), got_hist(bins);
  for (float s : samples) ++want_hist[int(s / 10.0f)];
  thrust::copy(d_hist.begin(), d_hist.end(), got_hist.begin());
  long bad = got_hist != want_hist;

  std::vector<double> values(n);
  for (int i = 0; i < n; ++i) values[i] = (i % 101) * 0.25 - 7.0;
  std::vector<int> offsets = {0, 10, 500, 501, 2000, 3333, 4990, n};  // one empty-ish, uneven segments
  thrust::device_vector<double> d_values(values.begin(), values.end()), d_sums(segments);
  thrust::device_vector<int> d_offsets(offsets.begin(), offsets.end());
  const double* pv = thrust::raw_pointer_cast(d_values.data());
  double* psum = thrust::raw_pointer_cast(d_sums.data());
  const int* po = thrust::raw_pointer_cast(d_offsets.data());
  with_temp([&](void* t, size_t& b) { return cub::DeviceSegmentedReduce::Sum(t, b, pv, psum, segments, po, po + 1); });
  std::vector<double> got_sums(segments);
  thrust::copy(d_sums.begin(), d_sums.end(), got_sums.begin());
  for (int s = 0; s < segments; ++s)
    bad += got_sums[s] != std::accumulate(values.begin() + offsets[s], values.begin() + offsets[s + 1], 0.0);

  thrust::device_vector<double> d_max(1), d_sorted(n);
  double* pm = thrust::raw_pointer_cast(d_max.data());
  with_temp([&](void* t, size_t& b) { return cub::DeviceReduce::Max(t, b, pv, pm, n); });
  bad += double(d_max[0]) != *std::max_element(values.begin(), values.end());
  double* pso = thrust::raw_pointer_cast(d_sorted.data());
  with_temp([&](void* t, size_t& b) { return cub::DeviceRadixSort::SortKeys(t, b, pv, pso, n); });
  std::vector<double> want_sorted = values, got_sorted(n);
  std::sort(want_sorted.begin(), want_sorted.end());
  thrust::copy(d_sorted.begin(), d_sorted.end(), got_sorted.begin());
  bad += got_sorted != want_sorted;
  return bad;
}

struct Mix {
  __host__ __device__ unsigned operator()(unsigned x) const { return x * 2654435761u ^ (x >> 3); }
};

long check_thrust_types() {
  const int n = 3000;
  std::vector<unsigned> hu(n);
  std::iota(hu.begin(), hu.end(), 1u);
  thrust::device_vector<unsigned> du(hu.begin(), hu.end()), mixed(n);
  thrust::transform(du.begin(), du.end(), mixed.begin(), Mix{});
  thrust::sort(mixed.begin(), mixed.end());
  std::vector<unsigned> want(n), got(n);
  std::transform(hu.begin(), hu.end(), want.begin(), Mix{});
  std::sort(want.begin(), want.end());
  thrust::copy(mixed.begin(), mixed.end(), got.begin());
  long bad = got != want;
  std::vector<double> hd(n);
  for (int i = 0; i < n; ++i) hd[i] = (i % 17) * 0.5;  // sums exact in double
  thrust::device_vector<double> dd(hd.begin(), hd.end());
  bad += thrust::reduce(dd.begin(), dd.end(), 0.0) != std::accumulate(hd.begin(), hd.end(), 0.0);
  return bad;
}

int main() {
  long bad = check_block_primitives() + check_device_primitives() + check_thrust_types();
  return verdict("cub_primitives", bad);
}
