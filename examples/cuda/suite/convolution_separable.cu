// convolution_separable: separable convolution (radius 8, 17 taps) of a
// 1024 x 1024 float image, styled after the CUDA samples'
// convolutionSeparable. The filter sits in __constant__ memory, written with
// cudaMemcpyToSymbol. The row kernel has 16 x 4 CTAs, each thread producing
// kRowsResultSteps = 8 outputs 16 columns apart; the CTA loads its
// 4 x (8 + 2) x 16 tile with one 16-wide halo block on each side (zeros
// outside the image) into shared memory, then every output is a
// #pragma unroll loop over the 17 taps. The column kernel is the transposed
// analogue (16 x 8 CTAs, 8 result steps, one halo step; the shared tile has
// one column of padding). Row pass into a buffer, column pass into the
// output, kIters times. Checked against a host double-precision
// convolution with the same zero border, with a relative tolerance.
#include <cmath>
#include <vector>

#include "suite.h"

constexpr int kKernelRadius = 8;
constexpr int kKernelLength = 2 * kKernelRadius + 1;
constexpr int kImageW = 1024, kImageH = 1024;
constexpr int kIters = 2;

constexpr int kRowsBlockDimX = 16, kRowsBlockDimY = 4, kRowsResultSteps = 8, kRowsHaloSteps = 1;
constexpr int kColumnsBlockDimX = 16, kColumnsBlockDimY = 8, kColumnsResultSteps = 8, kColumnsHaloSteps = 1;

static_assert(kRowsBlockDimX * kRowsHaloSteps >= kKernelRadius, "row halo too small");
static_assert(kColumnsBlockDimY * kColumnsHaloSteps >= kKernelRadius, "column halo too small");
static_assert(kImageW % (kRowsResultSteps * kRowsBlockDimX) == 0 && kImageH % kRowsBlockDimY == 0, "row tiles");
static_assert(kImageW % kColumnsBlockDimX == 0 && kImageH % (kColumnsResultSteps * kColumnsBlockDimY) == 0,
              "column tiles");

__constant__ float c_kernel[kKernelLength];

__global__ void convolution_rows_kernel(float* d_dst, const float* d_src, int image_w, int image_h, int pitch) {
  __shared__ float s_data[kRowsBlockDimY][(kRowsResultSteps + 2 * kRowsHaloSteps) * kRowsBlockDimX];

  // First column of the tile, including the left halo.
  const int base_x = (blockIdx.x * kRowsResultSteps - kRowsHaloSteps) * kRowsBlockDimX + threadIdx.x;
  const int base_y = blockIdx.y * kRowsBlockDimY + threadIdx.y;
  d_src += base_y * pitch + base_x;
  d_dst += base_y * pitch + base_x;

  // Main data.
#pragma unroll
  for (int i = kRowsHaloSteps; i < kRowsHaloSteps + kRowsResultSteps; i++)
    s_data[threadIdx.y][threadIdx.x + i * kRowsBlockDimX] = d_src[i * kRowsBlockDimX];

  // Left halo.
#pragma unroll
  for (int i = 0; i < kRowsHaloSteps; i++)
    s_data[threadIdx.y][threadIdx.x + i * kRowsBlockDimX] =
        (base_x >= -i * kRowsBlockDimX) ? d_src[i * kRowsBlockDimX] : 0.0f;

  // Right halo.
#pragma unroll
  for (int i = kRowsHaloSteps + kRowsResultSteps; i < kRowsHaloSteps + kRowsResultSteps + kRowsHaloSteps; i++)
    s_data[threadIdx.y][threadIdx.x + i * kRowsBlockDimX] =
        (image_w - base_x > i * kRowsBlockDimX) ? d_src[i * kRowsBlockDimX] : 0.0f;

  __syncthreads();

#pragma unroll
  for (int i = kRowsHaloSteps; i < kRowsHaloSteps + kRowsResultSteps; i++) {
    float sum = 0;
#pragma unroll
    for (int j = -kKernelRadius; j <= kKernelRadius; j++)
      sum += c_kernel[kKernelRadius - j] * s_data[threadIdx.y][threadIdx.x + i * kRowsBlockDimX + j];
    d_dst[i * kRowsBlockDimX] = sum;
  }
}

