// Suite benchmark: a particle filter tracking a bright disk through a noisy
// 128 x 128 video, in the style of Rodinia's particlefilter (float version).
// 4,096 particles, 5 frames after the first; per frame five launches:
// `pf_likelihood` moves every particle by a Gaussian step drawn from its own
// LCG stream (integer multiply-add and remainder, then Box-Muller with
// logf / cosf / sqrtf; the move itself in double, from unsuffixed literals
// as the original), sums a likelihood over the 69 pixels of a disk
// around it (8-bit pixel loads, rounding, clamps), scales its weight by
// expf of it and reduces the weights of the CTA in shared memory; `pf_sum`
// (one thread, as the original) adds the per-CTA sums; `pf_normalize`
// divides the weights; `pf_cdf` (one CTA) builds the CDF with a single
// thread's running sum and draws the systematic-resampling offset (fmodf
// wraps it); `pf_find_index` lets each particle search the CDF linearly for
// its resampling slot and copy that particle's position. 25 launches queued
// with no host synchronisation; positions, weights and the CDF are kept per
// frame. Exercises long per-thread searches, integer
// LCG arithmetic, transcendental functions, byte loads and one-thread
// kernels. Checked step by step, frame by frame, against the host.
#include <cmath>
#include <cstdint>
#include <vector>

#include "suite.h"

constexpr int kW = 128, kH = 128, kFrames = 6;  // frame 0 is where the particles start
constexpr int kParticles = 4096, kBlock = 256, kCtas = kParticles / kBlock;
constexpr int kRadius = 5;
constexpr int kLcgA = 1103515245, kLcgC = 12345, kLcgM = 2147483647;
constexpr float kPi = 3.14159265358979f;
static_assert(kParticles % kBlock == 0, "whole CTAs only");

// ---- shared by the kernels and the host ----

// Uniform in [0, 1) from a per-particle LCG stream (the state is an int and
// the remainder may be negative, as in the original).
__host__ __device__ inline float randu(int* seed, int i) {
  int num = int(unsigned(kLcgA) * unsigned(seed[i]) + unsigned(kLcgC));
  seed[i] = num % kLcgM;
  return fabsf(seed[i] / float(kLcgM));
}

__host__ __device__ inline float randn(int* seed, int i) {
  float u = randu(seed, i), v = randu(seed, i);
  float c = cosf(2.0f * kPi * v);
  float r = -2.0f * logf(u);
  return sqrtf(r) * c;
}

// Likelihood of a particle at (x, y) in frame `frame`: bright (228) inside
// the object, dark (100) outside.
__host__ __device__ inline float likelihood_at(const unsigned char* video, int frame, float x, float y,
                                               const int* disk, int disk_len) {
  int cx = int(roundf(x)), cy = int(roundf(y));
  float sum = 0.0f;
  for (int k = 0; k < disk_len; ++k) {
    int px = min(max(cx + disk[2 * k], 0), kW - 1);
    int py = min(max(cy + disk[2 * k + 1], 0), kH - 1);
    int v = video[(frame * kH + py) * kW + px];
    sum += float((v - 100) * (v - 100) - (v - 228) * (v - 228)) / 1000.0f;
  }
  return sum / float(disk_len);
}

// ---- kernels ----

__global__ void pf_likelihood(int frame, const unsigned char* video, const int* disk, int disk_len, const float* xj,
                              const float* yj, float* x, float* y, float* weights, int* seed, float* partial) {
  __shared__ float s_w[kBlock];
  int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
  float w = 0.0f;
  if (i < kParticles) {
    // Unsuffixed literals, as the original writes them: the move is done in double.
    float px = xj[i] + 1.0 + 5.0 * randn(seed, i);
    float py = yj[i] - 2.0 + 2.0 * randn(seed, i);
    x[i] = px;
    y[i] = py;
    float l = likelihood_at(video, frame, px, py, disk, disk_len);
    w = (1.0f / float(kParticles)) * expf(l);
    weights[i] = w;
  }
  s_w[t] = w;
  __syncthreads();
  for (int half = blockDim.x / 2; half > 0; half /= 2) {
    if (t < half) s_w[t] += s_w[t + half];
    __syncthreads();
  }
  if (t == 0) partial[blockIdx.x] = s_w[0];
}

__global__ void pf_sum(float* partial, int n) {
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    float s = 0.0f;
    for (int b = 0; b < n; ++b) s += partial[b];
    partial[0] = s;
  }
}

