// Sampling workload: a four-stage image pipeline over 48 frames of 128 x 128
// 8-bit pixels: 3x3 box blur, Sobel gradient magnitude, threshold, and a
// 256-bin histogram of the gradient (shared-memory bins, global atomics).
// 192 launches of 4 kinds; the last frame is checked against the CPU.
#include <cmath>
#include <cstdint>
#include <vector>

#include "common.h"

constexpr int kW = 128, kH = 128, kFrames = 48, kThreads = 256, kBlocks = kW * kH / kThreads;

__device__ __host__ inline int clampi(int v, int lo, int hi) { return v < lo ? lo : v > hi ? hi : v; }

__global__ void blur(const uint8_t* in, uint8_t* out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int x = i % kW, y = i / kW, sum = 0;
  for (int dy = -1; dy <= 1; ++dy)
    for (int dx = -1; dx <= 1; ++dx) sum += in[clampi(y + dy, 0, kH - 1) * kW + clampi(x + dx, 0, kW - 1)];
  out[i] = uint8_t(sum / 9);
}

__global__ void sobel(const uint8_t* in, uint8_t* out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int x = i % kW, y = i / kW;
  auto p = [&](int dx, int dy) { return int(in[clampi(y + dy, 0, kH - 1) * kW + clampi(x + dx, 0, kW - 1)]); };
  int gx = p(1, -1) + 2 * p(1, 0) + p(1, 1) - p(-1, -1) - 2 * p(-1, 0) - p(-1, 1);
  int gy = p(-1, 1) + 2 * p(0, 1) + p(1, 1) - p(-1, -1) - 2 * p(0, -1) - p(1, -1);
  out[i] = uint8_t(min(255, (abs(gx) + abs(gy)) / 2));
}

__global__ void threshold(const uint8_t* in, uint8_t* out, int level) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = in[i] > level ? 255 : 0;
}

__global__ void histogram(const uint8_t* in, unsigned* bins) {
  __shared__ unsigned local[256];
  local[threadIdx.x] = 0;
  __syncthreads();
  atomicAdd(&local[in[blockIdx.x * blockDim.x + threadIdx.x]], 1u);
  __syncthreads();
  if (local[threadIdx.x]) atomicAdd(&bins[threadIdx.x], local[threadIdx.x]);
}

int main() {
  Rng rng(99);
  std::vector<uint8_t> img(kW * kH), edges(kW * kH), mask(kW * kH);
  uint8_t *dimg, *dblur, *dedge, *dmask;
  unsigned* dbins;
  CHECK(cudaMalloc(&dimg, kW * kH));
  CHECK(cudaMalloc(&dblur, kW * kH));
  CHECK(cudaMalloc(&dedge, kW * kH));
  CHECK(cudaMalloc(&dmask, kW * kH));
  CHECK(cudaMalloc(&dbins, 256 * sizeof(unsigned)));
  for (int f = 0; f < kFrames; ++f) {
    // A moving bright square on noise: each frame differs a little.
    int left = 20 + (4 * f) % 64;
    for (int i = 0; i < kW * kH; ++i) {
      int x = i % kW, y = i / kW;
      bool square = x >= left && x < left + 40 && y >= 30 && y < 90;
      img[i] = uint8_t((square ? 180 : 40) + rng.next() % 32);
    }
    CHECK(cudaMemcpy(dimg, img.data(), kW * kH, cudaMemcpyHostToDevice));
    CHECK(cudaMemset(dbins, 0, 256 * sizeof(unsigned)));
    blur<<<kBlocks, kThreads>>>(dimg, dblur);
    sobel<<<kBlocks, kThreads>>>(dblur, dedge);
    threshold<<<kBlocks, kThreads>>>(dedge, dmask, 64);
    histogram<<<kBlocks, kThreads>>>(dedge, dbins);
    CHECK(cudaGetLastError());
  }
  std::vector<unsigned> bins(256);
  CHECK(cudaMemcpy(mask.data(), dmask, kW * kH, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(bins.data(), dbins, 256 * sizeof(unsigned), cudaMemcpyDeviceToHost));
  // The CPU does the same to the last frame.
  std::vector<uint8_t> b(kW * kH), e(kW * kH);
  auto at = [&](const std::vector<uint8_t>& v, int x, int y) { return int(v[clampi(y, 0, kH - 1) * kW + clampi(x, 0, kW - 1)]); };
  std::vector<unsigned> want(256, 0);
  bool ok = true;
  for (int i = 0; i < kW * kH; ++i) {
    int x = i % kW, y = i / kW, sum = 0;
    for (int dy = -1; dy <= 1; ++dy)
      for (int dx = -1; dx <= 1; ++dx) sum += at(img, x + dx, y + dy);
    b[i] = uint8_t(sum / 9);
  }
  for (int i = 0; i < kW * kH; ++i) {
    int x = i % kW, y = i / kW;
    auto p = [&](int dx, int dy) { return at(b, x + dx, y + dy); };
    int gx = p(1, -1) + 2 * p(1, 0) + p(1, 1) - p(-1, -1) - 2 * p(-1, 0) - p(-1, 1);
    int gy = p(-1, 1) + 2 * p(0, 1) + p(1, 1) - p(-1, -1) - 2 * p(0, -1) - p(1, -1);
    e[i] = uint8_t(std::min(255, (std::abs(gx) + std::abs(gy)) / 2));
    ++want[e[i]];
    ok = ok && mask[i] == (e[i] > 64 ? 255 : 0);
  }
  ok = ok && bins == want;
  std::printf("image_pipeline: %d frames of %dx%d\n", kFrames, kW, kH);
  return report("image_pipeline", ok);
}
