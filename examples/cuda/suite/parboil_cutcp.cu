// parboil_cutcp: cutoff Coulombic potential on a 40 x 40 x 32 lattice
// (spacing 0.5 A), Parboil CUTCP style. The atoms are sorted on the host
// into a 3-D grid of 4 A bins, kBinDepth float4 slots (x, y, z, q) per bin,
// unused slots holding q = 0 far away; the grid is padded with empty bins so
// every neighbour of a lattice bin exists. A __constant__ table lists the
// bin offsets whose cube can come within the cutoff of a lattice cluster.
// One CTA computes one cluster (an 8 x 8 x 8 block of lattice points, the
// size of a bin): each thread owns four points along z, and the CTA walks
// the neighbour table kBinsPerPass bins at a time, staging their atoms in
// shared memory (one slot per thread), then every thread tests every staged
// atom against the cutoff and accumulates q / r (1 - r^2/c^2)^2 for its
// points within it. Checked against a host sum over all atoms in double.
#include <cmath>
#include <vector>

#include "suite.h"

constexpr int kNX = 40, kNY = 40, kNZ = 32;  // lattice points
constexpr float kSpacing = 0.5f;             // A between lattice points
constexpr float kBinSide = 4.0f;             // A, = 8 lattice points
constexpr int kClusterSide = 8;              // lattice points per cluster edge
constexpr float kCutoff = 6.0f;
constexpr int kPad = 2;                      // empty bins on every side: ceil(cutoff / bin)
constexpr int kBinDepth = 8;                 // atom slots per bin
constexpr int kBX = kNX / kClusterSide + 2 * kPad, kBY = kNY / kClusterSide + 2 * kPad,
              kBZ = kNZ / kClusterSide + 2 * kPad;
constexpr int kMaxNbr = 5 * 5 * 5;
constexpr int kThreads = 128;                // blockDim (8, 8, 2)
constexpr int kPointsPerThread = 4;          // along z
constexpr int kBinsPerPass = kThreads / kBinDepth;  // 16
constexpr float kFar = -1.0e4f;              // position of an empty slot

__constant__ int3 c_nbr[kMaxNbr];

__global__ void cutoff_potential(float* __restrict__ lattice, const float4* __restrict__ bins, int nbr_count,
                                 float cutoff2, float inv_cutoff2) {
  __shared__ float4 atoms[kThreads];
  const int tid = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  // The cluster's own bin (the bin grid has kPad empty bins before the lattice).
  const int bx = blockIdx.x + kPad, by = blockIdx.y + kPad, bz = blockIdx.z + kPad;
  const int ix = blockIdx.x * kClusterSide + threadIdx.x;
  const int iy = blockIdx.y * kClusterSide + threadIdx.y;
  const int iz0 = blockIdx.z * kClusterSide + threadIdx.z * kPointsPerThread;
  const float px = ix * kSpacing, py = iy * kSpacing, pz0 = iz0 * kSpacing;

  float e[kPointsPerThread];
#pragma unroll
  for (int i = 0; i < kPointsPerThread; ++i) e[i] = 0.0f;

  for (int first = 0; first < nbr_count; first += kBinsPerPass) {
    int n = first + tid / kBinDepth;
    float4 a = make_float4(kFar, kFar, kFar, 0.0f);
    if (n < nbr_count) {
      int3 off = c_nbr[n];
      int bin = (bx + off.x) + kBX * ((by + off.y) + kBY * (bz + off.z));
      a = bins[bin * kBinDepth + tid % kBinDepth];
    }
    atoms[tid] = a;
    __syncthreads();
    for (int j = 0; j < kThreads; ++j) {
      float4 at = atoms[j];
      float dx = px - at.x, dy = py - at.y;
      float dxy2 = dx * dx + dy * dy;
      if (dxy2 >= cutoff2) continue;
#pragma unroll
      for (int i = 0; i < kPointsPerThread; ++i) {
        float dz = pz0 + i * kSpacing - at.z;
        float r2 = dxy2 + dz * dz;
        if (r2 < cutoff2) {
          float s = 1.0f - r2 * inv_cutoff2;
          e[i] += at.w * rsqrtf(r2) * s * s;
        }
      }
    }
    __syncthreads();
  }
#pragma unroll
  for (int i = 0; i < kPointsPerThread; ++i) lattice[ix + kNX * (iy + kNY * (iz0 + i))] = e[i];
}

