// A 7-point stencil over a 20x18x12 volume with a 3D grid of 3D blocks
// (8x4x4 threads); boundary cells copy their input.
#include <vector>

#include "check.h"

constexpr int X = 20, Y = 18, Z = 12;

__host__ __device__ inline int at(int x, int y, int z) { return (z * Y + y) * X + x; }

__global__ void stencil(const float* in, float* out) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  int z = blockIdx.z * blockDim.z + threadIdx.z;
  if (x >= X || y >= Y || z >= Z) return;
  if (x == 0 || y == 0 || z == 0 || x == X - 1 || y == Y - 1 || z == Z - 1) {
    out[at(x, y, z)] = in[at(x, y, z)];
    return;
  }
  out[at(x, y, z)] = 0.5f * in[at(x, y, z)] + 0.125f * (in[at(x - 1, y, z)] + in[at(x + 1, y, z)]) +
                     0.0625f * (in[at(x, y - 1, z)] + in[at(x, y + 1, z)] + in[at(x, y, z - 1)] + in[at(x, y, z + 1)]);
}

int main() {
  const int n = X * Y * Z;
  std::vector<float> in(n), out(n);
  for (int i = 0; i < n; ++i) in[i] = static_cast<float>((i * 13) % 17);  // small integers: exact sums
  float *d_in, *d_out;
  CHECK(cudaMalloc(&d_in, n * sizeof(float)));
  CHECK(cudaMalloc(&d_out, n * sizeof(float)));
  CHECK(cudaMemcpy(d_in, in.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  dim3 block(8, 4, 4), grid((X + 7) / 8, (Y + 3) / 4, (Z + 3) / 4);
  stencil<<<grid, block>>>(d_in, d_out);
  CHECK_LAUNCH();
  CHECK(cudaMemcpy(out.data(), d_out, n * sizeof(float), cudaMemcpyDeviceToHost));
  long bad = 0;
  for (int z = 0; z < Z; ++z)
    for (int y = 0; y < Y; ++y)
      for (int x = 0; x < X; ++x) {
        float want = in[at(x, y, z)];
        if (x > 0 && y > 0 && z > 0 && x < X - 1 && y < Y - 1 && z < Z - 1)
          want = 0.5f * in[at(x, y, z)] + 0.125f * (in[at(x - 1, y, z)] + in[at(x + 1, y, z)]) +
                 0.0625f * (in[at(x, y - 1, z)] + in[at(x, y + 1, z)] + in[at(x, y, z - 1)] + in[at(x, y, z + 1)]);
        bad += !close_enough(out[at(x, y, z)], want, 1e-6);
      }
  CHECK(cudaFree(d_in));
  CHECK(cudaFree(d_out));
  return verdict("stencil_3d", bad);
}
