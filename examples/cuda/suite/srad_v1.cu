// Suite benchmark: SRAD (speckle-reducing anisotropic diffusion) on a
// 512 x 512 image in the style of Rodinia's srad_v1, whose structure
// differs from srad (v2): six one-dimensional kernels over the whole image
// and a reduction that runs as several launches. `extract` turns grey
// levels into J = expf(I / 255); then per iteration `prepare` copies J and
// J^2 into two sum arrays, `reduce` (256 threads, shared-memory tree) sums
// 256 elements spaced `mul` apart into the first of them, launched again
// over the partial sums with mul multiplied by 256 until one remains (three
// launches: 262,144 -> 1,024 -> 4 -> 1); `srad` computes the four
// neighbour differences through precomputed neighbour index arrays (the
// image edge points at itself), the gradient and Laplacian ratios with
// divisions and the clamped diffusion coefficient from q0^2 (read from the
// two sums on the device); `srad2` applies the divergence; after 4
// iterations `compress` maps back with logf(J) * 255. 1 + 4 x 6 + 1 = 26
// launches queued with no host synchronisation. Exercises multi-launch
// reductions with strided in-place partial sums, gathers through index
// arrays, divisions, expf/logf. Checked against the host with a tolerance
// (the reduction in the same tree order).
#include <cmath>
#include <vector>

#include "suite.h"

constexpr int kRows = 512, kCols = 512, kN = kRows * kCols, kIters = 4;
constexpr int kThreads = 256;
constexpr float kLambda = 0.5f;
static_assert(kN % kThreads == 0, "whole CTAs only");

// ---- shared by the kernels and the host ----

__host__ __device__ inline float q0sqr_of(float total, float total2) {
  float mean = total / kN;
  float var = total2 / kN - mean * mean;
  return var / (mean * mean);
}

__host__ __device__ inline float coefficient(float jc, float dn, float ds, float dw, float de, float q0sqr) {
  float g2 = (dn * dn + ds * ds + dw * dw + de * de) / (jc * jc);
  float l = (dn + ds + dw + de) / jc;
  float num = (0.5f * g2) - ((1.0f / 16.0f) * (l * l));
  float den = 1.0f + (0.25f * l);
  float qsqr = num / (den * den);
  den = (qsqr - q0sqr) / (q0sqr * (1.0f + q0sqr));
  float c = 1.0f / (1.0f + den);
  if (c < 0.0f) return 0.0f;
  if (c > 1.0f) return 1.0f;
  return c;
}

// ---- kernels ----

__global__ void extract(float* img) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < kN) img[i] = expf(img[i] / 255.0f);
}

__global__ void prepare(const float* img, float* sums, float* sums2) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < kN) {
    float v = img[i];
    sums[i] = v;
    sums2[i] = v * v;
  }
}

// Sums `n` partials spaced `mul` apart, 256 per CTA, into the first element
// of each group (also `mul` * 256 apart afterwards).
__global__ void reduce(int n, int mul, float* sums, float* sums2) {
  __shared__ float s[kThreads], s2[kThreads];
  int t = threadIdx.x, e = blockIdx.x * kThreads + t;
  s[t] = e < n ? sums[size_t(e) * mul] : 0.0f;
  s2[t] = e < n ? sums2[size_t(e) * mul] : 0.0f;
  __syncthreads();
  for (int h = kThreads / 2; h > 0; h >>= 1) {
    if (t < h) {
      s[t] += s[t + h];
      s2[t] += s2[t + h];
    }
    __syncthreads();
  }
  if (t == 0) {
    sums[size_t(blockIdx.x) * kThreads * mul] = s[0];
    sums2[size_t(blockIdx.x) * kThreads * mul] = s2[0];
  }
}

struct Neighbours {
  const int *n, *s, *w, *e;  // row and column indices of the neighbours
};
struct Derivs {
  float *n, *s, *w, *e;
};

__global__ void srad(const float* img, Neighbours nb, Derivs d, float* c, const float* sums, const float* sums2) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= kN) return;
  int row = i / kCols, col = i % kCols;
  float q0sqr = q0sqr_of(sums[0], sums2[0]);
  float jc = img[i];
  float dn = img[nb.n[row] * kCols + col] - jc;
  float ds = img[nb.s[row] * kCols + col] - jc;
  float dw = img[row * kCols + nb.w[col]] - jc;
  float de = img[row * kCols + nb.e[col]] - jc;
  d.n[i] = dn;
  d.s[i] = ds;
  d.w[i] = dw;
  d.e[i] = de;
  c[i] = coefficient(jc, dn, ds, dw, de, q0sqr);
}

__global__ void srad2(float* img, Neighbours nb, Derivs d, const float* c) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= kN) return;
  int row = i / kCols, col = i % kCols;
  float cn = c[i], cw = c[i];
  float cs = c[nb.s[row] * kCols + col];
  float ce = c[row * kCols + nb.e[col]];
  float div = cn * d.n[i] + cs * d.s[i] + cw * d.w[i] + ce * d.e[i];
  img[i] = img[i] + 0.25f * kLambda * div;
}

__global__ void compress(float* img) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < kN) img[i] = logf(img[i]) * 255.0f;
}

// ---- host side ----