__global__ void pf_normalize(float* weights, const float* partial) {
  __shared__ float total;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (threadIdx.x == 0) total = partial[0];
  __syncthreads();
  if (i < kParticles) weights[i] = weights[i] / total;
}

// One CTA: thread 0 builds the CDF and the resampling offset u0 in [0, 1/N).
__global__ void pf_cdf(const float* weights, float* cdf, float* u0, int* seed) {
  if (threadIdx.x == 0) {
    float run = 0.0f;
    for (int k = 0; k < kParticles; ++k) {
      run += weights[k];
      cdf[k] = run;
    }
    float r = randu(seed, 0);
    *u0 = fmodf(r, 1.0f / float(kParticles));
  }
}

__global__ void pf_find_index(const float* x, const float* y, const float* cdf, const float* u0, float* xj,
                              float* yj) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= kParticles) return;
  float u = *u0 + float(i) / float(kParticles);
  int index = -1;
  for (int k = 0; k < kParticles; ++k)
    if (cdf[k] >= u) {
      index = k;
      break;
    }
  if (index == -1) index = kParticles - 1;
  xj[i] = x[index];
  yj[i] = y[index];
}

// ---- host side ----

// Object centre in each frame: it moves right and down; pixels inside a disk
// of radius 6 are bright, others dark, plus noise, as 8-bit values.
std::vector<unsigned char> make_video(std::vector<float>& cx, std::vector<float>& cy) {
  std::vector<unsigned char> video(size_t(kFrames) * kH * kW);
  XorShift32 rng{0x9F11u};
  cx.resize(kFrames);
  cy.resize(kFrames);
  for (int f = 0; f < kFrames; ++f) {
    cx[f] = kW / 2.0f + 1.0f * f;
    cy[f] = kH / 2.0f - 2.0f * f;
    for (int y = 0; y < kH; ++y)
      for (int x = 0; x < kW; ++x) {
        float dx = x - cx[f], dy = y - cy[f];
        float base = dx * dx + dy * dy <= 36.0f ? 228.0f : 100.0f;
        float noise = 10.0f * (rng.uniform() + rng.uniform() + rng.uniform() - 1.5f);
        video[(size_t(f) * kH + y) * kW + x] = (unsigned char)std::fmin(255.0f, std::fmax(0.0f, base + noise));
      }
  }
  return video;
}

std::vector<int> make_disk() {
  std::vector<int> disk;
  for (int dy = -(kRadius - 1); dy <= kRadius - 1; ++dy)
    for (int dx = -(kRadius - 1); dx <= kRadius - 1; ++dx)
      if (dx * dx + dy * dy <= (kRadius - 1) * (kRadius - 1) + 4) disk.push_back(dx), disk.push_back(dy);
  return disk;
}

