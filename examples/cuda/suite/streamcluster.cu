// Suite benchmark: the "pgain" step of an online facility-location
// clusterer, in the style of Rodinia's streamcluster. 8,192 weighted points
// with 16 coordinates each, stored coordinate-major (coordinate d of point i
// at d * n + i), start with 4 open centres. For each of 20 candidate points
// the host builds the centre table, copies it and the point records (an
// array of structs: weight, assigned centre, cost) to the device, clears the
// switch flags and the work memory, and launches `pgain_kernel`: every
// thread takes one point, computes its weighted squared distance to the
// candidate, and either marks the point as switching (the gain goes to the
// candidate's column) or charges the loss to the column of the centre it
// now belongs to. Each CTA keeps a row per thread in dynamic shared memory,
// sums the columns and writes one row of partial sums to global memory; the
// host copies those and the switch flags back, adds the rows, and opens the
// candidate (closing the centres it makes redundant) when that lowers the
// total cost. 20 launches, each between host round trips, as the original.
// Exercises AoS records with 64-bit fields, strided coordinate loads,
// dynamic shared memory sized per launch, column reductions and many small
// cudaMemcpy / cudaMemset calls. Checked against the same procedure on the host.
#include <algorithm>
#include <cmath>
#include <vector>

#include "suite.h"

constexpr int kPoints = 8192, kDims = 16, kBlock = 256, kCtas = kPoints / kBlock;
constexpr int kInitialCentres = 4, kCandidates = 20;
constexpr float kFacilityCost = 8000.0f;  // the cost of opening one centre
static_assert(kPoints % kBlock == 0, "whole CTAs only");

struct Point {
  float weight;
  long assign;  // index of the point that is this point's centre
  float cost;   // weighted distance to that centre
};

// ---- shared by the kernel and the host ----

__host__ __device__ inline float weighted_dist(const float* coord, int n, int a, int b, float weight) {
  float d2 = 0.0f;
  for (int d = 0; d < kDims; ++d) {
    float t = coord[d * n + a] - coord[d * n + b];
    d2 += t * t;
  }
  return d2 * weight;
}

// ---- kernel ----

// work: kCtas rows of `stride` = centres + 1 floats (the last column is the
// candidate's). centre_table maps a point that is a centre to its column.
__global__ void pgain_kernel(int n, int candidate, const Point* points, const float* coord, const int* centre_table,
                             int stride, char* switch_membership, float* work) {
  extern __shared__ float s_work[];  // blockDim.x rows of stride floats
  int t = threadIdx.x;
  int i = blockIdx.x * blockDim.x + t;
  float* row = &s_work[t * stride];
  for (int c = 0; c < stride; ++c) row[c] = 0.0f;
  if (i < n) {
    float x_cost = weighted_dist(coord, n, i, candidate, points[i].weight);
    float current = points[i].cost;
    if (x_cost < current) {
      switch_membership[i] = 1;
      row[stride - 1] += x_cost - current;
    } else {
      row[centre_table[points[i].assign]] += current - x_cost;
    }
  }
  __syncthreads();
  // Column sums, one column per thread, in row order.
  for (int c = t; c < stride; c += blockDim.x) {
    float sum = 0.0f;
    for (int r = 0; r < blockDim.x; ++r) sum += s_work[r * stride + c];
    work[blockIdx.x * stride + c] = sum;
  }
}

// ---- host side ----

struct State {
  std::vector<Point> points;
  std::vector<char> is_centre;
};

