// Suite benchmark: one solver run of an unstructured-grid finite-volume Euler
// code in the style of Rodinia's cfd (euler3d). 16,000 cells (padded to a
// multiple of the 192-thread CTA), each with 4 face neighbours given by an
// index array (-1: a wall face, -2: a far-field face), per-face normals and
// the 5 conserved variables (density, momentum x/y/z, energy) stored
// structure-of-arrays. Kernels: `cfd_init` sets every cell to the free
// stream, `cfd_step_factor` derives the local time step (pressure, speed of
// sound: sqrtf and divisions), `cfd_flux` (the big one) gathers the 4
// neighbours' states and accumulates the central flux plus artificial
// dissipation (and wall pressure or free-stream flux from __constant__
// values set with cudaMemcpyToSymbol), `cfd_time_step` applies one
// Runge-Kutta stage. 2 iterations x 3 RK stages: a device-to-device copy of
// the old state and 7 launches per iteration, queued with no host sync.
// Exercises indirect gathers, long float expressions, constant-memory
// structs, divergent boundary branches and SoA indexing. Checked against a
// host run of the same formulas.
#include <algorithm>
#include <cmath>
#include <vector>

#include "suite.h"

constexpr int kGridX = 128, kGridY = 125;          // the mesh is generated as a shuffled 2-D grid
constexpr int kCells = kGridX * kGridY;            // 16,000
constexpr int kBlock = 192;                        // threads per CTA, as euler3d uses
constexpr int kCellsPadded = (kCells + kBlock - 1) / kBlock * kBlock;
constexpr int kNeighbours = 4, kDims = 3, kVars = 5, kRkStages = 3, kIters = 2;
constexpr int kDensity = 0, kMomentum = 1, kEnergy = kMomentum + kDims;
constexpr int kWall = -1, kFarField = -2;
constexpr float kGamma = 1.4f, kSmoothing = 0.2f;
constexpr float kMach = 1.2f, kAttackDegrees = 3.0f;

// The free stream: conserved variables and the flux they carry.
struct FreeStream {
  float var[kVars];
  float3 flux_mx, flux_my, flux_mz, flux_energy;
};
__constant__ float c_ff_var[kVars];
__constant__ float3 c_ff_flux[4];  // momentum x, y, z rows, then energy

// ---- per-cell physics, shared by the kernels and the host ----

__host__ __device__ inline float3 velocity_of(float density, float3 momentum) {
  return make_float3(momentum.x / density, momentum.y / density, momentum.z / density);
}

__host__ __device__ inline float speed_sqd_of(float3 v) { return v.x * v.x + v.y * v.y + v.z * v.z; }

__host__ __device__ inline float pressure_of(float density, float energy, float speed_sqd) {
  return (kGamma - 1.0f) * (energy - 0.5f * density * speed_sqd);
}

__host__ __device__ inline float sound_speed_of(float density, float pressure) {
  return sqrtf(kGamma * pressure / density);
}

// Flux of momentum (three rows) and of energy carried by one state.
__host__ __device__ inline void flux_of(float3 momentum, float energy, float3 v, float pressure, float3& fx,
                                        float3& fy, float3& fz, float3& fe) {
  fx = make_float3(v.x * momentum.x + pressure, v.x * momentum.y, v.x * momentum.z);
  fy = make_float3(fx.y, v.y * momentum.y + pressure, v.y * momentum.z);
  fz = make_float3(fx.z, fy.z, v.z * momentum.z + pressure);
  float ep = energy + pressure;
  fe = make_float3(v.x * ep, v.y * ep, v.z * ep);
}

__host__ __device__ inline float step_factor_of(float density, float3 momentum, float energy, float area) {
  float3 v = velocity_of(density, momentum);
  float sq = speed_sqd_of(v);
  float p = pressure_of(density, energy, sq);
  float c = sound_speed_of(density, p);
  return 0.5f / (sqrtf(area) * (sqrtf(sq) + c));
}

// Variable v of cell k in a structure-of-arrays state of n cells.
struct Vars {
  const float* p;
  int n;
  __host__ __device__ float operator()(int v, int k) const { return p[v * n + k]; }
};

