// shoc_md: Lennard-Jones forces over a precomputed neighbour list, SHOC MD
// style. 32,768 atoms sit on a jittered 32^3 cubic lattice (spacing 1,
// jitter +-0.1 per coordinate); the host lists each atom's 32 nearest atoms
// (inside the lattice: the 6 face, 12 edge, 8 corner and 6 second-face
// neighbours) in a column-major array: neighbour k of atom i at
// list[k * kAtoms + i], so that a warp's k-th loads are coalesced. One
// thread per atom: for each listed neighbour it reads the neighbour's
// position as a float4 (a gather), forms the distance and, inside the
// cutoff (r^2 < 2.56: the corner and second-face neighbours fall mostly
// outside), adds r2inv * r6inv * (lj1 * r6inv - lj2) times the separation to
// its force. Two versions of the kernel read the positions: one through a
// texture object on the linear float4 buffer (tex1Dfetch, as SHOC binds a
// texture), one with __ldg. Each runs kIters times; both are checked
// against a host sum in double (the cutoff decided with the kernel's float
// arithmetic), relative 1e-4 of the largest force.
#include <algorithm>
#include <cmath>
#include <vector>

#include "suite.h"

constexpr int kSide = 32, kAtoms = kSide * kSide * kSide;
constexpr int kNeighbours = 32;
constexpr float kCutsq = 2.56f, kLj1 = 1.5f, kLj2 = 2.0f;
constexpr int kBlock = 128;
constexpr int kIters = 2;

// Squared distance with the kernel's rounding (explicit fma order).
__host__ __device__ inline float dist2(float dx, float dy, float dz) {
#ifdef __CUDA_ARCH__
  return __fmaf_rn(dz, dz, __fmaf_rn(dy, dy, __fmul_rn(dx, dx)));
#else
  return std::fmaf(dz, dz, std::fmaf(dy, dy, dx * dx));
#endif
}

template <bool kTexture>
__global__ void md_lj_force(float4* __restrict__ force, const float4* __restrict__ pos, cudaTextureObject_t pos_tex,
                            const int* __restrict__ neigh, int n_atoms, int n_neigh, float cutsq, float lj1,
                            float lj2) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n_atoms) return;
  const float4 ipos = kTexture ? tex1Dfetch<float4>(pos_tex, i) : __ldg(&pos[i]);
  float fx = 0.0f, fy = 0.0f, fz = 0.0f;
  for (int k = 0; k < n_neigh; ++k) {
    const int j = neigh[k * n_atoms + i];
    const float4 jpos = kTexture ? tex1Dfetch<float4>(pos_tex, j) : __ldg(&pos[j]);
    const float dx = ipos.x - jpos.x, dy = ipos.y - jpos.y, dz = ipos.z - jpos.z;
    const float r2 = dist2(dx, dy, dz);
    if (r2 < cutsq) {
      const float r2inv = 1.0f / r2;
      const float r6inv = r2inv * r2inv * r2inv;
      const float f = r2inv * r6inv * (lj1 * r6inv - lj2);
      fx += dx * f;
      fy += dy * f;
      fz += dz * f;
    }
  }
  force[i] = make_float4(fx, fy, fz, 0.0f);
}

