// Kernel parameter layouts: scalars of every width, pointers, a struct by value.
#include <cstdint>

struct Particle {
  float pos[3];
  double mass;
  int id;
};

__global__ void many_params(char c, short s, int i, long long ll, float f, double d,
                            unsigned char uc, int* out, Particle p, bool flag) {
  if (flag) {
    out[0] = c + s + i + (int)ll + (int)f + (int)d + uc;
    out[1] = p.id + (int)(p.pos[0] + p.pos[1] + p.pos[2] + p.mass);
  }
}

__global__ void grid3d(float* data, int nx, int ny, int nz) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  int z = blockIdx.z * blockDim.z + threadIdx.z;
  if (x < nx && y < ny && z < nz) {
    data[(z * ny + y) * nx + x] *= 2.0f;
  }
}

__global__ void grid2d(const int* __restrict__ in, int* __restrict__ out, int w, int h) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (col < w && row < h) out[col * h + row] = in[row * w + col];
}