__global__ void convolution_columns_kernel(float* d_dst, const float* d_src, int image_w, int image_h, int pitch) {
  __shared__ float s_data[kColumnsBlockDimX][(kColumnsResultSteps + 2 * kColumnsHaloSteps) * kColumnsBlockDimY + 1];

  // First row of the tile, including the upper halo.
  const int base_x = blockIdx.x * kColumnsBlockDimX + threadIdx.x;
  const int base_y = (blockIdx.y * kColumnsResultSteps - kColumnsHaloSteps) * kColumnsBlockDimY + threadIdx.y;
  d_src += base_y * pitch + base_x;
  d_dst += base_y * pitch + base_x;

  // Main data.
#pragma unroll
  for (int i = kColumnsHaloSteps; i < kColumnsHaloSteps + kColumnsResultSteps; i++)
    s_data[threadIdx.x][threadIdx.y + i * kColumnsBlockDimY] = d_src[i * kColumnsBlockDimY * pitch];

  // Upper halo.
#pragma unroll
  for (int i = 0; i < kColumnsHaloSteps; i++)
    s_data[threadIdx.x][threadIdx.y + i * kColumnsBlockDimY] =
        (base_y >= -i * kColumnsBlockDimY) ? d_src[i * kColumnsBlockDimY * pitch] : 0.0f;

  // Lower halo.
#pragma unroll
  for (int i = kColumnsHaloSteps + kColumnsResultSteps; i < kColumnsHaloSteps + kColumnsResultSteps + kColumnsHaloSteps;
       i++)
    s_data[threadIdx.x][threadIdx.y + i * kColumnsBlockDimY] =
        (image_h - base_y > i * kColumnsBlockDimY) ? d_src[i * kColumnsBlockDimY * pitch] : 0.0f;

  __syncthreads();

#pragma unroll
  for (int i = kColumnsHaloSteps; i < kColumnsHaloSteps + kColumnsResultSteps; i++) {
    float sum = 0;
#pragma unroll
    for (int j = -kKernelRadius; j <= kKernelRadius; j++)
      sum += c_kernel[kKernelRadius - j] * s_data[threadIdx.x][threadIdx.y + i * kColumnsBlockDimY + j];
    d_dst[i * kColumnsBlockDimY * pitch] = sum;
  }
}

// Host reference: rows then columns, zero outside the image, in double.
static void host_convolution(std::vector<double>& out, const std::vector<float>& in, const std::vector<float>& k) {
  const int w = kImageW, h = kImageH;
  std::vector<double> tmp(size_t(w) * h);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      double sum = 0;
      for (int j = -kKernelRadius; j <= kKernelRadius; ++j) {
        int xx = x + j;
        if (xx >= 0 && xx < w) sum += double(k[kKernelRadius - j]) * in[size_t(y) * w + xx];
      }
      tmp[size_t(y) * w + x] = sum;
    }
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      double sum = 0;
      for (int j = -kKernelRadius; j <= kKernelRadius; ++j) {
        int yy = y + j;
        if (yy >= 0 && yy < h) sum += double(k[kKernelRadius - j]) * tmp[size_t(yy) * w + x];
      }
      out[size_t(y) * w + x] = sum;
    }
}

int main() {
  const size_t n = size_t(kImageW) * kImageH;
  std::vector<float> kernel(kKernelLength), image(n);
  Lcg rng{4242};
  for (float& e : kernel) e = rng.uniform();
  fill_lcg(image, 99);
  CHECK(cudaMemcpyToSymbol(c_kernel, kernel.data(), kKernelLength * sizeof(float)));

  float* d_input = to_device(image);
  float* d_buffer = device_zeros<float>(n);
  float* d_output = device_zeros<float>(n);

  dim3 rows_blocks(kImageW / (kRowsResultSteps * kRowsBlockDimX), kImageH / kRowsBlockDimY);
  dim3 rows_threads(kRowsBlockDimX, kRowsBlockDimY);
  dim3 cols_blocks(kImageW / kColumnsBlockDimX, kImageH / (kColumnsResultSteps * kColumnsBlockDimY));
  dim3 cols_threads(kColumnsBlockDimX, kColumnsBlockDimY);

  EventTimer timer;
  timer.start();
  for (int it = 0; it < kIters; ++it) {
    convolution_rows_kernel<<<rows_blocks, rows_threads>>>(d_buffer, d_input, kImageW, kImageH, kImageW);
    convolution_columns_kernel<<<cols_blocks, cols_threads>>>(d_output, d_buffer, kImageW, kImageH, kImageW);
  }
  CHECK(cudaGetLastError());
  float ms = timer.stop_ms();
  CHECK_LAUNCH();

  std::vector<float> got = to_host(d_output, n);
  std::vector<double> want(n);
  host_convolution(want, image, kernel);

  long bad = 0;
  double sum_err = 0, sum_ref = 0, max_err = 0;
  for (size_t i = 0; i < n; ++i) {
    double e = std::fabs(got[i] - want[i]);
    sum_err += e;
    sum_ref += std::fabs(want[i]);
    max_err = std::fmax(max_err, e);
    bad += !close_enough(got[i], want[i], 1e-5, 1e-5);
  }
  std::printf("L1 norm %.3e, max abs err %.3e\n", sum_err / sum_ref, max_err);
  if (sum_err / sum_ref > 1e-6) ++bad;
  double mpix = ms > 0 ? double(n) * kIters / (ms * 1e-3) / 1e6 : 0.0;
  std::printf("%.1f Mpix/s\n", mpix);

  print_timing(ms, 2 * kIters);
  device_free(d_input, d_buffer, d_output);
  return verdict("convolution_separable", bad);
}
