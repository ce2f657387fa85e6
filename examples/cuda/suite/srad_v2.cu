// Suite benchmark: SRAD (speckle-reducing anisotropic diffusion) in the
// style of Rodinia's srad_v2, on a 512 x 512 image for 2 iterations. Unlike
// srad.cu (device reductions, no host round trips) the statistics of the
// 128 x 128 region of interest are summed on the host every iteration:
// the host image is uploaded, the two kernels run, and the image is copied
// back for the next iteration's sums, so each iteration is a blocking round
// trip of the whole image. `srad_cuda_1` (16 x 16 CTAs) loads its tile of J
// into shared memory and, into four more 16 x 16 shared arrays, the row
// above and below and the columns left and right of the tile from the
// neighbouring CTAs' edges (clamped at the image border), every thread
// loading its own copy, so a warp reads each neighbour value with
// several lanes. Each pixel takes its four differences from the tile or, on
// the tile's edge, from those arrays, and computes the diffusion
// coefficient (divisions, a clamp to [0, 1]); the differences and the
// coefficient go to five global arrays. `srad_cuda_2` loads the coefficient
// tile and the south and east neighbour tiles the same way and applies the
// divergence to J in place. Exercises 2-D shared tiles with redundant halo
// loads, same-address lanes, edge-dependent branches, float divisions, five
// arrays per pixel and a host round trip per iteration. Checked against the
// host with a tolerance.
#include <cmath>
#include <vector>

#include "suite.h"

constexpr int kRows = 512, kCols = 512, kIters = 2;
constexpr int kBlock = 16;                   // CTAs are kBlock x kBlock
constexpr int kRoiRows = 128, kRoiCols = 128;  // region of interest, from the top-left corner
constexpr float kLambda = 0.5f;
static_assert(kRows % kBlock == 0 && kCols % kBlock == 0, "whole CTAs only");

// ---- shared by the kernels and the host ----

__host__ __device__ inline float diffusion_coeff(float jc, float n, float s, float w, float e, float q0sqr) {
  float g2 = (n * n + s * s + w * w + e * e) / (jc * jc);
  float l = (n + s + w + e) / jc;
  float num = 0.5f * g2 - (1.0f / 16.0f) * (l * l);
  float den = 1.0f + 0.25f * l;
  float qsqr = num / (den * den);
  den = (qsqr - q0sqr) / (q0sqr * (1.0f + q0sqr));
  float c = 1.0f / (1.0f + den);
  if (c < 0.0f) return 0.0f;
  if (c > 1.0f) return 1.0f;
  return c;
}

__host__ __device__ inline float diffused(float j, float cn, float cs, float cw, float ce, float n, float s, float w,
                                          float e, float lambda) {
  float div = cn * n + cs * s + cw * w + ce * e;
  return j + 0.25f * lambda * div;
}

// ---- kernels ----

struct Derivs {
  float *n, *s, *w, *e;
};

__global__ void srad_cuda_1(const float* J, float* C, Derivs d, int rows, int cols, float q0sqr) {
  __shared__ float tile[kBlock][kBlock];
  __shared__ float north[kBlock][kBlock], south[kBlock][kBlock];
  __shared__ float west[kBlock][kBlock], east[kBlock][kBlock];
  int tx = threadIdx.x, ty = threadIdx.y;
  int x0 = blockIdx.x * kBlock, y0 = blockIdx.y * kBlock;
  int x = x0 + tx, y = y0 + ty, i = y * cols + x;
  // The neighbour rows and columns; at the image border the tile's own edge.
  int yn = y0 > 0 ? y0 - 1 : 0, ys = y0 + kBlock < rows ? y0 + kBlock : rows - 1;
  int xw = x0 > 0 ? x0 - 1 : 0, xe = x0 + kBlock < cols ? x0 + kBlock : cols - 1;
  north[ty][tx] = J[yn * cols + x];
  south[ty][tx] = J[ys * cols + x];
  __syncthreads();
  west[ty][tx] = J[y * cols + xw];
  east[ty][tx] = J[y * cols + xe];
  tile[ty][tx] = J[i];
  __syncthreads();

  float jc = tile[ty][tx];
  float n = (ty == 0 ? north[ty][tx] : tile[ty - 1][tx]) - jc;
  float s = (ty == kBlock - 1 ? south[ty][tx] : tile[ty + 1][tx]) - jc;
  float w = (tx == 0 ? west[ty][tx] : tile[ty][tx - 1]) - jc;
  float e = (tx == kBlock - 1 ? east[ty][tx] : tile[ty][tx + 1]) - jc;
  d.n[i] = n;
  d.s[i] = s;
  d.w[i] = w;
  d.e[i] = e;
  C[i] = diffusion_coeff(jc, n, s, w, e, q0sqr);
}