std::vector<float> make_image() {
  std::vector<float> img(kN);
  XorShift32 rng{0x51AD51ADu};
  for (int y = 0; y < kRows; ++y)
    for (int x = 0; x < kCols; ++x) {
      float r = std::hypot(x - 256.0f, y - 256.0f);
      float shade = r < 150.0f ? 170.0f : 80.0f + 0.1f * x;
      img[y * kCols + x] = std::fmin(255.0f, shade * (0.5f + rng.uniform()));
    }
  return img;
}

// The reduction in the kernels' order: groups of 256, tree within each.
void host_reduce(std::vector<float>& a) {
  int n = kN, mul = 1;
  while (n > 1) {
    int blocks = (n + kThreads - 1) / kThreads;
    for (int b = 0; b < blocks; ++b) {
      float s[kThreads];
      for (int t = 0; t < kThreads; ++t) {
        int e = b * kThreads + t;
        s[t] = e < n ? a[size_t(e) * mul] : 0.0f;
      }
      for (int h = kThreads / 2; h > 0; h >>= 1)
        for (int t = 0; t < h; ++t) s[t] += s[t + h];
      a[size_t(b) * kThreads * mul] = s[0];
    }
    n = blocks;
    mul *= kThreads;
  }
}

int main() {
  std::vector<float> img = make_image();
  std::vector<int> in(kRows), is(kRows), jw(kCols), je(kCols);
  for (int r = 0; r < kRows; ++r) in[r] = r > 0 ? r - 1 : 0, is[r] = r < kRows - 1 ? r + 1 : kRows - 1;
  for (int c = 0; c < kCols; ++c) jw[c] = c > 0 ? c - 1 : 0, je[c] = c < kCols - 1 ? c + 1 : kCols - 1;

  float* d_img = to_device(img);
  Neighbours nb{to_device(in), to_device(is), to_device(jw), to_device(je)};
  Derivs d;
  for (float** p : {&d.n, &d.s, &d.w, &d.e}) *p = device_alloc<float>(kN);
  float *d_c = device_alloc<float>(kN), *d_sums = device_alloc<float>(kN), *d_sums2 = device_alloc<float>(kN);

  const int blocks = kN / kThreads;
  EventTimer timer;
  int launches = 0;
  timer.start();
  extract<<<blocks, kThreads>>>(d_img);
  ++launches;
  for (int it = 0; it < kIters; ++it) {
    prepare<<<blocks, kThreads>>>(d_img, d_sums, d_sums2);
    ++launches;
    int n = kN, mul = 1;
    while (n > 1) {
      int rb = (n + kThreads - 1) / kThreads;
      reduce<<<rb, kThreads>>>(n, mul, d_sums, d_sums2);
      ++launches;
      n = rb;
      mul *= kThreads;
    }
    srad<<<blocks, kThreads>>>(d_img, nb, d, d_c, d_sums, d_sums2);
    srad2<<<blocks, kThreads>>>(d_img, nb, d, d_c);
    launches += 2;
    CHECK(cudaGetLastError());
  }
  compress<<<blocks, kThreads>>>(d_img);
  ++launches;
  float ms = timer.stop_ms();
  CHECK_LAUNCH();
  std::vector<float> result = to_host(d_img, kN);

  // Host reference.
  std::vector<float> j(kN), sums(kN), sums2(kN), dn(kN), ds(kN), dw(kN), de(kN), c(kN);
  for (int i = 0; i < kN; ++i) j[i] = std::exp(img[i] / 255.0f);
  for (int it = 0; it < kIters; ++it) {
    for (int i = 0; i < kN; ++i) sums[i] = j[i], sums2[i] = j[i] * j[i];
    host_reduce(sums);
    host_reduce(sums2);
    float q0sqr = q0sqr_of(sums[0], sums2[0]);
    for (int i = 0; i < kN; ++i) {
      int r = i / kCols, col = i % kCols;
      float jc = j[i];
      dn[i] = j[in[r] * kCols + col] - jc;
      ds[i] = j[is[r] * kCols + col] - jc;
      dw[i] = j[r * kCols + jw[col]] - jc;
      de[i] = j[r * kCols + je[col]] - jc;
      c[i] = coefficient(jc, dn[i], ds[i], dw[i], de[i], q0sqr);
    }
    for (int i = 0; i < kN; ++i) {
      int r = i / kCols, col = i % kCols;
      float div = c[i] * dn[i] + c[is[r] * kCols + col] * ds[i] + c[i] * dw[i] + c[r * kCols + je[col]] * de[i];
      j[i] = j[i] + 0.25f * kLambda * div;
    }
  }
  long bad = 0;
  double sum = 0;
  for (int i = 0; i < kN; ++i) {
    float want = std::log(j[i]) * 255.0f;
    bad += !close_enough(result[i], want, 1e-4, 1e-3);
    sum += result[i];
  }
  std::printf("mean=%.4f\n", sum / kN);

  print_timing(ms, launches);
  device_free(d_img, d.n, d.s, d.w, d.e, d_c, d_sums, d_sums2);
  device_free(const_cast<int*>(nb.n), const_cast<int*>(nb.s), const_cast<int*>(nb.w), const_cast<int*>(nb.e));
  return verdict("srad_v1", bad);
}
