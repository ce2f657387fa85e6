// parboil_stencil: 3-D 7-point Jacobi stencil on a 128 x 128 x 64 float grid,
// Parboil style: each CTA owns a 32 x 4 column of the xy plane and its
// threads walk up the z axis together. A thread keeps the z-1, z and z+1
// values of its own (x, y) in registers (loading only z+1 each step), and
// the current plane of the CTA's tile plus a one-point halo is staged in
// shared memory so the four in-plane neighbours come from there. Every sweep
// is one launch; sweeps ping-pong between two buffers. Boundary points are
// never written, so both buffers start with the same data. Checked against a
// host sweep in double.
#include <utility>
#include <vector>

#include "suite.h"

constexpr int kNX = 128, kNY = 128, kNZ = 64;
constexpr int kTileX = 32, kTileY = 4;
constexpr int kSweeps = 6;
constexpr float kC0 = 1.0f / 6.0f, kC1 = 1.0f / 6.0f / 6.0f;

__host__ __device__ inline int at3(int x, int y, int z, int nx, int ny) { return x + nx * (y + ny * z); }

__global__ void stencil7(float* __restrict__ out, const float* __restrict__ in, float c0, float c1, int nx, int ny,
                         int nz) {
  __shared__ float plane[kTileY + 2][kTileX + 2];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int x = blockIdx.x * kTileX + tx, y = blockIdx.y * kTileY + ty;
  const bool interior_xy = x > 0 && y > 0 && x < nx - 1 && y < ny - 1;

  float below = in[at3(x, y, 0, nx, ny)];
  float here = in[at3(x, y, 1, nx, ny)];
  for (int z = 1; z < nz - 1; ++z) {
    float above = in[at3(x, y, z + 1, nx, ny)];
    plane[ty + 1][tx + 1] = here;
    // Halo of the tile: the edge threads fetch the neighbouring columns/rows.
    if (tx == 0 && x > 0) plane[ty + 1][0] = in[at3(x - 1, y, z, nx, ny)];
    if (tx == kTileX - 1 && x < nx - 1) plane[ty + 1][kTileX + 1] = in[at3(x + 1, y, z, nx, ny)];
    if (ty == 0 && y > 0) plane[0][tx + 1] = in[at3(x, y - 1, z, nx, ny)];
    if (ty == kTileY - 1 && y < ny - 1) plane[kTileY + 1][tx + 1] = in[at3(x, y + 1, z, nx, ny)];
    __syncthreads();
    if (interior_xy) {
      float side = plane[ty + 1][tx] + plane[ty + 1][tx + 2] + plane[ty][tx + 1] + plane[ty + 2][tx + 1];
      out[at3(x, y, z, nx, ny)] = (below + above + side) * c1 - here * c0;
    }
    __syncthreads();
    below = here;
    here = above;
  }
}

int main() {
  static_assert(kNX % kTileX == 0 && kNY % kTileY == 0, "whole tiles");
  const size_t n = size_t(kNX) * kNY * kNZ;
  std::vector<float> grid0(n);
  fill_lcg(grid0, 99);
  float* d_a = to_device(grid0);
  float* d_b = to_device(grid0);

  dim3 block(kTileX, kTileY), grid(kNX / kTileX, kNY / kTileY);
  EventTimer timer;
  timer.start();
  float *src = d_a, *dst = d_b;
  for (int s = 0; s < kSweeps; ++s) {
    stencil7<<<grid, block>>>(dst, src, kC0, kC1, kNX, kNY, kNZ);
    std::swap(src, dst);
  }
  CHECK(cudaGetLastError());
  float ms = timer.stop_ms();
  CHECK_LAUNCH();
  std::vector<float> got = to_host(src, n);  // the last sweep's output

  std::vector<double> a(grid0.begin(), grid0.end()), b(a);
  for (int s = 0; s < kSweeps; ++s) {
    for (int z = 1; z < kNZ - 1; ++z)
      for (int y = 1; y < kNY - 1; ++y)
        for (int x = 1; x < kNX - 1; ++x) {
          double sum = a[at3(x, y, z - 1, kNX, kNY)] + a[at3(x, y, z + 1, kNX, kNY)] +
                       a[at3(x - 1, y, z, kNX, kNY)] + a[at3(x + 1, y, z, kNX, kNY)] +
                       a[at3(x, y - 1, z, kNX, kNY)] + a[at3(x, y + 1, z, kNX, kNY)];
          b[at3(x, y, z, kNX, kNY)] = sum * double(kC1) - a[at3(x, y, z, kNX, kNY)] * double(kC0);
        }
    std::swap(a, b);
  }
  long bad = 0;
  for (size_t i = 0; i < n; ++i) bad += !close_enough(got[i], a[i], 1e-4, 1e-6);
  double gpts = ms > 0 ? double(kNX - 2) * (kNY - 2) * (kNZ - 2) * kSweeps / (ms * 1e-3) / 1e9 : 0.0;
  std::printf("%.2f Gpoints/s\n", gpts);
  device_free(d_a, d_b);
  print_timing(ms, kSweeps);
  return verdict("parboil_stencil", bad);
}