__global__ void srad_cuda_2(float* J, const float* C, Derivs d, int rows, int cols, float lambda) {
  __shared__ float c_tile[kBlock][kBlock];
  __shared__ float c_south[kBlock][kBlock], c_east[kBlock][kBlock];
  int tx = threadIdx.x, ty = threadIdx.y;
  int x0 = blockIdx.x * kBlock, y0 = blockIdx.y * kBlock;
  int x = x0 + tx, y = y0 + ty, i = y * cols + x;
  int ys = y0 + kBlock < rows ? y0 + kBlock : rows - 1;
  int xe = x0 + kBlock < cols ? x0 + kBlock : cols - 1;
  c_south[ty][tx] = C[ys * cols + x];
  c_east[ty][tx] = C[y * cols + xe];
  c_tile[ty][tx] = C[i];
  __syncthreads();

  float cn = c_tile[ty][tx], cw = cn;
  float cs = ty == kBlock - 1 ? c_south[ty][tx] : c_tile[ty + 1][tx];
  float ce = tx == kBlock - 1 ? c_east[ty][tx] : c_tile[ty][tx + 1];
  J[i] = diffused(J[i], cn, cs, cw, ce, d.n[i], d.s[i], d.w[i], d.e[i], lambda);
}

// ---- host side ----

// Grey levels in [0, 1): a soft blob pattern times speckle, then J = exp(I).
std::vector<float> make_image() {
  std::vector<float> noise(size_t(kRows) * kCols), img(noise.size());
  fill_lcg(noise, 0x51AD2u);
  for (int y = 0; y < kRows; ++y)
    for (int x = 0; x < kCols; ++x) {
      float pattern = 0.5f + 0.3f * std::sin(0.031f * x + 0.7f) * std::sin(0.023f * y);
      float grey = pattern * (0.5f + noise[y * kCols + x]);
      img[y * kCols + x] = std::exp(std::fmin(grey, 0.999f));
    }
  return img;
}

// q0^2 of the region of interest, summed in row order as a host loop would.
float roi_q0sqr(const std::vector<float>& J) {
  float sum = 0.0f, sum2 = 0.0f;
  for (int y = 0; y < kRoiRows; ++y)
    for (int x = 0; x < kRoiCols; ++x) {
      float v = J[y * kCols + x];
      sum += v;
      sum2 += v * v;
    }
  float size = float(kRoiRows * kRoiCols);
  float mean = sum / size;
  float var = sum2 / size - mean * mean;
  return var / (mean * mean);
}

void host_iteration(std::vector<float>& J) {
  float q0sqr = roi_q0sqr(J);
  size_t n = J.size();
  std::vector<float> dn(n), ds(n), dw(n), de(n), c(n);
  for (int y = 0; y < kRows; ++y)
    for (int x = 0; x < kCols; ++x) {
      int i = y * kCols + x;
      float jc = J[i];
      dn[i] = J[y > 0 ? i - kCols : i] - jc;
      ds[i] = J[y < kRows - 1 ? i + kCols : i] - jc;
      dw[i] = J[x > 0 ? i - 1 : i] - jc;
      de[i] = J[x < kCols - 1 ? i + 1 : i] - jc;
      c[i] = diffusion_coeff(jc, dn[i], ds[i], dw[i], de[i], q0sqr);
    }
  for (int y = 0; y < kRows; ++y)
    for (int x = 0; x < kCols; ++x) {
      int i = y * kCols + x;
      float cs = c[y < kRows - 1 ? i + kCols : i], ce = c[x < kCols - 1 ? i + 1 : i];
      J[i] = diffused(J[i], c[i], cs, c[i], ce, dn[i], ds[i], dw[i], de[i], kLambda);
    }
}

int main() {
  const std::vector<float> start = make_image();
  std::vector<float> J = start;
  float* d_J = device_alloc<float>(J.size());
  float* d_C = device_alloc<float>(J.size());
  Derivs d;
  for (float** p : {&d.n, &d.s, &d.w, &d.e}) *p = device_alloc<float>(J.size());

  EventTimer timer;
  dim3 block(kBlock, kBlock), grid(kCols / kBlock, kRows / kBlock);
  int launches = 0;
  timer.start();
  for (int it = 0; it < kIters; ++it) {
    float q0sqr = roi_q0sqr(J);
    copy_to_device(d_J, J);
    srad_cuda_1<<<grid, block>>>(d_J, d_C, d, kRows, kCols, q0sqr);
    srad_cuda_2<<<grid, block>>>(d_J, d_C, d, kRows, kCols, kLambda);
    CHECK(cudaGetLastError());
    launches += 2;
    copy_to_host(J, d_J);
  }
  float ms = timer.stop_ms();
  CHECK_LAUNCH();

  std::vector<float> want = start;
  for (int it = 0; it < kIters; ++it) host_iteration(want);
  long bad = 0;
  for (size_t i = 0; i < J.size(); ++i) bad += !close_enough(J[i], want[i], 1e-5, 1e-6);

  print_timing(ms, launches);
  device_free(d_J, d_C, d.n, d.s, d.w, d.e);
  return verdict("srad_v2", bad);
}