// The flux into one cell from all its faces; the free stream comes in
// ff_var / ff_flux (constant memory on the device).
__host__ __device__ inline void cell_flux(int i, int n, const int* nbrs, const float* normals, Vars var,
                                          const float* ff_var, const float3* ff_flux, float out[kVars]) {
  float density = var(kDensity, i);
  float3 momentum = make_float3(var(kMomentum + 0, i), var(kMomentum + 1, i), var(kMomentum + 2, i));
  float energy = var(kEnergy, i);
  float3 v = velocity_of(density, momentum);
  float sq = speed_sqd_of(v);
  float speed = sqrtf(sq);
  float p = pressure_of(density, energy, sq);
  float c = sound_speed_of(density, p);
  float3 fx, fy, fz, fe;
  flux_of(momentum, energy, v, p, fx, fy, fz, fe);

  float f_density = 0.0f, f_energy = 0.0f;
  float3 f_mom = make_float3(0.0f, 0.0f, 0.0f);
  for (int j = 0; j < kNeighbours; ++j) {
    int nb = nbrs[j * n + i];
    float3 nrm = make_float3(normals[(j * kDims + 0) * n + i], normals[(j * kDims + 1) * n + i],
                             normals[(j * kDims + 2) * n + i]);
    float nlen = sqrtf(nrm.x * nrm.x + nrm.y * nrm.y + nrm.z * nrm.z);
    if (nb >= 0) {
      float nb_density = var(kDensity, nb);
      float3 nb_mom = make_float3(var(kMomentum + 0, nb), var(kMomentum + 1, nb), var(kMomentum + 2, nb));
      float nb_energy = var(kEnergy, nb);
      float3 nb_v = velocity_of(nb_density, nb_mom);
      float nb_sq = speed_sqd_of(nb_v);
      float nb_p = pressure_of(nb_density, nb_energy, nb_sq);
      float nb_c = sound_speed_of(nb_density, nb_p);
      float3 nfx, nfy, nfz, nfe;
      flux_of(nb_mom, nb_energy, nb_v, nb_p, nfx, nfy, nfz, nfe);
      // Artificial dissipation, scaled by the face and the fastest wave.
      float d = -nlen * kSmoothing * 0.5f * (speed + sqrtf(nb_sq) + c + nb_c);
      f_density += d * (density - nb_density);
      f_energy += d * (energy - nb_energy);
      f_mom.x += d * (momentum.x - nb_mom.x);
      f_mom.y += d * (momentum.y - nb_mom.y);
      f_mom.z += d * (momentum.z - nb_mom.z);
      // Central flux, one normal component at a time.
      float h = 0.5f * nrm.x;
      f_density += h * (nb_mom.x + momentum.x);
      f_energy += h * (nfe.x + fe.x);
      f_mom.x += h * (nfx.x + fx.x);
      f_mom.y += h * (nfy.x + fy.x);
      f_mom.z += h * (nfz.x + fz.x);
      h = 0.5f * nrm.y;
      f_density += h * (nb_mom.y + momentum.y);
      f_energy += h * (nfe.y + fe.y);
      f_mom.x += h * (nfx.y + fx.y);
      f_mom.y += h * (nfy.y + fy.y);
      f_mom.z += h * (nfz.y + fz.y);
      h = 0.5f * nrm.z;
      f_density += h * (nb_mom.z + momentum.z);
      f_energy += h * (nfe.z + fe.z);
      f_mom.x += h * (nfx.z + fx.z);
      f_mom.y += h * (nfy.z + fy.z);
      f_mom.z += h * (nfz.z + fz.z);
    } else if (nb == kWall) {
      f_mom.x += nrm.x * p;
      f_mom.y += nrm.y * p;
      f_mom.z += nrm.z * p;
    } else if (nb == kFarField) {
      float h = 0.5f * nrm.x;
      f_density += h * (ff_var[kMomentum + 0] + momentum.x);
      f_energy += h * (ff_flux[3].x + fe.x);
      f_mom.x += h * (ff_flux[0].x + fx.x);
      f_mom.y += h * (ff_flux[1].x + fy.x);
      f_mom.z += h * (ff_flux[2].x + fz.x);
      h = 0.5f * nrm.y;
      f_density += h * (ff_var[kMomentum + 1] + momentum.y);
      f_energy += h * (ff_flux[3].y + fe.y);
      f_mom.x += h * (ff_flux[0].y + fx.y);
      f_mom.y += h * (ff_flux[1].y + fy.y);
      f_mom.z += h * (ff_flux[2].y + fz.y);
      h = 0.5f * nrm.z;
      f_density += h * (ff_var[kMomentum + 2] + momentum.z);
      f_energy += h * (ff_flux[3].z + fe.z);
      f_mom.x += h * (ff_flux[0].z + fx.z);
      f_mom.y += h * (ff_flux[1].z + fy.z);
      f_mom.z += h * (ff_flux[2].z + fz.z);
    }
  }
  out[kDensity] = f_density;
  out[kMomentum + 0] = f_mom.x;
  out[kMomentum + 1] = f_mom.y;
  out[kMomentum + 2] = f_mom.z;
  out[kEnergy] = f_energy;
}

