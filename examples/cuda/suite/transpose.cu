// transpose: 1024 x 1024 float matrix copy and transpose, styled after the
// CUDA samples' transpose: TILE_DIM x TILE_DIM (32 x 32) tiles handled by
// TILE_DIM x BLOCK_ROWS (32 x 8) CTAs, so every thread moves four elements
// in a loop. Six kernels, each launched kReps times: a plain copy and a copy
// through a shared tile (the bandwidth references), the naive transpose
// (coalesced reads, 32-way strided writes), the coalesced transpose through
// an unpadded shared tile (32-way bank conflicts on the column reads), the
// same tile padded to 33 columns (no bank conflicts) and the padded tile with
// the CTAs renumbered along diagonals (spreads the writes over the DRAM
// partitions). Every result is compared exactly with the input or its
// transpose; the per-kernel bandwidths are printed for information.
#include <vector>

#include "suite.h"

constexpr int kTileDim = 32, kBlockRows = 8;
constexpr int kWidth = 1024, kHeight = 1024;
constexpr int kReps = 4;
static_assert(kWidth % kTileDim == 0 && kHeight % kTileDim == 0, "whole tiles only");

__global__ void copy_naive(float* out, const float* in, int width, int height) {
  int x = blockIdx.x * kTileDim + threadIdx.x;
  int y = blockIdx.y * kTileDim + threadIdx.y;
  int index = x + width * y;
  for (int i = 0; i < kTileDim; i += kBlockRows) out[index + i * width] = in[index + i * width];
}

__global__ void copy_shared(float* out, const float* in, int width, int height) {
  __shared__ float tile[kTileDim][kTileDim];
  int x = blockIdx.x * kTileDim + threadIdx.x;
  int y = blockIdx.y * kTileDim + threadIdx.y;
  int index = x + width * y;
  for (int i = 0; i < kTileDim; i += kBlockRows) tile[threadIdx.y + i][threadIdx.x] = in[index + i * width];
  __syncthreads();
  for (int i = 0; i < kTileDim; i += kBlockRows) out[index + i * width] = tile[threadIdx.y + i][threadIdx.x];
}

__global__ void transpose_naive(float* out, const float* in, int width, int height) {
  int x = blockIdx.x * kTileDim + threadIdx.x;
  int y = blockIdx.y * kTileDim + threadIdx.y;
  int in_index = x + width * y, out_index = y + height * x;
  for (int i = 0; i < kTileDim; i += kBlockRows) out[out_index + i] = in[in_index + i * width];
}

__global__ void transpose_coalesced(float* out, const float* in, int width, int height) {
  __shared__ float tile[kTileDim][kTileDim];
  int x = blockIdx.x * kTileDim + threadIdx.x;
  int y = blockIdx.y * kTileDim + threadIdx.y;
  int in_index = x + width * y;
  x = blockIdx.y * kTileDim + threadIdx.x;
  y = blockIdx.x * kTileDim + threadIdx.y;
  int out_index = x + height * y;
  for (int i = 0; i < kTileDim; i += kBlockRows) tile[threadIdx.y + i][threadIdx.x] = in[in_index + i * width];
  __syncthreads();
  for (int i = 0; i < kTileDim; i += kBlockRows) out[out_index + i * height] = tile[threadIdx.x][threadIdx.y + i];
}

__global__ void transpose_no_bank_conflicts(float* out, const float* in, int width, int height) {
  __shared__ float tile[kTileDim][kTileDim + 1];
  int x = blockIdx.x * kTileDim + threadIdx.x;
  int y = blockIdx.y * kTileDim + threadIdx.y;
  int in_index = x + width * y;
  x = blockIdx.y * kTileDim + threadIdx.x;
  y = blockIdx.x * kTileDim + threadIdx.y;
  int out_index = x + height * y;
  for (int i = 0; i < kTileDim; i += kBlockRows) tile[threadIdx.y + i][threadIdx.x] = in[in_index + i * width];
  __syncthreads();
  for (int i = 0; i < kTileDim; i += kBlockRows) out[out_index + i * height] = tile[threadIdx.x][threadIdx.y + i];
}

// Diagonal block ordering: consecutive CTAs take tiles along a diagonal.
__global__ void transpose_diagonal(float* out, const float* in, int width, int height) {
  __shared__ float tile[kTileDim][kTileDim + 1];
  int bx, by;
  if (width == height) {
    by = blockIdx.x;
    bx = (blockIdx.x + blockIdx.y) % gridDim.x;
  } else {
    int bid = blockIdx.x + gridDim.x * blockIdx.y;
    by = bid % gridDim.y;
    bx = ((bid / gridDim.y) + by) % gridDim.x;
  }
  int x = bx * kTileDim + threadIdx.x;
  int y = by * kTileDim + threadIdx.y;
  int in_index = x + width * y;
  x = by * kTileDim + threadIdx.x;
  y = bx * kTileDim + threadIdx.y;
  int out_index = x + height * y;
  for (int i = 0; i < kTileDim; i += kBlockRows) tile[threadIdx.y + i][threadIdx.x] = in[in_index + i * width];
  __syncthreads();
  for (int i = 0; i < kTileDim; i += kBlockRows) out[out_index + i * height] = tile[threadIdx.x][threadIdx.y + i];
}

using Kernel = void (*)(float*, const float*, int, int);
struct Case {
  const char* name;
  Kernel kernel;
  bool transposes;
};

int main() {
  const size_t n = size_t(kWidth) * kHeight;
  std::vector<float> in(n), out(n);
  for (size_t i = 0; i < n; ++i) in[i] = float(i);  // every value distinct and exact in float
  std::vector<float> want_t(n);
  for (int y = 0; y < kHeight; ++y)
    for (int x = 0; x < kWidth; ++x) want_t[size_t(x) * kHeight + y] = in[size_t(y) * kWidth + x];

  float *d_in = to_device(in), *d_out = device_alloc<float>(n);
  const Case cases[] = {
      {"copy_naive", copy_naive, false},
      {"copy_shared", copy_shared, false},
      {"transpose_naive", transpose_naive, true},
      {"transpose_coalesced", transpose_coalesced, true},
      {"transpose_no_bank_conflicts", transpose_no_bank_conflicts, true},
      {"transpose_diagonal", transpose_diagonal, true},
  };
  dim3 grid(kWidth / kTileDim, kHeight / kTileDim), threads(kTileDim, kBlockRows);

  long bad = 0;
  float total_ms = 0;
  int launches = 0;
  for (const Case& c : cases) {
    CHECK(cudaMemset(d_out, 0, n * sizeof(float)));
    EventTimer timer;
    timer.start();
    for (int r = 0; r < kReps; ++r) c.kernel<<<grid, threads>>>(d_out, d_in, kWidth, kHeight);
    CHECK(cudaGetLastError());
    float ms = timer.stop_ms();
    CHECK_LAUNCH();
    total_ms += ms;
    launches += kReps;
    copy_to_host(out, d_out);
    const std::vector<float>& want = c.transposes ? want_t : in;
    long wrong = 0;
    for (size_t i = 0; i < n; ++i) wrong += out[i] != want[i];
    double gbs = ms > 0 ? 2.0 * n * sizeof(float) * kReps / (ms * 1e-3) / 1e9 : 0.0;
    std::printf("%-28s %8.2f GB/s  %s\n", c.name, gbs, wrong ? "mismatch" : "ok");
    bad += wrong;
  }

  print_timing(total_ms, launches);
  device_free(d_in, d_out);
  return verdict("transpose", bad);
}
