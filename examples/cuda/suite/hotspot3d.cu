// Suite benchmark: 3-D thermal simulation of a stacked chip in the style of
// Rodinia's hotspot3D (its "opt1" kernel). The chip is a 256 x 256 grid of
// 8 layers (x fastest, then y, then z), with a temperature and a power value
// per cell. Each thread of a 64 x 4 CTA owns one (x, y) column and walks it
// bottom to top, keeping the cell below, the cell itself and the cell above
// in registers, so each step loads only the next layer up plus the four
// in-plane neighbours; the bottom and top layers use themselves for the
// missing neighbour, as do the chip's side faces. Each cell gets the 7-point
// update: weighted neighbours, its power and the ambient temperature through
// the top. 10 time steps ping-pong two temperature buffers: 10 launches
// queued with no host synchronisation. Exercises a 2-D grid over a 3-D
// array, a per-thread loop with a rotating register window, clamped
// neighbour indices and long strides between layers. Checked against the
// same steps on the host.
#include <utility>
#include <vector>

#include "suite.h"

constexpr int kNx = 256, kNy = 256, kNz = 8;
constexpr int kSteps = 10;
constexpr int kBlockX = 64, kBlockY = 4;
constexpr float kAmbient = 80.0f;
static_assert(kNx % kBlockX == 0 && kNy % kBlockY == 0, "whole CTAs only");

// Weights of the 7-point update; cc makes the weights (with ambient) sum to one.
struct Weights {
  float ce, cw, cn, cs, ct, cb, cc;
  float step_over_cap;  // multiplies the cell's power
};

Weights chip_weights() {
  const float chip_height = 0.016f, chip_width = 0.016f, t_chip = 0.0005f;  // metres
  const float k_si = 100.0f, spec_heat = 1.75e6f, factor = 0.5f, max_pd = 3.0e6f, precision = 0.001f;
  float dx = chip_height / kNx, dy = chip_width / kNy, dz = t_chip / kNz;
  float cap = factor * spec_heat * t_chip * dx * dy;
  float rx = dy / (2.0f * k_si * t_chip * dx);
  float ry = dx / (2.0f * k_si * t_chip * dy);
  float rz = dz / (k_si * dx * dy);
  float max_slope = max_pd / (factor * t_chip * spec_heat);
  float dt = precision / max_slope;
  Weights w;
  w.step_over_cap = dt / cap;
  w.ce = w.cw = w.step_over_cap / rx;
  w.cn = w.cs = w.step_over_cap / ry;
  w.ct = w.cb = w.step_over_cap / rz;
  w.cc = 1.0f - (2.0f * w.ce + 2.0f * w.cn + 3.0f * w.ct);
  return w;
}

__host__ __device__ inline float cell(float c, float w, float e, float n, float s, float b, float t, float p,
                                      const Weights& k) {
  return k.cc * c + k.cw * w + k.ce * e + k.cs * s + k.cn * n + k.cb * b + k.ct * t + k.step_over_cap * p +
         k.ct * kAmbient;
}

__global__ void hotspot3d_step(const float* power, const float* t_in, float* t_out, int nx, int ny, int nz,
                               Weights k) {
  int x = blockDim.x * blockIdx.x + threadIdx.x;
  int y = blockDim.y * blockIdx.y + threadIdx.y;
  int c = x + y * nx;
  int layer = nx * ny;
  int w = x == 0 ? c : c - 1;
  int e = x == nx - 1 ? c : c + 1;
  int n = y == 0 ? c : c - nx;
  int s = y == ny - 1 ? c : c + nx;
  // below / here / above: the column window; the bottom layer is its own "below".
  float below = t_in[c], here = below, above = t_in[c + layer];
  t_out[c] = cell(here, t_in[w], t_in[e], t_in[n], t_in[s], below, above, power[c], k);
  for (int z = 1; z < nz - 1; ++z) {
    c += layer, w += layer, e += layer, n += layer, s += layer;
    below = here;
    here = above;
    above = t_in[c + layer];
    t_out[c] = cell(here, t_in[w], t_in[e], t_in[n], t_in[s], below, above, power[c], k);
  }
  c += layer, w += layer, e += layer, n += layer, s += layer;
  below = here;
  here = above;  // the top layer is its own "above"
  t_out[c] = cell(here, t_in[w], t_in[e], t_in[n], t_in[s], below, here, power[c], k);
}

void host_step(const std::vector<float>& power, const std::vector<float>& in, std::vector<float>& out,
               const Weights& k) {
  const int layer = kNx * kNy;
  for (int z = 0; z < kNz; ++z)
    for (int y = 0; y < kNy; ++y)
      for (int x = 0; x < kNx; ++x) {
        int c = z * layer + y * kNx + x;
        float w = in[x == 0 ? c : c - 1], e = in[x == kNx - 1 ? c : c + 1];
        float n = in[y == 0 ? c : c - kNx], s = in[y == kNy - 1 ? c : c + kNx];
        float b = in[z == 0 ? c : c - layer], t = in[z == kNz - 1 ? c : c + layer];
        out[c] = cell(in[c], w, e, n, s, b, t, power[c], k);
      }
}

int main() {
  const size_t cells = size_t(kNx) * kNy * kNz;
  std::vector<float> temp(cells), power(cells);
  XorShift32 rng{0x7E3D5A11u};
  for (size_t i = 0; i < cells; ++i) {
    temp[i] = 320.0f + 20.0f * rng.uniform();
    power[i] = 0.005f * rng.uniform();
  }
  Weights k = chip_weights();

  float *d_power = to_device(power), *d_a = to_device(temp), *d_b = device_alloc<float>(cells);
  EventTimer timer;
  dim3 block(kBlockX, kBlockY), grid(kNx / kBlockX, kNy / kBlockY);
  int launches = 0;
  timer.start();
  for (int t = 0; t < kSteps; ++t) {
    hotspot3d_step<<<grid, block>>>(d_power, d_a, d_b, kNx, kNy, kNz, k);
    CHECK(cudaGetLastError());
    ++launches;
    std::swap(d_a, d_b);
  }
  float ms = timer.stop_ms();
  CHECK_LAUNCH();
  std::vector<float> result = to_host(d_a, cells);

  std::vector<float> next(cells);
  for (int t = 0; t < kSteps; ++t) {
    host_step(power, temp, next, k);
    temp.swap(next);
  }
  long bad = 0;
  for (size_t i = 0; i < cells; ++i) bad += !close_enough(result[i], temp[i], 1e-5, 1e-3);

  print_timing(ms, launches);
  device_free(d_power, d_a, d_b);
  return verdict("hotspot3d", bad);
}