// ---- kernels ----

__global__ void cfd_init(int n, float* vars) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  for (int v = 0; v < kVars; ++v) vars[v * n + i] = c_ff_var[v];
}

__global__ void cfd_step_factor(int n, const float* vars, const float* areas, float* step) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float3 mom = make_float3(vars[(kMomentum + 0) * n + i], vars[(kMomentum + 1) * n + i],
                           vars[(kMomentum + 2) * n + i]);
  step[i] = step_factor_of(vars[kDensity * n + i], mom, vars[kEnergy * n + i], areas[i]);
}

__global__ void cfd_flux(int n, const int* nbrs, const float* normals, const float* vars, float* fluxes) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float f[kVars];
  cell_flux(i, n, nbrs, normals, Vars{vars, n}, c_ff_var, c_ff_flux, f);
  for (int v = 0; v < kVars; ++v) fluxes[v * n + i] = f[v];
}

__global__ void cfd_time_step(int stage, int n, const float* old_vars, float* vars, const float* step,
                              const float* fluxes) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float factor = step[i] / float(kRkStages + 1 - stage);
  for (int v = 0; v < kVars; ++v) vars[v * n + i] = old_vars[v * n + i] + factor * fluxes[v * n + i];
}

// ---- host side ----

FreeStream free_stream() {
  FreeStream f;
  const float angle = 3.1415926535f * kAttackDegrees / 180.0f;
  const float density = 1.4f, pressure = 1.0f;
  float c = std::sqrt(kGamma * pressure / density), speed = kMach * c;
  float3 v = make_float3(speed * std::cos(angle), speed * std::sin(angle), 0.0f);
  f.var[kDensity] = density;
  f.var[kMomentum + 0] = density * v.x;
  f.var[kMomentum + 1] = density * v.y;
  f.var[kMomentum + 2] = density * v.z;
  f.var[kEnergy] = density * (0.5f * speed * speed) + pressure / (kGamma - 1.0f);
  float3 mom = make_float3(f.var[kMomentum], f.var[kMomentum + 1], f.var[kMomentum + 2]);
  flux_of(mom, f.var[kEnergy], v, pressure, f.flux_mx, f.flux_my, f.flux_mz, f.flux_energy);
  return f;
}

struct Mesh {
  std::vector<int> nbrs;        // kNeighbours x kCellsPadded
  std::vector<float> normals;   // (kNeighbours * kDims) x kCellsPadded
  std::vector<float> areas;     // kCellsPadded
};

// A 2-D grid of cells with the numbering shuffled inside windows of 256, so
// neighbour indices look like an unstructured mesh's: mostly near, not in
// order. Bottom row faces are walls, the other outer faces far field. Face
// normals point out of the cell with a little noise; padding cells copy the
// last real cell, as euler3d pads.
Mesh make_mesh() {
  Lcg rng{0xCFDu};
  std::vector<int> id(kCells);
  for (int k = 0; k < kCells; ++k) id[k] = k;
  for (int w = 0; w < kCells; w += 256) {
    int len = std::min(256, kCells - w);
    for (int k = len - 1; k > 0; --k) std::swap(id[w + k], id[w + int(rng.next() % uint32_t(k + 1))]);
  }
  Mesh m;
  const int n = kCellsPadded;
  m.nbrs.assign(size_t(kNeighbours) * n, 0);
  m.normals.assign(size_t(kNeighbours) * kDims * n, 0.0f);
  m.areas.assign(n, 0.0f);
  const int dx[kNeighbours] = {-1, 1, 0, 0}, dy[kNeighbours] = {0, 0, -1, 1};
  for (int y = 0; y < kGridY; ++y)
    for (int x = 0; x < kGridX; ++x) {
      int c = id[y * kGridX + x];
      m.areas[c] = 0.8f + 0.4f * rng.uniform();
      for (int j = 0; j < kNeighbours; ++j) {
        int nx = x + dx[j], ny = y + dy[j];
        int nb;
        if (ny < 0)
          nb = kWall;
        else if (nx < 0 || nx >= kGridX || ny >= kGridY)
          nb = kFarField;
        else
          nb = id[ny * kGridX + nx];
        m.nbrs[j * n + c] = nb;
        float len = 0.9f + 0.2f * rng.uniform();
        float nrm[kDims] = {dx[j] * len + 0.05f * (rng.uniform() - 0.5f), dy[j] * len + 0.05f * (rng.uniform() - 0.5f),
                            0.05f * (rng.uniform() - 0.5f)};
        for (int d = 0; d < kDims; ++d) m.normals[(j * kDims + d) * n + c] = nrm[d];
      }
    }
  int last = kCells - 1;
  for (int c = kCells; c < n; ++c) {
    m.areas[c] = m.areas[last];
    for (int j = 0; j < kNeighbours; ++j) {
      m.nbrs[j * n + c] = m.nbrs[j * n + last];
      for (int d = 0; d < kDims; ++d) m.normals[(j * kDims + d) * n + c] = m.normals[(j * kDims + d) * n + last];
    }
  }
  return m;
}