// Candidate evaluation outside the kernel, identical on both paths: given the
// per-CTA work rows and switch flags, open the candidate if it pays.
// Returns the cost change applied (0 when the candidate was not opened).
double apply_gain(State& s, const std::vector<float>& coord, int candidate, const std::vector<int>& table,
                  int centres, const std::vector<float>& work, const std::vector<char>& switched) {
  int stride = centres + 1;
  std::vector<float> lower(stride, 0.0f);
  for (int b = 0; b < kCtas; ++b)
    for (int c = 0; c < stride; ++c) lower[c] += work[b * stride + c];
  double gain = kFacilityCost + lower[centres];  // open x, move the switching points
  std::vector<char> close(stride, 0);
  for (int i = 0; i < kPoints; ++i) {
    if (!s.is_centre[i]) continue;
    float low = kFacilityCost + lower[table[i]];
    if (low > 0) {  // closing i and moving its points to x saves its facility cost
      close[table[i]] = 1;
      gain -= low;
    }
  }
  if (gain >= 0) return 0.0;
  for (int i = 0; i < kPoints; ++i) {
    bool closed = close[table[s.points[i].assign]];
    if (switched[i] || closed) {
      s.points[i].cost = weighted_dist(coord.data(), kPoints, i, candidate, s.points[i].weight);
      s.points[i].assign = candidate;
    }
  }
  for (int i = 0; i < kPoints; ++i)
    if (s.is_centre[i] && close[table[i]]) s.is_centre[i] = 0;
  s.is_centre[candidate] = 1;
  return gain;
}

int build_table(const State& s, std::vector<int>& table) {
  int count = 0;
  for (int i = 0; i < kPoints; ++i) table[i] = s.is_centre[i] ? count++ : 0;
  return count;
}

// Host mirror of pgain_kernel (same per-CTA column order).
void host_pgain(const State& s, const std::vector<float>& coord, int candidate, const std::vector<int>& table,
                int stride, std::vector<float>& work, std::vector<char>& switched) {
  std::vector<float> rows(size_t(kBlock) * stride);
  for (int b = 0; b < kCtas; ++b) {
    std::fill(rows.begin(), rows.end(), 0.0f);
    for (int t = 0; t < kBlock; ++t) {
      int i = b * kBlock + t;
      const Point& p = s.points[i];
      float x_cost = weighted_dist(coord.data(), kPoints, i, candidate, p.weight);
      if (x_cost < p.cost) {
        switched[i] = 1;
        rows[t * stride + stride - 1] += x_cost - p.cost;
      } else {
        rows[t * stride + table[p.assign]] += p.cost - x_cost;
      }
    }
    for (int c = 0; c < stride; ++c) {
      float sum = 0.0f;
      for (int r = 0; r < kBlock; ++r) sum += rows[r * stride + c];
      work[b * stride + c] = sum;
    }
  }
}

// Points in 12 loose clusters; weights 1..4. The first centres are the
// first points, every point assigned to the nearest of them.
State make_points(std::vector<float>& coord) {
  Lcg rng{0x5C1u};
  constexpr int kClusters = 12;
  std::vector<float> mid(kClusters * kDims);
  for (float& m : mid) m = 10.0f * rng.uniform();
  coord.assign(size_t(kDims) * kPoints, 0.0f);
  State s;
  s.points.resize(kPoints);
  s.is_centre.assign(kPoints, 0);
  for (int i = 0; i < kPoints; ++i) {
    int c = int(rng.next() % kClusters);
    for (int d = 0; d < kDims; ++d) coord[d * kPoints + i] = mid[c * kDims + d] + 1.5f * (rng.uniform() - 0.5f);
    s.points[i].weight = float(1 + rng.next() % 4);
  }
  for (int c = 0; c < kInitialCentres; ++c) s.is_centre[c * 997] = 1;
  for (int i = 0; i < kPoints; ++i) {
    float best = INFINITY;
    long at = 0;
    for (int c = 0; c < kInitialCentres; ++c) {
      float w = weighted_dist(coord.data(), kPoints, i, c * 997, s.points[i].weight);
      if (w < best) best = w, at = c * 997;
    }
    s.points[i].cost = best;
    s.points[i].assign = at;
  }
  return s;
}

double total_cost(const State& s) {
  double sum = 0;
  for (int i = 0; i < kPoints; ++i) sum += s.points[i].cost + (s.is_centre[i] ? kFacilityCost : 0.0);
  return sum;
}

