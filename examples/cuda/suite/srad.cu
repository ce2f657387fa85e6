// Suite benchmark: SRAD (speckle-reducing anisotropic diffusion, the "v2"
// formulation) on a 512 x 512 image. Every iteration launches four kernels:
// `srad_reduce` sums the pixels and their squares over a 128 x 128 region of
// interest (a shared-memory tree per CTA, partial sums per CTA), the one-CTA
// `srad_reduce_final` combines the partials into the speckle scale q0^2,
// `srad_coeff` computes the four directional derivatives and the diffusion
// coefficient of every pixel from an 18 x 18 shared tile, and `srad_update`
// applies the divergence to the image in place. 4 iterations: 16 launches
// queued with no host synchronisation. Exercises tree reductions, 2-D tiles
// with halos, divisions and clamps, and several arrays per pixel.
#include <cmath>
#include <vector>

#include "suite.h"

constexpr int kRows = 512, kCols = 512, kIters = 4;
constexpr int kTile = 16;                    // srad_coeff / srad_update CTAs are kTile x kTile
constexpr int kRoiRows = 128, kRoiCols = 128;  // region of interest, from the top-left corner
constexpr int kRoi = kRoiRows * kRoiCols;
constexpr int kRedThreads = 256, kRedPerCta = 2 * kRedThreads;  // each thread adds two pixels first
constexpr int kRedCtas = kRoi / kRedPerCta;                      // 32 partial sums
constexpr float kLambda = 0.5f;
static_assert(kRoi % kRedPerCta == 0 && kRows % kTile == 0 && kCols % kTile == 0, "whole CTAs only");

// ---- the per-pixel formulas, shared by the kernels and the host ----

__host__ __device__ inline float roi_q0sqr(float sum, float sum2) {
  float mean = sum / kRoi;
  float var = sum2 / kRoi - mean * mean;
  return var / (mean * mean);
}

// Diffusion coefficient from the centre value and its four differences.
__host__ __device__ inline float diffusion(float jc, float dn, float ds, float dw, float de, float q0sqr) {
  float g2 = (dn * dn + ds * ds + dw * dw + de * de) / (jc * jc);
  float l = (dn + ds + dw + de) / jc;
  float num = 0.5f * g2 - (1.0f / 16.0f) * (l * l);
  float den = 1.0f + 0.25f * l;
  float qsqr = num / (den * den);
  den = (qsqr - q0sqr) / (q0sqr * (1.0f + q0sqr));
  float c = 1.0f / (1.0f + den);
  return c < 0.0f ? 0.0f : (c > 1.0f ? 1.0f : c);
}

__host__ __device__ inline float updated(float j, float cn, float cs, float cw, float ce, float dn, float ds,
                                         float dw, float de) {
  float div = cn * dn + cs * ds + cw * dw + ce * de;
  return j + 0.25f * kLambda * div;
}

// ---- kernels ----

// Partial sums of J and J^2 over kRedPerCta region pixels per CTA.
__global__ void srad_reduce(const float* img, float* partial) {
  __shared__ float s_sum[kRedThreads];
  __shared__ float s_sq[kRedThreads];
  int t = threadIdx.x;
  int e0 = blockIdx.x * kRedPerCta + t, e1 = e0 + kRedThreads;
  float a = img[(e0 / kRoiCols) * kCols + e0 % kRoiCols];
  float b = img[(e1 / kRoiCols) * kCols + e1 % kRoiCols];
  s_sum[t] = a + b;
  s_sq[t] = a * a + b * b;
  __syncthreads();
  for (int half = kRedThreads / 2; half > 0; half /= 2) {
    if (t < half) {
      s_sum[t] += s_sum[t + half];
      s_sq[t] += s_sq[t + half];
    }
    __syncthreads();
  }
  if (t == 0) {
    partial[2 * blockIdx.x] = s_sum[0];
    partial[2 * blockIdx.x + 1] = s_sq[0];
  }
}

