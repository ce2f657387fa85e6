// convolution_texture: separable convolution (radius 8, 17 taps) of a
// 1024 x 1024 float image read through a texture, styled after the CUDA
// samples' convolutionTexture. The image is uploaded into a 2-D cudaArray
// (cudaMallocArray, cudaMemcpy2DToArray) and read with tex2D<float> through
// a texture object (cudaCreateTextureObject on the array: unnormalised
// coordinates, point filtering, clamp addressing, so the border repeats
// the edge pixel). The filter sits in __constant__ memory
// (cudaMemcpyToSymbol). Row pass: one output pixel per thread (16 x 12
// CTAs), 17 tex2D fetches at x + 0.5 + k, y + 0.5 weighted by the taps,
// into linear memory; the result is copied device-to-device back into the
// array (cudaMemcpy2DToArray) and the column pass reads it through the same
// texture object, fetching at y + k. Both passes run kIters times. Checked
// against a host double-precision convolution with the same clamped border,
// with a relative tolerance.
#include <cmath>
#include <vector>

#include "suite.h"

constexpr int kKernelRadius = 8;
constexpr int kKernelLength = 2 * kKernelRadius + 1;
constexpr int kImageW = 1024, kImageH = 1024;
constexpr int kBlockX = 16, kBlockY = 12;
constexpr int kIters = 2;

__constant__ float c_kernel[kKernelLength];

__global__ void convolution_rows_texture(float* __restrict__ d_dst, cudaTextureObject_t tex_src, int image_w,
                                         int image_h) {
  const int ix = blockIdx.x * blockDim.x + threadIdx.x;
  const int iy = blockIdx.y * blockDim.y + threadIdx.y;
  const float x = float(ix) + 0.5f, y = float(iy) + 0.5f;
  if (ix >= image_w || iy >= image_h) return;
  float sum = 0;
#pragma unroll
  for (int k = -kKernelRadius; k <= kKernelRadius; ++k)
    sum += tex2D<float>(tex_src, x + float(k), y) * c_kernel[kKernelRadius - k];
  d_dst[iy * image_w + ix] = sum;
}

__global__ void convolution_columns_texture(float* __restrict__ d_dst, cudaTextureObject_t tex_src, int image_w,
                                            int image_h) {
  const int ix = blockIdx.x * blockDim.x + threadIdx.x;
  const int iy = blockIdx.y * blockDim.y + threadIdx.y;
  const float x = float(ix) + 0.5f, y = float(iy) + 0.5f;
  if (ix >= image_w || iy >= image_h) return;
  float sum = 0;
#pragma unroll
  for (int k = -kKernelRadius; k <= kKernelRadius; ++k)
    sum += tex2D<float>(tex_src, x, y + float(k)) * c_kernel[kKernelRadius - k];
  d_dst[iy * image_w + ix] = sum;
}

// Host reference: rows then columns, edge pixels repeated, in double.
static void host_convolution(std::vector<double>& out, const std::vector<float>& in, const std::vector<float>& k) {
  const int w = kImageW, h = kImageH;
  auto clampi = [](int v, int lo, int hi) { return v < lo ? lo : (v > hi ? hi : v); };
  std::vector<double> tmp(size_t(w) * h);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      double sum = 0;
      for (int j = -kKernelRadius; j <= kKernelRadius; ++j)
        sum += double(k[kKernelRadius - j]) * in[size_t(y) * w + clampi(x + j, 0, w - 1)];
      tmp[size_t(y) * w + x] = sum;
    }
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      double sum = 0;
      for (int j = -kKernelRadius; j <= kKernelRadius; ++j)
        sum += double(k[kKernelRadius - j]) * tmp[size_t(clampi(y + j, 0, h - 1)) * w + x];
      out[size_t(y) * w + x] = sum;
    }
}

int main() {
  const size_t n = size_t(kImageW) * kImageH;
  const size_t row_bytes = kImageW * sizeof(float);
  std::vector<float> kernel(kKernelLength), image(n);
  Lcg rng{1717};
  for (float& e : kernel) e = rng.uniform();
  fill_lcg(image, 2323);
  CHECK(cudaMemcpyToSymbol(c_kernel, kernel.data(), kKernelLength * sizeof(float)));

  cudaChannelFormatDesc float_desc = cudaCreateChannelDesc<float>();
  cudaArray_t a_src;
  CHECK(cudaMallocArray(&a_src, &float_desc, kImageW, kImageH));

  cudaResourceDesc res = {};
  res.resType = cudaResourceTypeArray;
  res.res.array.array = a_src;
  cudaTextureDesc tex_desc = {};
  tex_desc.addressMode[0] = cudaAddressModeClamp;
  tex_desc.addressMode[1] = cudaAddressModeClamp;
  tex_desc.filterMode = cudaFilterModePoint;
  tex_desc.readMode = cudaReadModeElementType;
  tex_desc.normalizedCoords = 0;
  cudaTextureObject_t tex_src = 0;
  CHECK(cudaCreateTextureObject(&tex_src, &res, &tex_desc, nullptr));

  float* d_output = device_zeros<float>(n);
  dim3 threads(kBlockX, kBlockY);
  dim3 blocks((kImageW + kBlockX - 1) / kBlockX, (kImageH + kBlockY - 1) / kBlockY);

  float total_ms = 0;
  int launches = 0;
  for (int it = 0; it < kIters; ++it) {
    // The source image into the array, then rows, copy back, columns.
    CHECK(cudaMemcpy2DToArray(a_src, 0, 0, image.data(), row_bytes, row_bytes, kImageH, cudaMemcpyHostToDevice));
    EventTimer timer;
    timer.start();
    convolution_rows_texture<<<blocks, threads>>>(d_output, tex_src, kImageW, kImageH);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy2DToArray(a_src, 0, 0, d_output, row_bytes, row_bytes, kImageH, cudaMemcpyDeviceToDevice));
    convolution_columns_texture<<<blocks, threads>>>(d_output, tex_src, kImageW, kImageH);
    CHECK(cudaGetLastError());
    total_ms += timer.stop_ms();
    CHECK_LAUNCH();
    launches += 2;
  }

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
  double mpix = total_ms > 0 ? double(n) * kIters / (total_ms * 1e-3) / 1e6 : 0.0;
  std::printf("%.1f Mpix/s\n", mpix);

  print_timing(total_ms, launches);
  CHECK(cudaDestroyTextureObject(tex_src));
  CHECK(cudaFreeArray(a_src));
  CHECK(cudaFree(d_output));
  return verdict("convolution_texture", bad);
}