int main() {
  std::vector<float> coord;
  State gpu = make_points(coord);
  const State initial = gpu;
  // Distinct candidates that are not centres yet.
  std::vector<int> candidates;
  std::vector<char> taken = gpu.is_centre;
  Lcg pick{0xCA4Du};
  while (int(candidates.size()) < kCandidates) {
    int c = int(pick.next() % kPoints);
    if (!taken[c]) taken[c] = 1, candidates.push_back(c);
  }

  float* d_coord = to_device(coord);  // the coordinates never change: copied once
  Point* d_points = device_alloc<Point>(kPoints);
  int* d_table = device_alloc<int>(kPoints);
  char* d_switch = device_alloc<char>(kPoints);
  float* d_work = device_alloc<float>(size_t(kCtas) * (kPoints + 1));  // big enough for any centre count

  // What each call returned, for the check afterwards.
  std::vector<std::vector<float>> works(kCandidates);
  std::vector<std::vector<char>> switches(kCandidates, std::vector<char>(kPoints));
  std::vector<int> table(kPoints);
  int opened = 0;
  EventTimer timer;
  timer.start();
  for (int k = 0; k < kCandidates; ++k) {
    int x = candidates[k];
    int centres = build_table(gpu, table);
    int stride = centres + 1;
    CHECK(cudaMemcpy(d_table, table.data(), kPoints * sizeof(int), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_points, gpu.points.data(), kPoints * sizeof(Point), cudaMemcpyHostToDevice));
    CHECK(cudaMemset(d_switch, 0, kPoints));
    CHECK(cudaMemset(d_work, 0, size_t(kCtas) * stride * sizeof(float)));
    size_t shared = size_t(kBlock) * stride * sizeof(float);
    pgain_kernel<<<kCtas, kBlock, shared>>>(kPoints, x, d_points, d_coord, d_table, stride, d_switch, d_work);
    CHECK(cudaGetLastError());
    works[k].resize(size_t(kCtas) * stride);
    copy_to_host(works[k], d_work);
    copy_to_host(switches[k], d_switch);
    opened += apply_gain(gpu, coord, x, table, centres, works[k], switches[k]) < 0;
  }
  float ms = timer.stop_ms();
  CHECK_LAUNCH();

  // The host repeats the procedure from the same start; each call's switch
  // flags and partial sums must agree (a flag may differ only where the two
  // costs tie to rounding), and so must the decisions and the final cost.
  State host = initial;
  long bad = 0;
  std::vector<int> host_table(kPoints);
  std::vector<char> host_switched(kPoints);
  for (int k = 0; k < kCandidates; ++k) {
    int x = candidates[k];
    int centres = build_table(host, host_table);
    std::vector<float> host_work(size_t(kCtas) * (centres + 1));
    std::fill(host_switched.begin(), host_switched.end(), 0);
    host_pgain(host, coord, x, host_table, centres + 1, host_work, host_switched);
    if (host_work.size() != works[k].size()) {
      ++bad;
      break;
    }
    for (int i = 0; i < kPoints; ++i)
      if (switches[k][i] != host_switched[i]) {
        const Point& p = host.points[i];
        float x_cost = weighted_dist(coord.data(), kPoints, i, x, p.weight);
        bad += std::fabs(x_cost - p.cost) > 1e-5f * p.cost;
      }
    for (size_t e = 0; e < host_work.size(); ++e) bad += !close_enough(works[k][e], host_work[e], 1e-4, 1e-2);
    apply_gain(host, coord, x, host_table, centres, host_work, host_switched);
  }
  double start_cost = total_cost(initial), end_cost = total_cost(gpu), want_cost = total_cost(host);
  if (!close_enough(end_cost, want_cost, 1e-5)) ++bad;
  if (opened == 0 || !(end_cost < start_cost)) ++bad;  // the run must have done something
  std::printf("centres opened=%d cost %.1f -> %.1f\n", opened, start_cost, end_cost);

  print_timing(ms, kCandidates);
  device_free(d_coord, d_points, d_table, d_switch, d_work);
  return verdict("streamcluster", bad);
}