std::vector<float> host_solve(const Mesh& m, const FreeStream& ff) {
  const int n = kCellsPadded;
  std::vector<float> vars(size_t(kVars) * n), old(vars.size()), fluxes(vars.size()), step(n);
  for (int v = 0; v < kVars; ++v)
    for (int i = 0; i < n; ++i) vars[v * n + i] = ff.var[v];
  const float3 ff_flux[4] = {ff.flux_mx, ff.flux_my, ff.flux_mz, ff.flux_energy};
  for (int it = 0; it < kIters; ++it) {
    old = vars;
    for (int i = 0; i < n; ++i)
      step[i] = step_factor_of(vars[kDensity * n + i],
                               make_float3(vars[(kMomentum + 0) * n + i], vars[(kMomentum + 1) * n + i],
                                           vars[(kMomentum + 2) * n + i]),
                               vars[kEnergy * n + i], m.areas[i]);
    for (int stage = 0; stage < kRkStages; ++stage) {
      for (int i = 0; i < n; ++i) {
        float f[kVars];
        cell_flux(i, n, m.nbrs.data(), m.normals.data(), Vars{vars.data(), n}, ff.var, ff_flux, f);
        for (int v = 0; v < kVars; ++v) fluxes[v * n + i] = f[v];
      }
      for (int i = 0; i < n; ++i) {
        float factor = step[i] / float(kRkStages + 1 - stage);
        for (int v = 0; v < kVars; ++v) vars[v * n + i] = old[v * n + i] + factor * fluxes[v * n + i];
      }
    }
  }
  return vars;
}

int main() {
  const int n = kCellsPadded;
  Mesh mesh = make_mesh();
  FreeStream ff = free_stream();
  const float3 ff_flux[4] = {ff.flux_mx, ff.flux_my, ff.flux_mz, ff.flux_energy};
  CHECK(cudaMemcpyToSymbol(c_ff_var, ff.var, sizeof(ff.var)));
  CHECK(cudaMemcpyToSymbol(c_ff_flux, ff_flux, sizeof(ff_flux)));

  int* d_nbrs = to_device(mesh.nbrs);
  float *d_normals = to_device(mesh.normals), *d_areas = to_device(mesh.areas);
  float *d_vars = device_alloc<float>(size_t(kVars) * n), *d_old = device_alloc<float>(size_t(kVars) * n);
  float *d_fluxes = device_alloc<float>(size_t(kVars) * n), *d_step = device_alloc<float>(n);
  const int ctas = n / kBlock;

  EventTimer timer;
  int launches = 0;
  timer.start();
  cfd_init<<<ctas, kBlock>>>(n, d_vars);
  ++launches;
  for (int it = 0; it < kIters; ++it) {
    CHECK(cudaMemcpy(d_old, d_vars, size_t(kVars) * n * sizeof(float), cudaMemcpyDeviceToDevice));
    cfd_step_factor<<<ctas, kBlock>>>(n, d_vars, d_areas, d_step);
    ++launches;
    for (int stage = 0; stage < kRkStages; ++stage) {
      cfd_flux<<<ctas, kBlock>>>(n, d_nbrs, d_normals, d_vars, d_fluxes);
      cfd_time_step<<<ctas, kBlock>>>(stage, n, d_old, d_vars, d_step, d_fluxes);
      launches += 2;
    }
    CHECK(cudaGetLastError());
  }
  float ms = timer.stop_ms();
  CHECK_LAUNCH();
  std::vector<float> result = to_host(d_vars, size_t(kVars) * n);

  std::vector<float> want = host_solve(mesh, ff);
  long bad = 0;
  double max_change = 0;
  for (int v = 0; v < kVars; ++v)
    for (int i = 0; i < kCells; ++i) {
      size_t k = size_t(v) * n + i;
      bad += !close_enough(result[k], want[k], 1e-4, 1e-5);
      max_change = std::fmax(max_change, std::fabs(want[k] - ff.var[v]));
    }
  // A solver that did nothing would match a reference that did nothing.
  if (!(max_change > 1e-3)) ++bad;

  print_timing(ms, launches);
  device_free(d_nbrs, d_normals, d_areas, d_vars, d_old, d_fluxes, d_step);
  return verdict("cfd", bad);
}