int main() {
  std::vector<float> cx, cy;
  std::vector<unsigned char> video = make_video(cx, cy);
  std::vector<int> disk = make_disk();
  const int disk_len = int(disk.size() / 2);
  std::vector<int> seed(kParticles);
  for (int i = 0; i < kParticles; ++i) seed[i] = int(0x12345u + 7919u * uint32_t(i));
  std::vector<float> x0(kParticles, cx[0]), y0(kParticles, cy[0]);

  // Per-frame arrays keep one slice of kParticles per frame (the history of
  // the track); xj / yj slice 0 holds the start.
  const size_t all = size_t(kFrames) * kParticles;
  unsigned char* d_video = to_device(video);
  int *d_disk = to_device(disk), *d_seed = to_device(seed);
  float *d_xj = device_alloc<float>(all), *d_yj = device_alloc<float>(all);
  CHECK(cudaMemcpy(d_xj, x0.data(), kParticles * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(d_yj, y0.data(), kParticles * sizeof(float), cudaMemcpyHostToDevice));
  float *d_x = device_alloc<float>(all), *d_y = device_alloc<float>(all);
  float *d_w = device_alloc<float>(all), *d_cdf = device_alloc<float>(all);
  float *d_partial = device_alloc<float>(kCtas), *d_u0 = device_alloc<float>(kFrames);

  EventTimer timer;
  int launches = 0;
  timer.start();
  for (int f = 1; f < kFrames; ++f) {
    size_t prev = size_t(f - 1) * kParticles, cur = size_t(f) * kParticles;
    pf_likelihood<<<kCtas, kBlock>>>(f, d_video, d_disk, disk_len, d_xj + prev, d_yj + prev, d_x + cur, d_y + cur,
                                     d_w + cur, d_seed, d_partial);
    pf_sum<<<1, 1>>>(d_partial, kCtas);
    pf_normalize<<<kCtas, kBlock>>>(d_w + cur, d_partial);
    pf_cdf<<<1, 32>>>(d_w + cur, d_cdf + cur, d_u0 + f, d_seed);
    pf_find_index<<<kCtas, kBlock>>>(d_x + cur, d_y + cur, d_cdf + cur, d_u0 + f, d_xj + cur, d_yj + cur);
    CHECK(cudaGetLastError());
    launches += 5;
  }
  float ms = timer.stop_ms();
  CHECK_LAUNCH();
  std::vector<float> xj = to_host(d_xj, all), yj = to_host(d_yj, all), x = to_host(d_x, all), y = to_host(d_y, all);
  std::vector<float> w = to_host(d_w, all), cdf = to_host(d_cdf, all), u0 = to_host(d_u0, kFrames);

  // Each step of each frame on the host from the device's results of the
  // step before, so that a rounding-level difference (a position next to a
  // pixel boundary, a slot next to a CDF step) cannot cascade: the moves
  // (same LCG streams), the weights from the device's positions, the CDF from
  // the device's weights, and the resampled positions, exactly, from the
  // device's CDF and offset.
  long bad = 0;
  std::vector<int> hseed = seed;
  for (int f = 1; f < kFrames; ++f) {
    size_t prev = size_t(f - 1) * kParticles, cur = size_t(f) * kParticles;
    long off_move = 0, off_w = 0, off_cdf = 0, off_slot = 0;
    std::vector<float> hw(kParticles), partial(kCtas);
    for (int b = 0; b < kCtas; ++b) {
      std::vector<float> s(kBlock);
      for (int t = 0; t < kBlock; ++t) {
        int i = b * kBlock + t;
        float hx = xj[prev + i] + 1.0 + 5.0 * randn(hseed.data(), i);
        float hy = yj[prev + i] - 2.0 + 2.0 * randn(hseed.data(), i);
        off_move += !close_enough(x[cur + i], hx, 1e-5, 1e-4) || !close_enough(y[cur + i], hy, 1e-5, 1e-4);
        float l = likelihood_at(video.data(), f, x[cur + i], y[cur + i], disk.data(), disk_len);
        s[t] = hw[i] = (1.0f / float(kParticles)) * std::exp(l);
      }
      for (int half = kBlock / 2; half > 0; half /= 2)
        for (int t = 0; t < half; ++t) s[t] += s[t + half];
      partial[b] = s[0];
    }
    float total = 0.0f;
    for (float p : partial) total += p;
    float run = 0.0f;
    for (int i = 0; i < kParticles; ++i) {
      off_w += !close_enough(w[cur + i], hw[i] / total, 1e-4, 1e-12);
      run += w[cur + i];
      off_cdf += !close_enough(cdf[cur + i], run, 1e-5, 1e-9);
    }
    float hu0 = std::fmod(randu(hseed.data(), 0), 1.0f / float(kParticles));
    bad += u0[f] != hu0;
    double ex = 0, ey = 0;
    for (int i = 0; i < kParticles; ++i) {
      float u = u0[f] + float(i) / float(kParticles);
      int index = kParticles - 1;
      for (int k = 0; k < kParticles; ++k)
        if (cdf[cur + k] >= u) {
          index = k;
          break;
        }
      off_slot += xj[cur + i] != x[cur + index] || yj[cur + i] != y[cur + index];
      ex += xj[cur + i], ey += yj[cur + i];
    }
    ex /= kParticles, ey /= kParticles;
    std::printf("frame %d: estimate (%.2f, %.2f) object (%.2f, %.2f); mismatches: move %ld weight %ld cdf %ld slot %ld\n",
                f, ex, ey, cx[f], cy[f], off_move, off_w, off_cdf, off_slot);
    bad += off_move + off_w + off_cdf + off_slot;
    if (std::fabs(ex - cx[f]) > 2.0 || std::fabs(ey - cy[f]) > 2.0) ++bad;  // it must track the object
  }

  print_timing(ms, launches);
  device_free(d_video, d_disk, d_seed, d_xj, d_yj, d_x, d_y, d_w, d_cdf, d_partial, d_u0);
  return verdict("particle_filter", bad);
}
