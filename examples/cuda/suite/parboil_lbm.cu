// parboil_lbm: lattice-Boltzmann D3Q19 stream-and-collide, Parboil style,
// on a 64 x 32 x 32 grid. Struct-of-arrays layout: distribution i of cell c
// at grid[i * kCells + c], cells x-fastest; two grids ping-pong, one launch
// per time step. One thread per cell (a CTA per x row): it loads its 19
// distributions (coalesced along x) and its flag, then
//   obstacle cells reflect: they send src[opp(i)][c] along direction i;
//   fluid cells compute density and velocity (inflow cells on the z = 1
//   plane have their velocity forced to (0, 0, kInflowUz)), relax towards
//   the equilibrium with BGK (omega = 1.95);
// then every cell pushes distribution i to the neighbour along direction i
// (dst[i][c + e_i], periodic indices): 19 scattered stores, and each entry
// of dst is written by exactly one cell.
// The grid's outer shell is wall, with a sphere and a few boxes of obstacle
// inside. The initial state is the equilibrium of a small random velocity
// field. Checked after kSteps steps against a host run of the same
// arithmetic (relative 1e-4), and total mass is compared as well.
#include <vector>

#include "suite.h"

constexpr int kNX = 64, kNY = 32, kNZ = 32;
constexpr int kCells = kNX * kNY * kNZ;
constexpr int kQ = 19;
constexpr int kSteps = 4;
constexpr float kOmega = 1.95f;
constexpr float kInflowUz = 0.01f;

enum CellFlag : unsigned char { kFluid = 0, kObstacle = 1, kInflow = 2 };

// Directions: rest, 6 faces, 12 edges, as compile-time functions of i
// (each component packed in 2 bits, value + 1) so that the unrolled loops
// fold them into constants, as Parboil's per-direction macros do.
constexpr unsigned long long kExBits = 0x1548889549ULL, kEyBits = 0x895429495ULL, kEzBits = 0x282954955ULL;
// The same components as plain lists; main() checks the packed ones against them.
static const int h_ex[kQ] = {0, 1, -1, 0, 0, 0, 0, 1, -1, 1, -1, 1, -1, 1, -1, 0, 0, 0, 0};
static const int h_ey[kQ] = {0, 0, 0, 1, -1, 0, 0, 1, 1, -1, -1, 0, 0, 0, 0, 1, -1, 1, -1};
static const int h_ez[kQ] = {0, 0, 0, 0, 0, 1, -1, 0, 0, 0, 0, 1, 1, -1, -1, 1, 1, -1, -1};
__host__ __device__ constexpr int ex(int i) { return int((kExBits >> (2 * i)) & 3) - 1; }
__host__ __device__ constexpr int ey(int i) { return int((kEyBits >> (2 * i)) & 3) - 1; }
__host__ __device__ constexpr int ez(int i) { return int((kEzBits >> (2 * i)) & 3) - 1; }
// Opposite direction: faces pair up as (1,2), (3,4), (5,6); edges in groups
// of four starting at 7, 11, 15, the k-th opposite to the (3-k)-th.
__host__ __device__ constexpr int opp(int i) {
  return i == 0 ? 0 : (i <= 6 ? ((i & 1) ? i + 1 : i - 1) : (7 + 4 * ((i - 7) / 4)) + 3 - (i - 7) % 4);
}
__host__ __device__ constexpr float weight(int i) {
  return i == 0 ? 1.0f / 3.0f : (i <= 6 ? 1.0f / 18.0f : 1.0f / 36.0f);
}

__host__ __device__ inline int cell_index(int x, int y, int z) { return (z * kNY + y) * kNX + x; }
// Periodic neighbour (the sizes are powers of two).
__host__ __device__ inline int neighbour(int x, int y, int z, int dx, int dy, int dz) {
  return cell_index((x + dx) & (kNX - 1), (y + dy) & (kNY - 1), (z + dz) & (kNZ - 1));
}

// The collision of one fluid cell, shared by the kernel and the host reference.
__host__ __device__ inline void collide(float f[kQ], bool inflow) {
  float rho = 0.0f, ux = 0.0f, uy = 0.0f, uz = 0.0f;
#pragma unroll
  for (int i = 0; i < kQ; ++i) {
    rho += f[i];
    ux += float(ex(i)) * f[i];
    uy += float(ey(i)) * f[i];
    uz += float(ez(i)) * f[i];
  }
  ux /= rho;
  uy /= rho;
  uz /= rho;
  if (inflow) {
    ux = 0.0f;
    uy = 0.0f;
    uz = kInflowUz;
  }
  const float u2 = 1.5f * (ux * ux + uy * uy + uz * uz);
#pragma unroll
  for (int i = 0; i < kQ; ++i) {
    float eu = float(ex(i)) * ux + float(ey(i)) * uy + float(ez(i)) * uz;
    float feq = weight(i) * rho * (1.0f + 3.0f * eu + 4.5f * eu * eu - u2);
    f[i] = (1.0f - kOmega) * f[i] + kOmega * feq;
  }
}

__global__ void lbm_stream_collide(const float* __restrict__ src, float* __restrict__ dst,
                                   const unsigned char* __restrict__ flags) {
  const int x = threadIdx.x, y = blockIdx.x, z = blockIdx.y;
  const int c = cell_index(x, y, z);
  float f[kQ];
#pragma unroll
  for (int i = 0; i < kQ; ++i) f[i] = src[i * kCells + c];
  const unsigned char flag = flags[c];
  if (flag == kObstacle) {
    float g[kQ];
#pragma unroll
    for (int i = 0; i < kQ; ++i) g[i] = f[opp(i)];
#pragma unroll
    for (int i = 0; i < kQ; ++i) f[i] = g[i];
  } else {
    collide(f, flag == kInflow);
  }
#pragma unroll
  for (int i = 0; i < kQ; ++i) dst[i * kCells + neighbour(x, y, z, ex(i), ey(i), ez(i))] = f[i];
}

