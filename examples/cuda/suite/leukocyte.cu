// Suite benchmark: the GPU part of Rodinia's leukocyte (cell detection in
// a microscopy frame), simplified, on a 256 x 256 synthetic frame: a dim
// noisy background with 14 bright rings (cells) of radius 7 to 11. The host
// computes the intensity gradients (central differences, as the original
// does on the CPU) and the sample points: for each of 7 radii (6 to 12) and
// each of 64 angles the rounded offset of the point on that circle, and the
// angles' cosines and sines, all in __constant__ memory.
// `gicov` (one CTA per interior row, one thread per interior column: 228
// threads, a ragged last warp) scores every pixel at least 14 from the
// border: for each radius it walks the 64 points, fetches the x and y
// gradients there through two float texture objects on linear memory,
// projects them on the outward normal and keeps a running mean and variance
// (Welford's update, a division per point); the score is the largest
// mean^2 / variance over the radii (0 in the margin, which cudaMemset
// clears). `dilate` (one thread per pixel) takes the maximum of the scores
// under a disc-shaped structuring element of radius 10 (21 x 21 flags in
// __constant__ memory) with plain global loads, clipped at the border.
// Exercises constant-memory broadcasts in long uniform loops, texture
// fetches at scattered offsets, an IEEE division per sample in a serial
// running-statistics chain, a CTA size that is not a multiple of 32, and a
// 441-step gather loop with uniform branches. The scores are checked
// against the host with a tolerance; the dilation, run on the host over the
// GPU's scores, must match exactly.
#include <cmath>
#include <cstring>
#include <vector>

#include "suite.h"

constexpr int kRows = 256, kCols = 256;
constexpr int kRadii = 7, kMinRadius = 6, kMaxRadius = kMinRadius + kRadii - 1;
constexpr int kPoints = 64;                     // samples per circle
constexpr int kMargin = kMaxRadius + 2;         // pixels not scored next to the border
constexpr int kInRows = kRows - 2 * kMargin;    // 228 scored rows ...
constexpr int kInCols = kCols - 2 * kMargin;    // ... and columns
constexpr int kStrelRadius = 10, kStrel = 2 * kStrelRadius + 1;
constexpr int kDilateThreads = 256;
constexpr int kCells = 14;
static_assert(kRows * kCols % kDilateThreads == 0, "whole dilate CTAs only");

__constant__ float c_cos[kPoints], c_sin[kPoints];
__constant__ int c_dx[kRadii * kPoints], c_dy[kRadii * kPoints];
__constant__ int c_strel[kStrel * kStrel];

// ---- shared by the kernels and the host ----

// Welford's running mean and sum of squared deviations over one circle.
struct Running {
  float mean = 0.0f, m2 = 0.0f;
  __host__ __device__ void add(float p, int k) {
    float delta = p - mean;
    mean += delta / float(k + 1);
    m2 += delta * (p - mean);
  }
  __host__ __device__ float score() const {
    float var = m2 / float(kPoints - 1);
    return mean * mean / var;
  }
};

// ---- kernels ----

__global__ void gicov(cudaTextureObject_t grad_x, cudaTextureObject_t grad_y, float* out) {
  int y = blockIdx.x + kMargin, x = threadIdx.x + kMargin;
  float best = 0.0f;
  for (int r = 0; r < kRadii; ++r) {
    Running run;
    for (int k = 0; k < kPoints; ++k) {
      int at = (y + c_dy[r * kPoints + k]) * kCols + x + c_dx[r * kPoints + k];
      float p = tex1Dfetch<float>(grad_x, at) * c_cos[k] + tex1Dfetch<float>(grad_y, at) * c_sin[k];
      run.add(p, k);
    }
    float s = run.score();
    if (s > best) best = s;
  }
  out[y * kCols + x] = best;
}