int main() {
  // Jittered lattice.
  std::vector<float4> pos(kAtoms);
  XorShift32 rng(6174);
  for (int z = 0; z < kSide; ++z)
    for (int y = 0; y < kSide; ++y)
      for (int x = 0; x < kSide; ++x)
        pos[(z * kSide + y) * kSide + x] = make_float4(x + 0.1f * rng.uniform_pm1(), y + 0.1f * rng.uniform_pm1(),
                                                       z + 0.1f * rng.uniform_pm1(), 0.0f);

  // The 32 nearest atoms of each (lattice offsets up to 3 in each direction
  // are candidates, enough at the corners; ties broken by index), stored
  // column-major. Atoms on the faces get farther ones, some outside the cutoff.
  std::vector<int> neigh(size_t(kNeighbours) * kAtoms);
  std::vector<std::pair<float, int>> cand;
  for (int z = 0; z < kSide; ++z)
    for (int y = 0; y < kSide; ++y)
      for (int x = 0; x < kSide; ++x) {
        const int i = (z * kSide + y) * kSide + x;
        cand.clear();
        for (int dz = -3; dz <= 3; ++dz)
          for (int dy = -3; dy <= 3; ++dy)
            for (int dx = -3; dx <= 3; ++dx) {
              int nx = x + dx, ny = y + dy, nz = z + dz;
              if ((dx | dy | dz) == 0 || nx < 0 || ny < 0 || nz < 0 || nx >= kSide || ny >= kSide || nz >= kSide)
                continue;
              const int j = (nz * kSide + ny) * kSide + nx;
              float ex = pos[i].x - pos[j].x, ey = pos[i].y - pos[j].y, ez = pos[i].z - pos[j].z;
              cand.push_back({ex * ex + ey * ey + ez * ez, j});
            }
        std::partial_sort(cand.begin(), cand.begin() + kNeighbours, cand.end());
        for (int k = 0; k < kNeighbours; ++k) neigh[size_t(k) * kAtoms + i] = cand[k].second;
      }

  // Host reference.
  std::vector<double> want(3 * size_t(kAtoms));
  long inside = 0;
  double fmax = 0;
  for (int i = 0; i < kAtoms; ++i) {
    double fx = 0, fy = 0, fz = 0;
    for (int k = 0; k < kNeighbours; ++k) {
      const float4 pj = pos[neigh[size_t(k) * kAtoms + i]];
      const float dx = pos[i].x - pj.x, dy = pos[i].y - pj.y, dz = pos[i].z - pj.z;
      if (dist2(dx, dy, dz) >= kCutsq) continue;
      ++inside;
      const double r2inv = 1.0 / (double(dx) * dx + double(dy) * dy + double(dz) * dz);
      const double r6inv = r2inv * r2inv * r2inv;
      const double f = r2inv * r6inv * (kLj1 * r6inv - kLj2);
      fx += dx * f;
      fy += dy * f;
      fz += dz * f;
    }
    want[3 * i] = fx;
    want[3 * i + 1] = fy;
    want[3 * i + 2] = fz;
    fmax = std::max({fmax, std::fabs(fx), std::fabs(fy), std::fabs(fz)});
  }

  float4* d_pos = to_device(pos);
  int* d_neigh = to_device(neigh);
  float4* d_force_tex = device_zeros<float4>(kAtoms);
  float4* d_force_ldg = device_zeros<float4>(kAtoms);

  cudaTextureObject_t tex = linear_texture(d_pos, kAtoms);

  const int grid = (kAtoms + kBlock - 1) / kBlock;
  EventTimer timer;
  timer.start();
  for (int it = 0; it < kIters; ++it) {
    md_lj_force<true><<<grid, kBlock>>>(d_force_tex, d_pos, tex, d_neigh, kAtoms, kNeighbours, kCutsq, kLj1, kLj2);
    md_lj_force<false><<<grid, kBlock>>>(d_force_ldg, d_pos, tex, d_neigh, kAtoms, kNeighbours, kCutsq, kLj1, kLj2);
  }
  CHECK(cudaGetLastError());
  float ms = timer.stop_ms();
  CHECK_LAUNCH();

  std::vector<float4> got_tex = to_host(d_force_tex, kAtoms), got_ldg = to_host(d_force_ldg, kAtoms);
  long bad_tex = 0, bad_ldg = 0;
  for (int i = 0; i < kAtoms; ++i) {
    const float* t = &got_tex[i].x;
    const float* l = &got_ldg[i].x;
    for (int c = 0; c < 3; ++c) {
      bad_tex += !close_enough(t[c], want[3 * i + c], 1e-4, 1e-4 * fmax);
      bad_ldg += !close_enough(l[c], want[3 * i + c], 1e-4, 1e-4 * fmax);
    }
    bad_tex += t[3] != 0.0f;
    bad_ldg += l[3] != 0.0f;
  }
  std::printf("%d atoms, %d neighbours each, %.2f inside the cutoff on average, largest force %.4f\n", kAtoms,
              kNeighbours, double(inside) / kAtoms, fmax);
  std::printf("texture %s, __ldg %s\n", bad_tex ? "mismatch" : "ok", bad_ldg ? "mismatch" : "ok");

  CHECK(cudaDestroyTextureObject(tex));
  print_timing(ms, 2 * kIters);
  device_free(d_pos, d_neigh, d_force_tex, d_force_ldg);
  return verdict("shoc_md", bad_tex + bad_ldg);
}