int main() {
  static_assert(kNX % kClusterSide == 0 && kNY % kClusterSide == 0 && kNZ % kClusterSide == 0, "whole clusters");
  static_assert(kClusterSide * kSpacing == kBinSide, "a cluster is one bin");
  // ---- atoms: random positions around the lattice, at most kBinDepth per bin ----
  const float lo = -2.0f, hx = kNX * kSpacing + 2.0f, hy = kNY * kSpacing + 2.0f, hz = kNZ * kSpacing + 2.0f;
  const float origin = -kPad * kBinSide;  // bin grid corner, A (all three axes)
  const int nbins = kBX * kBY * kBZ;
  std::vector<float4> bins(size_t(nbins) * kBinDepth, make_float4(kFar, kFar, kFar, 0.0f));
  std::vector<int> fill(nbins, 0);
  std::vector<float4> atom_list;
  XorShift32 rng(8086);
  const int kAtoms = 900;
  while (int(atom_list.size()) < kAtoms) {
    float x = lo + (hx - lo) * rng.uniform(), y = lo + (hy - lo) * rng.uniform(), z = lo + (hz - lo) * rng.uniform();
    float q = rng.uniform_pm1();
    int b = int((x - origin) / kBinSide) + kBX * (int((y - origin) / kBinSide) + kBY * int((z - origin) / kBinSide));
    if (fill[b] == kBinDepth) continue;  // bin full: draw again
    bins[size_t(b) * kBinDepth + fill[b]++] = make_float4(x, y, z, q);
    atom_list.push_back(make_float4(x, y, z, q));
  }
  // ---- neighbour bin offsets whose cube comes within the cutoff of a cluster ----
  std::vector<int3> nbr;
  for (int k = -kPad; k <= kPad; ++k)
    for (int j = -kPad; j <= kPad; ++j)
      for (int i = -kPad; i <= kPad; ++i) {
        auto gap = [](int d) { return float(std::abs(d) > 1 ? std::abs(d) - 1 : 0) * kBinSide; };
        float g2 = gap(i) * gap(i) + gap(j) * gap(j) + gap(k) * gap(k);
        if (g2 <= kCutoff * kCutoff) nbr.push_back(make_int3(i, j, k));
      }
  CHECK(cudaMemcpyToSymbol(c_nbr, nbr.data(), sizeof(int3) * nbr.size()));
  float4* d_bins = to_device(bins);
  const size_t npoints = size_t(kNX) * kNY * kNZ;
  float* d_lattice = device_zeros<float>(npoints);

  dim3 block(kClusterSide, kClusterSide, kClusterSide / kPointsPerThread);
  dim3 grid(kNX / kClusterSide, kNY / kClusterSide, kNZ / kClusterSide);
  const float c2 = kCutoff * kCutoff;
  EventTimer timer;
  timer.start();
  cutoff_potential<<<grid, block>>>(d_lattice, d_bins, int(nbr.size()), c2, 1.0f / c2);
  CHECK(cudaGetLastError());
  float ms = timer.stop_ms();
  CHECK_LAUNCH();
  std::vector<float> got = to_host(d_lattice, npoints);

  long bad = 0;
  double max_abs = 0;
  for (int iz = 0; iz < kNZ; ++iz)
    for (int iy = 0; iy < kNY; ++iy)
      for (int ix = 0; ix < kNX; ++ix) {
        double px = ix * double(kSpacing), py = iy * double(kSpacing), pz = iz * double(kSpacing);
        double want = 0, mag = 0;
        for (const float4& a : atom_list) {
          double dx = px - a.x, dy = py - a.y, dz = pz - a.z;
          double r2 = dx * dx + dy * dy + dz * dz;
          if (r2 >= double(c2)) continue;
          double s = 1.0 - r2 / double(c2);
          double t = a.w / std::sqrt(r2) * s * s;
          want += t;
          mag += std::fabs(t);
        }
        float g = got[ix + kNX * (iy + kNY * iz)];
        if (std::fabs(want) > max_abs) max_abs = std::fabs(want);
        bad += !close_enough(g, want, 1e-4, 1e-5 * mag + 1e-6);
      }
  std::printf("atoms %d, bins %d x %d x %d, neighbour bins %zu, max |potential| %.3f\n", kAtoms, kBX, kBY, kBZ,
              nbr.size(), max_abs);
  device_free(d_bins, d_lattice);
  print_timing(ms, 1);
  return verdict("parboil_cutcp", bad);
}