__global__ void dilate(const float* __restrict__ in, float* out) {
  int p = blockIdx.x * kDilateThreads + threadIdx.x;
  int y = p / kCols, x = p % kCols;
  float best = 0.0f;  // the scores are never negative
  for (int dy = -kStrelRadius; dy <= kStrelRadius; ++dy)
    for (int dx = -kStrelRadius; dx <= kStrelRadius; ++dx) {
      if (!c_strel[(dy + kStrelRadius) * kStrel + dx + kStrelRadius]) continue;
      int yy = y + dy, xx = x + dx;
      if (yy < 0 || yy >= kRows || xx < 0 || xx >= kCols) continue;
      best = fmaxf(best, in[yy * kCols + xx]);
    }
  out[p] = best;
}

// ---- host side ----

std::vector<float> make_frame() {
  std::vector<float> img(size_t(kRows) * kCols);
  XorShift32 rng{0x1E0C0CE7u};
  for (float& v : img) v = 0.2f + 0.05f * rng.uniform_pm1();
  for (int c = 0; c < kCells; ++c) {
    float cy = 20.0f + 216.0f * rng.uniform(), cx = 20.0f + 216.0f * rng.uniform();
    float radius = 7.0f + 4.0f * rng.uniform();
    for (int y = 0; y < kRows; ++y)
      for (int x = 0; x < kCols; ++x) {
        float d = std::sqrt((y - cy) * (y - cy) + (x - cx) * (x - cx)) - radius;
        if (std::fabs(d) < 4.0f) img[y * kCols + x] += 0.6f * std::exp(-0.5f * d * d);
      }
  }
  return img;
}

// Central differences inside, one-sided at the border.
void gradients(const std::vector<float>& img, std::vector<float>& gx, std::vector<float>& gy) {
  for (int y = 0; y < kRows; ++y)
    for (int x = 0; x < kCols; ++x) {
      int x0 = x > 0 ? x - 1 : x, x1 = x < kCols - 1 ? x + 1 : x;
      int y0 = y > 0 ? y - 1 : y, y1 = y < kRows - 1 ? y + 1 : y;
      gx[y * kCols + x] = (img[y * kCols + x1] - img[y * kCols + x0]) / float(x1 - x0);
      gy[y * kCols + x] = (img[y1 * kCols + x] - img[y0 * kCols + x]) / float(y1 - y0);
    }
}

struct Tables {
  std::vector<float> cosv, sinv;
  std::vector<int> dx, dy, strel;
};

Tables make_tables() {
  Tables t;
  t.cosv.resize(kPoints);
  t.sinv.resize(kPoints);
  t.dx.resize(kRadii * kPoints);
  t.dy.resize(kRadii * kPoints);
  const double two_pi = 6.283185307179586;
  for (int k = 0; k < kPoints; ++k) {
    double theta = two_pi * k / kPoints;
    t.cosv[k] = float(std::cos(theta));
    t.sinv[k] = float(std::sin(theta));
    for (int r = 0; r < kRadii; ++r) {
      t.dx[r * kPoints + k] = int(std::lround((kMinRadius + r) * std::cos(theta)));
      t.dy[r * kPoints + k] = int(std::lround((kMinRadius + r) * std::sin(theta)));
    }
  }
  t.strel.resize(kStrel * kStrel);
  for (int dy = -kStrelRadius; dy <= kStrelRadius; ++dy)
    for (int dx = -kStrelRadius; dx <= kStrelRadius; ++dx)
      t.strel[(dy + kStrelRadius) * kStrel + dx + kStrelRadius] = dx * dx + dy * dy <= kStrelRadius * kStrelRadius;
  return t;
}

std::vector<float> host_gicov(const std::vector<float>& gx, const std::vector<float>& gy, const Tables& t) {
  std::vector<float> out(size_t(kRows) * kCols, 0.0f);
  for (int y = kMargin; y < kRows - kMargin; ++y)
    for (int x = kMargin; x < kCols - kMargin; ++x) {
      float best = 0.0f;
      for (int r = 0; r < kRadii; ++r) {
        Running run;
        for (int k = 0; k < kPoints; ++k) {
          int at = (y + t.dy[r * kPoints + k]) * kCols + x + t.dx[r * kPoints + k];
          run.add(gx[at] * t.cosv[k] + gy[at] * t.sinv[k], k);
        }
        float s = run.score();
        if (s > best) best = s;
      }
      out[y * kCols + x] = best;
    }
  return out;
}

