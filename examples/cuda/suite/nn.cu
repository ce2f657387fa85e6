// Suite benchmark: nearest neighbours in the style of Rodinia's nn. 262,000
// hurricane-track records (a name, a date and a latitude / longitude pair)
// are generated on the host; their coordinates go to the device as an array
// of two-float structs. The launch shape comes from the device, as the
// original: cudaGetDeviceProperties for the largest grid x dimension and
// CTA size, cudaMemGetInfo to check the arrays fit, then a grid of
// ceil(records / CTA) CTAs split into rows of at most maxGridSize[0].
// One launch of `euclid` writes each record's Euclidean distance (sqrt) from
// the query point; the host copies the distances back and picks the 10
// smallest with a partial selection sort. Exercises device queries, a struct
// array read through a pointer per thread, sqrt and a ragged last CTA.
// Every distance and the 10 chosen records are checked against the host.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "suite.h"

constexpr int kRecords = 262000;
constexpr int kNearest = 10;
constexpr unsigned kDefaultThreads = 256;
constexpr float kQueryLat = 30.0f, kQueryLng = 90.0f;

struct LatLong {
  float lat, lng;
};

struct Record {
  char name[24];
  int year, month, day, hour;
  LatLong loc;
};

__global__ void euclid(const LatLong* locations, float* distances, int n, float lat, float lng) {
  int id = blockDim.x * (gridDim.x * blockIdx.y + blockIdx.x) + threadIdx.x;
  if (id < n) {
    const LatLong* p = locations + id;
    float* d = distances + id;
    *d = (float)sqrt((lat - p->lat) * (lat - p->lat) + (lng - p->lng) * (lng - p->lng));
  }
}

std::vector<Record> make_records() {
  static const char* names[] = {"ALBERTO", "BERYL", "CHRIS", "DEBBY", "ERNESTO", "FLORENCE", "GORDON", "HELENE"};
  std::vector<Record> recs(kRecords);
  XorShift32 rng{0x0BADF00Du};
  for (int i = 0; i < kRecords; ++i) {
    Record& r = recs[i];
    std::snprintf(r.name, sizeof(r.name), "%s", names[rng.next() % 8]);
    r.year = 1950 + int(rng.next() % 60);
    r.month = 1 + int(rng.next() % 12);
    r.day = 1 + int(rng.next() % 28);
    r.hour = int(rng.next() % 4) * 6;
    r.loc.lat = 7.0f + 56.0f * rng.uniform();   // 7 .. 63 degrees
    r.loc.lng = 1.0f + 358.0f * rng.uniform();  // 1 .. 359 degrees
  }
  return recs;
}

// Indices of the k smallest distances, in order (a partial selection sort).
std::vector<int> k_smallest(const std::vector<float>& dist, int k) {
  std::vector<float> d = dist;
  std::vector<int> idx(d.size());
  for (size_t i = 0; i < idx.size(); ++i) idx[i] = int(i);
  for (int i = 0; i < k; ++i) {
    size_t best = i;
    for (size_t j = i + 1; j < d.size(); ++j)
      if (d[j] < d[best]) best = j;
    std::swap(d[i], d[best]);
    std::swap(idx[i], idx[best]);
  }
  idx.resize(k);
  return idx;
}

int main() {
  std::vector<Record> recs = make_records();
  std::vector<LatLong> locs(kRecords);
  for (int i = 0; i < kRecords; ++i) locs[i] = recs[i].loc;

  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  unsigned long max_grid_x = prop.maxGridSize[0];
  unsigned long threads = std::min<unsigned long>(prop.maxThreadsPerBlock, kDefaultThreads);
  size_t free_mem = 0, total_mem = 0;
  CHECK(cudaMemGetInfo(&free_mem, &total_mem));
  size_t needed = kRecords * (sizeof(LatLong) + sizeof(float));
  if (needed > free_mem) {
    std::printf("nn: %zu bytes needed, %zu free\n", needed, free_mem);
    return verdict("nn", 1);
  }
  unsigned long ctas = (kRecords + threads - 1) / threads;
  unsigned long grid_y = (ctas + max_grid_x - 1) / max_grid_x;
  unsigned long grid_x = (ctas + grid_y - 1) / grid_y;
  dim3 grid{unsigned(grid_x), unsigned(grid_y)};

  LatLong* d_locs = to_device(locs);
  float* d_dist = device_alloc<float>(kRecords);

  EventTimer timer;
  timer.start();
  euclid<<<grid, unsigned(threads)>>>(d_locs, d_dist, kRecords, kQueryLat, kQueryLng);
  CHECK(cudaGetLastError());
  float ms = timer.stop_ms();
  CHECK_LAUNCH();
  std::vector<float> dist = to_host(d_dist, kRecords);
  std::vector<int> nearest = k_smallest(dist, kNearest);
  for (int i : nearest)
    std::printf("%-10s %4d-%02d-%02d %02d:00  %6.2f %7.2f  %.4f\n", recs[i].name, recs[i].year, recs[i].month,
                recs[i].day, recs[i].hour, recs[i].loc.lat, recs[i].loc.lng, dist[i]);

  // The host: every distance (a fused multiply-add may move the last bit),
  // then the same k records, up to ties that rounding may reorder.
  long bad = 0;
  std::vector<float> want(kRecords);
  for (int i = 0; i < kRecords; ++i) {
    double dl = double(kQueryLat) - locs[i].lat, dg = double(kQueryLng) - locs[i].lng;
    want[i] = float(std::sqrt(dl * dl + dg * dg));
    bad += !close_enough(dist[i], want[i], 1e-6, 1e-6);
  }
  std::vector<int> host_nearest = k_smallest(want, kNearest);
  for (int k = 0; k < kNearest; ++k)
    if (nearest[k] != host_nearest[k]) bad += !close_enough(want[nearest[k]], want[host_nearest[k]], 1e-6, 1e-6);

  print_timing(ms, 1);
  device_free(d_locs, d_dist);
  return verdict("nn", bad);
}
