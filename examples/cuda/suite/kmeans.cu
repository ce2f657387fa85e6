// Suite benchmark: k-means clustering in the style of Rodinia's kmeans.
// 16,000 points with 16 features each (point-major, as read from a file)
// are grouped into 5 clusters. One launch of `kmeans_transpose` rewrites the
// features feature-major (feature f of point p at f * n + p) so that a warp
// reads consecutive words. Then every iteration the host uploads the current
// centres to __constant__ memory with cudaMemcpyToSymbol, `kmeans_point`
// gives each point (one thread, a 2-D grid of CTAs) the index of its nearest
// centre, the host copies the memberships back, counts the points that
// changed cluster and recomputes the centres as the means of their members.
// The loop stops when no more than kThreshold points moved or after
// kMaxIters iterations, as the original (which reads features through a
// texture reference; this one uses plain loads). Exercises dynamically
// indexed constant memory, strided feature-major loads, a 2-D grid flattened
// into a point index, a ragged last CTA and a cudaMemcpy round trip per
// iteration. Each iteration's memberships are checked on the host: the
// chosen centre must be the nearest, up to rounding.
#include <cmath>
#include <vector>

#include "suite.h"

constexpr int kPoints = 16000;  // not a multiple of the CTA size on purpose
constexpr int kFeatures = 16;
constexpr int kClusters = 5;
constexpr int kMaxClusters = 8;  // the constant table is sized for this many
constexpr int kBlock = 256;
constexpr int kGridX = 32;       // CTAs per grid row; the grid is 2-D as in the original
constexpr int kMaxIters = 100;
constexpr int kThreshold = 0;    // stop once no more than this many points move
static_assert(kClusters <= kMaxClusters, "constant table too small");

__constant__ float c_centres[kMaxClusters * kFeatures];

// Point-major [n][nf] into feature-major [nf][n].
__global__ void kmeans_transpose(const float* in, float* out, int n, int nf) {
  int p = blockDim.x * blockIdx.x + threadIdx.x;
  if (p < n)
    for (int f = 0; f < nf; ++f) out[f * n + p] = in[p * nf + f];
}

// Nearest centre (in c_centres) of every point; ties go to the lower index.
__global__ void kmeans_point(const float* features, int n, int nf, int nclusters, int* membership) {
  unsigned block = gridDim.x * blockIdx.y + blockIdx.x;
  unsigned p = block * blockDim.x * blockDim.y + threadIdx.x;
  if (p >= unsigned(n)) return;
  float best = 3.402823466e+38f;  // FLT_MAX
  int index = -1;
  for (int c = 0; c < nclusters; ++c) {
    int base = c * nf;
    float dist = 0.0f;
    for (int f = 0; f < nf; ++f) {
      float d = features[f * n + p] - c_centres[base + f];
      dist += d * d;
    }
    if (dist < best) {
      best = dist;
      index = c;
    }
  }
  membership[p] = index;
}

// Five blobs in feature space plus noise; each point near one of them.
std::vector<float> make_points() {
  std::vector<float> pts(size_t(kPoints) * kFeatures);
  XorShift32 rng{0xC0FFEE11u};
  float blob[kClusters][kFeatures];
  for (auto& b : blob)
    for (float& v : b) v = 10.0f * rng.uniform();
  for (int p = 0; p < kPoints; ++p) {
    int b = rng.next() % kClusters;
    for (int f = 0; f < kFeatures; ++f) pts[size_t(p) * kFeatures + f] = blob[b][f] + 3.0f * rng.uniform_pm1();
  }
  return pts;
}

// Means of each cluster's members; an empty cluster keeps its centre.
void new_centres(const std::vector<float>& pts, const std::vector<int>& member, std::vector<float>& centres) {
  std::vector<double> sum(size_t(kClusters) * kFeatures, 0.0);
  std::vector<int> count(kClusters, 0);
  for (int p = 0; p < kPoints; ++p) {
    int c = member[p];
    ++count[c];
    for (int f = 0; f < kFeatures; ++f) sum[size_t(c) * kFeatures + f] += pts[size_t(p) * kFeatures + f];
  }
  for (int c = 0; c < kClusters; ++c)
    if (count[c] > 0)
      for (int f = 0; f < kFeatures; ++f) centres[size_t(c) * kFeatures + f] = float(sum[size_t(c) * kFeatures + f] / count[c]);
}

// Points whose membership is out of range or whose centre is not the
// nearest (beyond rounding).
long check_members(const std::vector<float>& pts, const std::vector<float>& centres, const std::vector<int>& member) {
  long bad = 0;
  for (int p = 0; p < kPoints; ++p) {
    int m = member[p];
    if (m < 0 || m >= kClusters) {
      ++bad;
      continue;
    }
    double dist[kClusters], best = 1e300;
    for (int c = 0; c < kClusters; ++c) {
      double s = 0;
      for (int f = 0; f < kFeatures; ++f) {
        double d = double(pts[size_t(p) * kFeatures + f]) - centres[size_t(c) * kFeatures + f];
        s += d * d;
      }
      dist[c] = s;
      if (s < best) best = s;
    }
    bad += dist[m] > best * (1 + 1e-5) + 1e-6;
  }
  return bad;
}

int main() {
  std::vector<float> pts = make_points();
  std::vector<float> centres(size_t(kClusters) * kFeatures);
  for (int c = 0; c < kClusters; ++c)  // the first points start as the centres
    for (int f = 0; f < kFeatures; ++f) centres[size_t(c) * kFeatures + f] = pts[size_t(c) * kFeatures + f];

  float* d_pts = to_device(pts);
  float* d_feat = device_alloc<float>(pts.size());
  int* d_member = device_alloc<int>(kPoints);
  std::vector<int> member(kPoints, -1), previous(kPoints, -1);

  int ctas = (kPoints + kBlock - 1) / kBlock;
  dim3 grid(kGridX, (ctas + kGridX - 1) / kGridX);
  long bad = 0;
  int launches = 0, iters = 0, moved = 0;
  EventTimer timer;
  timer.start();
  kmeans_transpose<<<ctas, kBlock>>>(d_pts, d_feat, kPoints, kFeatures);
  CHECK(cudaGetLastError());
  ++launches;
  do {
    CHECK(cudaMemcpyToSymbol(c_centres, centres.data(), centres.size() * sizeof(float)));
    kmeans_point<<<grid, kBlock>>>(d_feat, kPoints, kFeatures, kClusters, d_member);
    CHECK(cudaGetLastError());
    ++launches;
    copy_to_host(member, d_member);
    bad += check_members(pts, centres, member);
    moved = 0;
    for (int p = 0; p < kPoints; ++p) moved += member[p] != previous[p];
    previous = member;
    new_centres(pts, member, centres);
    ++iters;
  } while (moved > kThreshold && iters < kMaxIters);
  float ms = timer.stop_ms();
  CHECK_LAUNCH();

  // The transpose itself, element by element.
  std::vector<float> feat = to_host(d_feat, pts.size());
  for (int p = 0; p < kPoints; ++p)
    for (int f = 0; f < kFeatures; ++f) bad += feat[size_t(f) * kPoints + p] != pts[size_t(p) * kFeatures + f];
  if (moved > kThreshold) {
    std::printf("kmeans: did not converge in %d iterations (%d points moved)\n", iters, moved);
    ++bad;
  }
  std::printf("iterations=%d\n", iters);

  print_timing(ms, launches);
  device_free(d_pts, d_feat, d_member);
  return verdict("kmeans", bad);
}
