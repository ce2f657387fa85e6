// sobol_qrng: a 32-dimensional Sobol quasi-random sequence, 100,000 points
// per dimension, styled after the CUDA samples' SobolQRNG. The host builds
// the 32 direction numbers of every dimension: dimension 0 is the van der
// Corput sequence, dimension d > 0 takes the d-th primitive polynomial over
// GF(2) (found by brute force: x has order 2^deg - 1 modulo it) and odd
// initial values m_k < 2^k from a fixed-seed generator, extended with the
// Bratley-Fox recurrence. On the device a CTA of 64 threads loads its
// dimension's 32 direction numbers (blockIdx.y) into shared memory; every
// thread computes its first point from the Gray code of its index (XOR of
// the direction numbers of the set bits, found with __ffs), then strides by
// the total thread count 2^k, updating the point with two XORs per step:
// the direction numbers of bit k - 1 and of the lowest zero bit of
// (index | (2^k - 1)), again by __ffs. Points go out as float
// (x * 2^-32), dimension-major. Checked bit for bit against a host
// generator that walks the sequence one point at a time in Gray-code order.
#include <vector>

#include "suite.h"

typedef unsigned int uint;

constexpr int kDimensions = 32;
constexpr int kVectors = 100000;  // points per dimension
constexpr int kBits = 32;         // direction numbers per dimension
constexpr int kThreads = 64;
constexpr int kBlocksX = 128;  // 8192 threads per dimension: a power of two
constexpr int kIters = 2;
constexpr float kScale = 1.0f / 4294967296.0f;  // 2^-32, exact
static_assert(((kThreads * kBlocksX) & (kThreads * kBlocksX - 1)) == 0, "the stride must be a power of two");

__global__ void __launch_bounds__(kThreads)
    sobol_kernel(float* __restrict__ d_output, const uint* __restrict__ d_directions, int n_vectors) {
  __shared__ uint s_v[kBits];
  const uint* v = d_directions + blockIdx.y * kBits;
  if (threadIdx.x < kBits) s_v[threadIdx.x] = v[threadIdx.x];
  __syncthreads();

  uint index = blockIdx.x * blockDim.x + threadIdx.x;
  const uint stride = gridDim.x * blockDim.x;
  const int log2_stride = __ffs(stride) - 1;  // stride is a power of two

  // First point: XOR of the direction numbers of the Gray code's set bits.
  uint x = 0;
  for (uint g = index ^ (index >> 1); g != 0; g &= g - 1) x ^= s_v[__ffs(g) - 1];

  float* out = d_output + size_t(blockIdx.y) * n_vectors;
  for (; index < uint(n_vectors); index += stride) {
    out[index] = float(x) * kScale;
    // gray(index + stride) = gray(index) ^ bit (k - 1) ^ bit (lowest zero of index above bit k - 1).
    x ^= s_v[log2_stride - 1] ^ s_v[__ffs(~(index | (stride - 1))) - 1];
  }
}

// ---- host: direction numbers ----

// Degree of a GF(2) polynomial held in the bits of p (p != 0).
static int degree(uint p) {
  int d = 0;
  while (p >> (d + 1)) ++d;
  return d;
}

// Whether p (degree deg, constant term 1) is primitive: the powers of x
// modulo p cycle with period exactly 2^deg - 1.
static bool primitive(uint p, int deg) {
  if ((p & 1) == 0) return false;
  const uint period = (1u << deg) - 1;
  uint r = 1;  // x^0
  for (uint k = 1; k <= period; ++k) {
    r <<= 1;  // times x
    if (r >> deg) r ^= p;
    if (r == 1) return k == period;
  }
  return false;
}

// v[d * kBits + i]: direction number i of dimension d, as a 32-bit fraction.
static std::vector<uint> make_directions() {
  std::vector<uint> polys;
  for (uint p = 2; polys.size() < kDimensions - 1; ++p) {
    int deg = degree(p);
    if (deg >= 1 && primitive(p, deg)) polys.push_back(p);
  }
  std::vector<uint> v(kDimensions * kBits);
  for (int i = 0; i < kBits; ++i) v[i] = 1u << (31 - i);  // dimension 0: van der Corput
  XorShift32 rng(0x50B01u);
  for (int d = 1; d < kDimensions; ++d) {
    const uint p = polys[d - 1];
    const int s = degree(p);
    std::vector<uint> m(kBits + 1);  // m[1..kBits], m[k] odd and < 2^k
    for (int k = 1; k <= s && k <= kBits; ++k) m[k] = (rng.next() % (1u << (k - 1))) * 2 + 1;
    for (int k = s + 1; k <= kBits; ++k) {
      // m_k = 2^s m_{k-s} ^ m_{k-s} ^ sum over j of 2^j a_j m_{k-j}, a_j the
      // coefficient of x^(s-j) of p.
      uint mk = (m[k - s] << s) ^ m[k - s];
      for (int j = 1; j < s; ++j)
        if ((p >> (s - j)) & 1) mk ^= m[k - j] << j;
      m[k] = mk;
    }
    for (int k = 1; k <= kBits; ++k) v[d * kBits + (k - 1)] = m[k] << (32 - k);
  }
  return v;
}

int main() {
  const std::vector<uint> dirs = make_directions();
  uint* d_directions = to_device(dirs);
  float* d_output = device_zeros<float>(size_t(kDimensions) * kVectors);

  dim3 grid(kBlocksX, kDimensions);
  EventTimer timer;
  timer.start();
  for (int it = 0; it < kIters; ++it) sobol_kernel<<<grid, kThreads>>>(d_output, d_directions, kVectors);
  CHECK(cudaGetLastError());
  float ms = timer.stop_ms();
  CHECK_LAUNCH();

  std::vector<float> got = to_host(d_output, size_t(kDimensions) * kVectors);
  long bad = 0;
  for (int d = 0; d < kDimensions; ++d) {
    // Host: the sequence point by point, x_n = x_(n-1) ^ v[lowest zero bit of n - 1].
    const uint* v = &dirs[d * kBits];
    uint x = 0;
    long wrong = 0;
    for (int n = 0; n < kVectors; ++n) {
      if (n > 0) {
        uint c = 0;
        while ((uint(n - 1) >> c) & 1) ++c;
        x ^= v[c];
      }
      float want = float(x) * kScale;
      wrong += got[size_t(d) * kVectors + n] != want;
    }
    if (wrong) std::printf("dimension %d: %ld wrong\n", d, wrong);
    bad += wrong;
  }
  std::printf("%d dimensions x %d points %s\n", kDimensions, kVectors, bad ? "mismatch" : "bit-exact");
  double gsps = ms > 0 ? double(kDimensions) * kVectors * kIters / (ms * 1e-3) / 1e9 : 0.0;
  std::printf("%.2f Gsamples/s\n", gsps);

  print_timing(ms, kIters);
  device_free(d_directions, d_output);
  return verdict("sobol_qrng", bad);
}
