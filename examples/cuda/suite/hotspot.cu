// Suite benchmark: HotSpot-style thermal simulation of a chip on a 512 x 512
// grid (a temperature and a power array). Each launch of `hotspot_step`
// advances two time steps on 16 x 16 shared-memory tiles: a tile is loaded
// with a two-cell halo, the halo ring is recomputed step by step ("pyramid"),
// and only the 12 x 12 interior is written back. 20 time steps ping-pong two
// temperature buffers: 10 launches queued with no host synchronisation.
// Exercises 2-D shared-memory tiles, __syncthreads inside a loop, divergent
// edge handling and overlapping (redundantly computed) halos.
#include <utility>
#include <vector>

#include "suite.h"

constexpr int kN = 512;       // grid rows and columns
constexpr int kTile = 16;     // CTA is kTile x kTile threads
constexpr int kPyramid = 2;   // time steps per launch
constexpr int kSteps = 20;    // time steps in all
constexpr int kOut = kTile - 2 * kPyramid;  // cells each CTA writes per side
static_assert(kSteps % kPyramid == 0, "whole launches only");

// Per-cell update factors, from the chip's physical constants.
struct Coeffs {
  float step_over_cap;  // time step / thermal capacitance
  float inv_rx, inv_ry, inv_rz;
  float ambient;
};

Coeffs chip_coeffs(int n) {
  const double thickness = 0.0005, side = 0.016;  // metres
  const double spec_heat = 1.75e6, k_si = 100.0, factor = 0.5;
  const double max_pd = 3.0e6, precision = 0.001, ambient = 80.0;
  double cell_h = side / n, cell_w = side / n;
  double cap = factor * spec_heat * thickness * cell_w * cell_h;
  double rx = cell_w / (2.0 * k_si * thickness * cell_h);
  double ry = cell_h / (2.0 * k_si * thickness * cell_w);
  double rz = thickness / (k_si * cell_h * cell_w);
  double max_slope = max_pd / (factor * thickness * spec_heat);
  double dt = precision / max_slope;
  return {float(dt / cap), float(1.0 / rx), float(1.0 / ry), float(1.0 / rz), float(ambient)};
}

// One explicit step at a cell, given its four neighbours (edge cells pass
// themselves for a missing neighbour). Shared by the kernel and the host.
__host__ __device__ inline float cell_update(float c, float n, float s, float w, float e, float p,
                                             const Coeffs& k) {
  float flow = p + (n + s - 2.0f * c) * k.inv_ry + (w + e - 2.0f * c) * k.inv_rx + (k.ambient - c) * k.inv_rz;
  return c + k.step_over_cap * flow;
}

__global__ void hotspot_step(const float* power, const float* t_in, float* t_out, int n, int steps, Coeffs k) {
  __shared__ float temp[kTile][kTile];
  __shared__ float pwr[kTile][kTile];
  __shared__ float next[kTile][kTile];
  int tx = threadIdx.x, ty = threadIdx.y;
  int out = kTile - 2 * steps;
  int x = blockIdx.x * out - steps + tx;
  int y = blockIdx.y * out - steps + ty;
  bool inside = x >= 0 && x < n && y >= 0 && y < n;
  if (inside) {
    temp[ty][tx] = t_in[y * n + x];
    pwr[ty][tx] = power[y * n + x];
  }
  __syncthreads();
  // Neighbours in the tile; at the chip edge a cell stands in for the one missing.
  int west = x == 0 ? tx : tx - 1, east = x == n - 1 ? tx : tx + 1;
  int north = y == 0 ? ty : ty - 1, south = y == n - 1 ? ty : ty + 1;
  bool computed = false;
  for (int i = 0; i < steps; ++i) {
    // After step i only cells at least i + 1 from the tile edge are still valid.
    computed = inside && tx > i && tx < kTile - 1 - i && ty > i && ty < kTile - 1 - i;
    if (computed)
      next[ty][tx] = cell_update(temp[ty][tx], temp[north][tx], temp[south][tx], temp[ty][west], temp[ty][east],
                                 pwr[ty][tx], k);
    __syncthreads();
    if (i == steps - 1) break;
    if (computed) temp[ty][tx] = next[ty][tx];
    __syncthreads();
  }
  if (computed) t_out[y * n + x] = next[ty][tx];
}

void make_input(std::vector<float>& temp, std::vector<float>& power) {
  XorShift32 rng{0x1234567u};
  for (int y = 0; y < kN; ++y)
    for (int x = 0; x < kN; ++x) {
      temp[y * kN + x] = 320.0f + 25.0f * rng.uniform();
      bool hot = (x / 64 + y / 64) % 3 == 0;  // a few hot functional units
      power[y * kN + x] = (hot ? 0.4f : 0.05f) * rng.uniform();
    }
}

void host_step(const std::vector<float>& power, const std::vector<float>& in, std::vector<float>& out,
               const Coeffs& k) {
  for (int y = 0; y < kN; ++y)
    for (int x = 0; x < kN; ++x) {
      int i = y * kN + x;
      float n = in[y == 0 ? i : i - kN], s = in[y == kN - 1 ? i : i + kN];
      float w = in[x == 0 ? i : i - 1], e = in[x == kN - 1 ? i : i + 1];
      out[i] = cell_update(in[i], n, s, w, e, power[i], k);
    }
}

int main() {
  const size_t cells = size_t(kN) * kN;
  std::vector<float> temp(cells), power(cells), result(cells);
  make_input(temp, power);
  Coeffs k = chip_coeffs(kN);

  float *d_power = to_device(power), *d_a = to_device(temp), *d_b = device_alloc<float>(cells);

  EventTimer timer;
  dim3 block(kTile, kTile), grid((kN + kOut - 1) / kOut, (kN + kOut - 1) / kOut);
  int launches = 0;
  timer.start();
  for (int t = 0; t < kSteps; t += kPyramid) {
    hotspot_step<<<grid, block>>>(d_power, d_a, d_b, kN, kPyramid, k);
    CHECK(cudaGetLastError());
    ++launches;
    std::swap(d_a, d_b);
  }
  float ms = timer.stop_ms();
  CHECK_LAUNCH();
  copy_to_host(result, d_a);

  std::vector<float> next(cells);
  for (int t = 0; t < kSteps; ++t) {
    host_step(power, temp, next, k);
    temp.swap(next);
  }
  long bad = 0;
  for (size_t i = 0; i < cells; ++i) bad += !close_enough(result[i], temp[i], 1e-5, 1e-3);

  print_timing(ms, launches);
  device_free(d_power, d_a, d_b);
  return verdict("hotspot", bad);
}
