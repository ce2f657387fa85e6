// Thrust from the CUDA toolkit's own headers, unmodified: reduce, sort (radix
// for int keys, merge for a user comparator), exclusive_scan, unique,
// reduce_by_key and copy_if with a user struct. Each result is checked against
// the same algorithm run on the host with the standard library.
#include <thrust/copy.h>
#include <thrust/device_vector.h>
#include <thrust/reduce.h>
#include <thrust/scan.h>
#include <thrust/sort.h>
#include <thrust/unique.h>

#include <algorithm>
#include <numeric>
#include <vector>

#include "check.h"

struct Particle {
  int id;
  float mass;
};

struct Heavy {
  __host__ __device__ bool operator()(const Particle& p) const { return p.mass > 0.5f; }
};

struct Descending {
  __host__ __device__ bool operator()(float a, float b) const { return a > b; }
};

int main() {
  const int n = 5000;
  std::vector<int> h(n);
  std::vector<float> hf(n);
  unsigned s = 12345;
  for (int i = 0; i < n; ++i) {
    s = s * 1103515245u + 12345u;
    h[i] = static_cast<int>((s >> 8) % 1000);
    hf[i] = static_cast<float>((s >> 4) % 4096) / 4096.0f;
  }
  long bad = 0;
  thrust::device_vector<int> d(h.begin(), h.end());
  long long sum = thrust::reduce(d.begin(), d.end(), 0LL);
  bad += sum != std::accumulate(h.begin(), h.end(), 0LL);

  thrust::sort(d.begin(), d.end());
  std::vector<int> sorted(n);
  thrust::copy(d.begin(), d.end(), sorted.begin());
  std::sort(h.begin(), h.end());
  bad += sorted != h;

  thrust::device_vector<int> scanned(n);
  thrust::exclusive_scan(d.begin(), d.end(), scanned.begin());
  std::vector<int> want_scan(n);
  std::exclusive_scan(h.begin(), h.end(), want_scan.begin(), 0);
  std::vector<int> got_scan(n);
  thrust::copy(scanned.begin(), scanned.end(), got_scan.begin());
  bad += got_scan != want_scan;

  // Keys are the sorted values: reduce_by_key counts each distinct value.
  thrust::device_vector<int> ones(n, 1), keys_out(n), counts(n);
  auto ends = thrust::reduce_by_key(d.begin(), d.end(), ones.begin(), keys_out.begin(), counts.begin());
  long distinct = ends.first - keys_out.begin();
  auto end = thrust::unique(d.begin(), d.end());
  long unique_n = end - d.begin();
  long want_unique = std::unique(h.begin(), h.end()) - h.begin();
  bad += unique_n != want_unique;
  bad += distinct != want_unique;
  bad += thrust::reduce(counts.begin(), counts.begin() + distinct) != n;

  thrust::device_vector<float> df(hf.begin(), hf.end());
  thrust::sort(df.begin(), df.end(), Descending());
  std::vector<float> got_f(n);
  thrust::copy(df.begin(), df.end(), got_f.begin());
  std::sort(hf.begin(), hf.end(), [](float a, float b) { return a > b; });
  bad += got_f != hf;

  std::vector<Particle> hp(n);
  for (int i = 0; i < n; ++i) hp[i] = {i, got_f[(i * 7) % n]};
  thrust::device_vector<Particle> dp(hp.begin(), hp.end()), heavy(n);
  auto heavy_end = thrust::copy_if(dp.begin(), dp.end(), heavy.begin(), Heavy());
  std::vector<Particle> want_heavy;
  std::copy_if(hp.begin(), hp.end(), std::back_inserter(want_heavy), Heavy());
  long heavy_n = heavy_end - heavy.begin();
  bad += heavy_n != static_cast<long>(want_heavy.size());
  std::vector<Particle> got_heavy(heavy_n);
  thrust::copy(heavy.begin(), heavy_end, got_heavy.begin());
  for (long i = 0; i < heavy_n && i < static_cast<long>(want_heavy.size()); ++i)
    bad += got_heavy[i].id != want_heavy[i].id || got_heavy[i].mass != want_heavy[i].mass;
  return verdict("thrust_algorithms", bad);
}