std::vector<float> host_dilate(const std::vector<float>& in, const Tables& t) {
  std::vector<float> out(in.size());
  for (int y = 0; y < kRows; ++y)
    for (int x = 0; x < kCols; ++x) {
      float best = 0.0f;
      for (int dy = -kStrelRadius; dy <= kStrelRadius; ++dy)
        for (int dx = -kStrelRadius; dx <= kStrelRadius; ++dx) {
          int yy = y + dy, xx = x + dx;
          if (!t.strel[(dy + kStrelRadius) * kStrel + dx + kStrelRadius] || yy < 0 || yy >= kRows || xx < 0 ||
              xx >= kCols)
            continue;
          best = std::fmax(best, in[yy * kCols + xx]);
        }
      out[y * kCols + x] = best;
    }
  return out;
}

cudaTextureObject_t float_texture(float* d, size_t n) {
  cudaResourceDesc res;
  std::memset(&res, 0, sizeof res);
  res.resType = cudaResourceTypeLinear;
  res.res.linear.devPtr = d;
  res.res.linear.desc = cudaCreateChannelDesc<float>();
  res.res.linear.sizeInBytes = n * sizeof(float);
  cudaTextureDesc td;
  std::memset(&td, 0, sizeof td);
  td.readMode = cudaReadModeElementType;
  cudaTextureObject_t tex = 0;
  CHECK(cudaCreateTextureObject(&tex, &res, &td, nullptr));
  return tex;
}

int main() {
  const size_t n = size_t(kRows) * kCols;
  std::vector<float> img = make_frame(), gx(n), gy(n);
  gradients(img, gx, gy);
  Tables t = make_tables();
  CHECK(cudaMemcpyToSymbol(c_cos, t.cosv.data(), kPoints * sizeof(float)));
  CHECK(cudaMemcpyToSymbol(c_sin, t.sinv.data(), kPoints * sizeof(float)));
  CHECK(cudaMemcpyToSymbol(c_dx, t.dx.data(), t.dx.size() * sizeof(int)));
  CHECK(cudaMemcpyToSymbol(c_dy, t.dy.data(), t.dy.size() * sizeof(int)));
  CHECK(cudaMemcpyToSymbol(c_strel, t.strel.data(), t.strel.size() * sizeof(int)));

  float *d_gx = to_device(gx), *d_gy = to_device(gy);
  float* d_score = device_zeros<float>(n);
  float* d_dilated = device_alloc<float>(n);
  cudaTextureObject_t tex_gx = float_texture(d_gx, n), tex_gy = float_texture(d_gy, n);

  EventTimer timer;
  timer.start();
  gicov<<<kInRows, kInCols>>>(tex_gx, tex_gy, d_score);
  dilate<<<int(n) / kDilateThreads, kDilateThreads>>>(d_score, d_dilated);
  CHECK(cudaGetLastError());
  float ms = timer.stop_ms();
  CHECK_LAUNCH();
  std::vector<float> score = to_host(d_score, n), dilated = to_host(d_dilated, n);

  std::vector<float> want = host_gicov(gx, gy, t);
  long bad = 0;
  float top = 0.0f;
  for (size_t i = 0; i < n; ++i) {
    bad += !close_enough(score[i], want[i], 1e-3, 1e-4);
    if (want[i] > top) top = want[i];
  }
  std::vector<float> want_dilated = host_dilate(score, t);
  for (size_t i = 0; i < n; ++i) bad += dilated[i] != want_dilated[i];
  std::printf("largest score %.3f\n", top);

  print_timing(ms, 2);
  CHECK(cudaDestroyTextureObject(tex_gx));
  CHECK(cudaDestroyTextureObject(tex_gy));
  device_free(d_gx, d_gy, d_score, d_dilated);
  return verdict("leukocyte", bad);
}