// One CTA of kRedCtas threads: the partials into q0^2.
__global__ void srad_reduce_final(const float* partial, float* q0sqr) {
  __shared__ float s_sum[kRedCtas];
  __shared__ float s_sq[kRedCtas];
  int t = threadIdx.x;
  s_sum[t] = partial[2 * t];
  s_sq[t] = partial[2 * t + 1];
  __syncthreads();
  for (int half = kRedCtas / 2; half > 0; half /= 2) {
    if (t < half) {
      s_sum[t] += s_sum[t + half];
      s_sq[t] += s_sq[t + half];
    }
    __syncthreads();
  }
  if (t == 0) *q0sqr = roi_q0sqr(s_sum[0], s_sq[0]);
}

struct Derivs {
  float *n, *s, *w, *e;
};

__global__ void srad_coeff(const float* img, Derivs d, float* coeff, const float* q0sqr) {
  __shared__ float tile[kTile + 2][kTile + 2];
  int tx = threadIdx.x, ty = threadIdx.y;
  int x = blockIdx.x * kTile + tx, y = blockIdx.y * kTile + ty;
  int i = y * kCols + x;
  // The tile and its one-pixel border; past the image edge a pixel stands in for itself.
  tile[ty + 1][tx + 1] = img[i];
  if (ty == 0) tile[0][tx + 1] = img[(y > 0 ? y - 1 : y) * kCols + x];
  if (ty == kTile - 1) tile[kTile + 1][tx + 1] = img[(y < kRows - 1 ? y + 1 : y) * kCols + x];
  if (tx == 0) tile[ty + 1][0] = img[y * kCols + (x > 0 ? x - 1 : x)];
  if (tx == kTile - 1) tile[ty + 1][kTile + 1] = img[y * kCols + (x < kCols - 1 ? x + 1 : x)];
  __syncthreads();
  float jc = tile[ty + 1][tx + 1];
  float dn = tile[ty][tx + 1] - jc, ds = tile[ty + 2][tx + 1] - jc;
  float dw = tile[ty + 1][tx] - jc, de = tile[ty + 1][tx + 2] - jc;
  d.n[i] = dn;
  d.s[i] = ds;
  d.w[i] = dw;
  d.e[i] = de;
  coeff[i] = diffusion(jc, dn, ds, dw, de, *q0sqr);
}

__global__ void srad_update(float* img, Derivs d, const float* coeff) {
  __shared__ float c[kTile + 1][kTile + 1];  // the tile plus the row below and the column right
  int tx = threadIdx.x, ty = threadIdx.y;
  int x = blockIdx.x * kTile + tx, y = blockIdx.y * kTile + ty;
  int i = y * kCols + x;
  c[ty][tx] = coeff[i];
  if (ty == kTile - 1) c[kTile][tx] = coeff[(y < kRows - 1 ? y + 1 : y) * kCols + x];
  if (tx == kTile - 1) c[ty][kTile] = coeff[y * kCols + (x < kCols - 1 ? x + 1 : x)];
  __syncthreads();
  float cc = c[ty][tx];
  img[i] = updated(img[i], cc, c[ty + 1][tx], cc, c[ty][tx + 1], d.n[i], d.s[i], d.w[i], d.e[i]);
}

// ---- host side ----

// A speckled image: smooth shading times noise, as grey levels 0..255, then
// J = exp(I / 255) as SRAD works on.
std::vector<float> make_image() {
  std::vector<float> img(size_t(kRows) * kCols);
  XorShift32 rng{0x9E3779B9u};
  for (int y = 0; y < kRows; ++y)
    for (int x = 0; x < kCols; ++x) {
      float shade = 96.0f + 64.0f * std::sin(0.02f * x) * std::cos(0.015f * y);
      float speckle = 0.6f + 0.8f * rng.uniform();
      float grey = std::fmin(255.0f, shade * speckle);
      img[y * kCols + x] = std::exp(grey / 255.0f);
    }
  return img;
}