static void host_step(const std::vector<float>& src, std::vector<float>& dst, const std::vector<unsigned char>& flags) {
  for (int z = 0; z < kNZ; ++z)
    for (int y = 0; y < kNY; ++y)
      for (int x = 0; x < kNX; ++x) {
        const int c = cell_index(x, y, z);
        float f[kQ];
        for (int i = 0; i < kQ; ++i) f[i] = src[size_t(i) * kCells + c];
        if (flags[c] == kObstacle) {
          float g[kQ];
          for (int i = 0; i < kQ; ++i) g[i] = f[opp(i)];
          for (int i = 0; i < kQ; ++i) f[i] = g[i];
        } else {
          collide(f, flags[c] == kInflow);
        }
        for (int i = 0; i < kQ; ++i) dst[size_t(i) * kCells + neighbour(x, y, z, ex(i), ey(i), ez(i))] = f[i];
      }
}

int main() {
  // The packed direction functions against the plain lists.
  for (int i = 0; i < kQ; ++i) {
    const int o = opp(i);
    if (ex(i) != h_ex[i] || ey(i) != h_ey[i] || ez(i) != h_ez[i] || ex(o) != -ex(i) || ey(o) != -ey(i) ||
        ez(o) != -ez(i)) {
      std::printf("direction table %d inconsistent\n", i);
      return 1;
    }
  }

  // Geometry: walls on the shell, a sphere, a few boxes; inflow on z = 1.
  std::vector<unsigned char> flags(kCells, kFluid);
  XorShift32 rng(1995);
  struct Box {
    int x0, y0, z0, x1, y1, z1;
  };
  std::vector<Box> boxes;
  for (int b = 0; b < 5; ++b) {
    int x0 = 2 + int(rng.next() % (kNX - 12)), y0 = 2 + int(rng.next() % (kNY - 10)),
        z0 = 4 + int(rng.next() % (kNZ - 12));
    int x1 = x0 + 2 + int(rng.next() % 6), y1 = y0 + 2 + int(rng.next() % 5), z1 = z0 + 1 + int(rng.next() % 4);
    boxes.push_back({x0, y0, z0, x1, y1, z1});
  }
  int obstacles = 0, inflows = 0;
  for (int z = 0; z < kNZ; ++z)
    for (int y = 0; y < kNY; ++y)
      for (int x = 0; x < kNX; ++x) {
        unsigned char f = kFluid;
        if (x == 0 || y == 0 || z == 0 || x == kNX - 1 || y == kNY - 1 || z == kNZ - 1) f = kObstacle;
        int dx = x - 40, dy = y - 16, dz = z - 18;
        if (dx * dx + dy * dy + dz * dz <= 36) f = kObstacle;
        for (const Box& b : boxes)
          if (x >= b.x0 && x <= b.x1 && y >= b.y0 && y <= b.y1 && z >= b.z0 && z <= b.z1) f = kObstacle;
        if (f == kFluid && z == 1) f = kInflow;
        flags[cell_index(x, y, z)] = f;
        obstacles += f == kObstacle;
        inflows += f == kInflow;
      }

  // Initial state: equilibrium of density ~1 and a small random velocity.
  std::vector<float> grid(size_t(kQ) * kCells);
  for (int c = 0; c < kCells; ++c) {
    float rho = 1.0f + 0.01f * rng.uniform_pm1();
    float ux = 0.02f * rng.uniform_pm1(), uy = 0.02f * rng.uniform_pm1(), uz = 0.02f * rng.uniform_pm1();
    float u2 = 1.5f * (ux * ux + uy * uy + uz * uz);
    for (int i = 0; i < kQ; ++i) {
      float eu = float(h_ex[i]) * ux + float(h_ey[i]) * uy + float(h_ez[i]) * uz;
      grid[size_t(i) * kCells + c] = weight(i) * rho * (1.0f + 3.0f * eu + 4.5f * eu * eu - u2);
    }
  }

  float* d_a = to_device(grid);
  float* d_b = device_zeros<float>(size_t(kQ) * kCells);  // every entry is written each step
  unsigned char* d_flags = to_device(flags);

  EventTimer timer;
  timer.start();
  float *src = d_a, *dst = d_b;
  for (int s = 0; s < kSteps; ++s) {
    lbm_stream_collide<<<dim3(kNY, kNZ), kNX>>>(src, dst, d_flags);
    std::swap(src, dst);
  }
  CHECK(cudaGetLastError());
  float ms = timer.stop_ms();
  CHECK_LAUNCH();
  std::vector<float> got = to_host(src, size_t(kQ) * kCells);

  std::vector<float> ha = grid, hb = grid;
  for (int s = 0; s < kSteps; ++s) {
    host_step(ha, hb, flags);
    std::swap(ha, hb);
  }
  long bad = 0;
  double mass_got = 0, mass_want = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    bad += !close_enough(got[i], ha[i], 1e-4, 1e-7);
    mass_got += got[i];
    mass_want += ha[i];
  }
  bad += !close_enough(mass_got, mass_want, 1e-6);
  std::printf("%d cells (%d obstacle, %d inflow), %d steps, mass %.6f (host %.6f)\n", kCells, obstacles, inflows,
              kSteps, mass_got, mass_want);

  print_timing(ms, kSteps);
  device_free(d_a, d_b, d_flags);
  return verdict("parboil_lbm", bad);
}
