// Suite benchmark: particle potentials and forces in a 3-D grid of boxes, in
// the style of Rodinia's lavaMD. The space is 4 x 4 x 4 unit boxes with 100
// charged particles each (a float4: position and charge). The host builds a
// box table: each box's first particle and a record (position, index, first
// particle) for each of its up to 26 neighbour boxes (fewer at the faces,
// edges and corners); the parameters go by value as a struct. One launch of
// `lavamd_kernel` with one 128-thread CTA per box: the CTA copies its home
// box into shared memory, then for the home box and every neighbour copies
// that box's particles into a second shared array and each of the first 100
// threads adds, for its home particle, q * exp(-a2 r^2) to the potential and
// q * 2 exp(-a2 r^2) * (ri - rj) to the force over all the box's particles,
// in registers, written once at the end as a float4. Exercises an
// array-of-structs table with an embedded array of structs holding 64-bit
// offsets, a by-value struct parameter with 64-bit fields, float4 shared
// loads and stores, a CTA wider than the work (idle threads that still load
// and synchronise), expf, and a data-dependent neighbour loop between
// __syncthreads. Checked against the same sums in double on the host.
#include <cmath>
#include <vector>

#include "suite.h"

constexpr int kBoxes1d = 4;
constexpr int kBoxes = kBoxes1d * kBoxes1d * kBoxes1d;
constexpr int kPar = 100;     // particles per box
constexpr int kThreads = 128;  // CTA size, as the original
constexpr int kParticles = kBoxes * kPar;
constexpr float kAlpha = 0.5f;
static_assert(kPar <= kThreads, "one home particle per thread at most");

// A neighbour's grid position, index and first particle (64-bit, as the
// original keeps offsets).
struct Neighbour {
  int x, y, z;
  int number;
  long offset;
};

struct Box {
  int x, y, z;        // position in the grid
  int number;         // index
  long offset;        // first particle
  int nn;             // neighbours in use
  Neighbour nei[26];
};

// Passed by value to the kernel.
struct Params {
  float a2;           // 2 alpha^2
  long boxes;
  long particles;
};

__global__ void lavamd_kernel(Params par, const Box* boxes, const float4* pq, float4* fv) {
  __shared__ float4 home[kPar];
  __shared__ float4 other[kPar];
  int bx = blockIdx.x, tx = threadIdx.x;
  if (bx >= par.boxes) return;
  long first = boxes[bx].offset;
  int nn = boxes[bx].nn;
  for (int i = tx; i < kPar; i += blockDim.x) home[i] = pq[first + i];
  float4 acc = make_float4(0.0f, 0.0f, 0.0f, 0.0f);  // potential, force x, y, z
  for (int k = 0; k <= nn; ++k) {
    long src = k == 0 ? first : boxes[bx].nei[k - 1].offset;
    __syncthreads();  // the previous box is no longer read
    for (int i = tx; i < kPar; i += blockDim.x) other[i] = pq[src + i];
    __syncthreads();
    if (tx < kPar) {
      float4 a = home[tx];
      for (int j = 0; j < kPar; ++j) {
        float4 b = other[j];
        float dx = a.x - b.x, dy = a.y - b.y, dz = a.z - b.z;
        float r2 = dx * dx + dy * dy + dz * dz;
        float vij = expf(-par.a2 * r2);
        float fs = 2.0f * vij;
        acc.x += b.w * vij;
        acc.y += b.w * fs * dx;
        acc.z += b.w * fs * dy;
        acc.w += b.w * fs * dz;
      }
    }
  }
  if (tx < kPar) fv[first + tx] = make_float4(acc.x, acc.y, acc.z, acc.w);
}

std::vector<Box> make_boxes() {
  std::vector<Box> boxes(kBoxes);
  for (int z = 0; z < kBoxes1d; ++z)
    for (int y = 0; y < kBoxes1d; ++y)
      for (int x = 0; x < kBoxes1d; ++x) {
        int b = (z * kBoxes1d + y) * kBoxes1d + x;
        Box& box = boxes[b];
        box.x = x, box.y = y, box.z = z;
        box.number = b;
        box.offset = long(b) * kPar;
        box.nn = 0;
        for (int dz = -1; dz <= 1; ++dz)
          for (int dy = -1; dy <= 1; ++dy)
            for (int dx = -1; dx <= 1; ++dx) {
              int nx = x + dx, ny = y + dy, nz = z + dz;
              if ((dx | dy | dz) == 0 || nx < 0 || ny < 0 || nz < 0 || nx >= kBoxes1d || ny >= kBoxes1d ||
                  nz >= kBoxes1d)
                continue;
              int m = (nz * kBoxes1d + ny) * kBoxes1d + nx;
              box.nei[box.nn++] = Neighbour{nx, ny, nz, m, long(m) * kPar};
            }
        for (int i = box.nn; i < 26; ++i) box.nei[i] = Neighbour{-1, -1, -1, -1, -1};
      }
  return boxes;
}

// Particles scattered in their own box; charges 0.1 .. 1.0.
std::vector<float4> make_particles(const std::vector<Box>& boxes) {
  std::vector<float4> pq(kParticles);
  XorShift32 rng{0x5EED1234u};
  for (const Box& b : boxes)
    for (int i = 0; i < kPar; ++i) {
      float4& p = pq[b.offset + i];
      p.x = b.x + rng.uniform();
      p.y = b.y + rng.uniform();
      p.z = b.z + rng.uniform();
      p.w = 0.1f * float(1 + rng.next() % 10);
    }
  return pq;
}

int main() {
  std::vector<Box> boxes = make_boxes();
  std::vector<float4> pq = make_particles(boxes);
  float a2 = 2.0f * kAlpha * kAlpha;
  Params par{a2, kBoxes, kParticles};

  Box* d_boxes = to_device(boxes);
  float4* d_pq = to_device(pq);
  float4* d_fv = device_zeros<float4>(kParticles);

  EventTimer timer;
  timer.start();
  lavamd_kernel<<<kBoxes, kThreads>>>(par, d_boxes, d_pq, d_fv);
  CHECK(cudaGetLastError());
  float ms = timer.stop_ms();
  CHECK_LAUNCH();
  std::vector<float4> fv = to_host(d_fv, kParticles);

  // The host: the same sums in double, with the sum of the terms' magnitudes
  // as the scale of the rounding a float sum may carry.
  long bad = 0;
  for (const Box& b : boxes)
    for (int i = 0; i < kPar; ++i) {
      const float4& a = pq[b.offset + i];
      double want[4] = {0, 0, 0, 0}, scale[4] = {0, 0, 0, 0};
      for (int k = 0; k <= b.nn; ++k) {
        long src = k == 0 ? b.offset : b.nei[k - 1].offset;
        for (int j = 0; j < kPar; ++j) {
          const float4& o = pq[src + j];
          double d[3] = {double(a.x) - o.x, double(a.y) - o.y, double(a.z) - o.z};
          double vij = std::exp(-double(a2) * (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]));
          double term[4] = {o.w * vij, o.w * 2 * vij * d[0], o.w * 2 * vij * d[1], o.w * 2 * vij * d[2]};
          for (int c = 0; c < 4; ++c) want[c] += term[c], scale[c] += std::fabs(term[c]);
        }
      }
      const float4& g = fv[b.offset + i];
      float got[4] = {g.x, g.y, g.z, g.w};
      for (int c = 0; c < 4; ++c) bad += !(std::fabs(got[c] - want[c]) <= 1e-5 * scale[c] + 1e-6);
    }

  print_timing(ms, 1);
  device_free(d_boxes, d_pq, d_fv);
  return verdict("lavamd", bad);
}