float host_q0sqr(const std::vector<float>& img) {
  // The same pairing and tree order as the two reduction kernels.
  std::vector<float> sum(kRedThreads), sq(kRedThreads), psum(kRedCtas), psq(kRedCtas);
  for (int b = 0; b < kRedCtas; ++b) {
    for (int t = 0; t < kRedThreads; ++t) {
      int e0 = b * kRedPerCta + t, e1 = e0 + kRedThreads;
      float a = img[(e0 / kRoiCols) * kCols + e0 % kRoiCols], c = img[(e1 / kRoiCols) * kCols + e1 % kRoiCols];
      sum[t] = a + c;
      sq[t] = a * a + c * c;
    }
    for (int half = kRedThreads / 2; half > 0; half /= 2)
      for (int t = 0; t < half; ++t) sum[t] += sum[t + half], sq[t] += sq[t + half];
    psum[b] = sum[0];
    psq[b] = sq[0];
  }
  for (int half = kRedCtas / 2; half > 0; half /= 2)
    for (int t = 0; t < half; ++t) psum[t] += psum[t + half], psq[t] += psq[t + half];
  return roi_q0sqr(psum[0], psq[0]);
}

void host_iteration(std::vector<float>& img) {
  float q0sqr = host_q0sqr(img);
  size_t n = img.size();
  std::vector<float> dn(n), ds(n), dw(n), de(n), c(n);
  for (int y = 0; y < kRows; ++y)
    for (int x = 0; x < kCols; ++x) {
      int i = y * kCols + x;
      float jc = img[i];
      dn[i] = img[y > 0 ? i - kCols : i] - jc;
      ds[i] = img[y < kRows - 1 ? i + kCols : i] - jc;
      dw[i] = img[x > 0 ? i - 1 : i] - jc;
      de[i] = img[x < kCols - 1 ? i + 1 : i] - jc;
      c[i] = diffusion(jc, dn[i], ds[i], dw[i], de[i], q0sqr);
    }
  for (int y = 0; y < kRows; ++y)
    for (int x = 0; x < kCols; ++x) {
      int i = y * kCols + x;
      float cs = c[y < kRows - 1 ? i + kCols : i], ce = c[x < kCols - 1 ? i + 1 : i];
      img[i] = updated(img[i], c[i], cs, c[i], ce, dn[i], ds[i], dw[i], de[i]);
    }
}

int main() {
  std::vector<float> img = make_image();
  float *d_img = to_device(img), *d_coeff = device_alloc<float>(img.size());
  Derivs d;
  for (float** p : {&d.n, &d.s, &d.w, &d.e}) *p = device_alloc<float>(img.size());
  float *d_partial = device_alloc<float>(2 * kRedCtas), *d_q0sqr = device_alloc<float>(1);

  EventTimer timer;
  dim3 tile(kTile, kTile), tiles(kCols / kTile, kRows / kTile);
  int launches = 0;
  timer.start();
  for (int it = 0; it < kIters; ++it) {
    srad_reduce<<<kRedCtas, kRedThreads>>>(d_img, d_partial);
    srad_reduce_final<<<1, kRedCtas>>>(d_partial, d_q0sqr);
    srad_coeff<<<tiles, tile>>>(d_img, d, d_coeff, d_q0sqr);
    srad_update<<<tiles, tile>>>(d_img, d, d_coeff);
    CHECK(cudaGetLastError());
    launches += 4;
  }
  float ms = timer.stop_ms();
  CHECK_LAUNCH();
  std::vector<float> result(img.size());
  copy_to_host(result, d_img);

  for (int it = 0; it < kIters; ++it) host_iteration(img);
  long bad = 0;
  for (size_t i = 0; i < img.size(); ++i) bad += !close_enough(result[i], img[i], 1e-5, 1e-6);

  print_timing(ms, launches);
  device_free(d_img, d_coeff, d.n, d.s, d.w, d.e, d_partial, d_q0sqr);
  return verdict("srad", bad);
}
