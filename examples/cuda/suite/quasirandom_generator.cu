// quasirandom_generator: a 3-dimensional base-2 Niederreiter sequence of
// 2^20 points per dimension and its transform to normal deviates, styled
// after the CUDA samples' quasirandomGenerator. The host builds the
// generator matrices: dimension d uses the d-th irreducible polynomial p
// over GF(2) (x, x + 1, x^2 + x + 1; degree e), and output digit j of
// index bit r is the coefficient of x^(-r-1) in the Laurent expansion of
// x^(e-u-1) / p^(Q+1), where j - 1 = Q e + u (long division in GF(2)). Each
// matrix column is packed into a 31-bit word, the 3 x 31 words sit in
// __constant__ memory (c_table, written with cudaMemcpyToSymbol). Kernel
// one, one CTA row per dimension (blockIdx.y), grid-stride over the points:
// for each of the 31 bits of index + seed, XOR in the column when the bit is
// set (uniform constant reads, a data-dependent predicate per lane), then
// the 31-bit result becomes a float in (0, 1) as (2 (r >> 8) + 1) 2^-24,
// exact and never 0 or 1. Kernel two maps those uniforms to standard normal
// deviates with Moro's inverse cumulative normal (a rational function in
// the centre, a Chebyshev-like polynomial in log(-log(min(u, 1 - u))) in the
// tails, so the lanes of a warp take both sides of the branch). Checked:
// the uniforms bit for bit against a host generator, the normals against
// Moro's formula in double on the host with a tolerance.
#include <cmath>
#include <cstdint>
#include <vector>

#include "suite.h"

typedef unsigned int uint;

constexpr int kDimensions = 3;
constexpr int kResolution = 31;  // index bits and output bits
constexpr int kN = 1 << 20;      // points per dimension
constexpr uint kSeed = 0;
constexpr int kGenThreads = 128, kGenBlocksX = 128;
constexpr int kCndThreads = 128, kCndBlocks = 128;

__constant__ uint c_table[kDimensions][kResolution];

// 31-bit integer r -> (2 (r >> 8) + 1) * 2^-24: 24 significant bits, exact.
__host__ __device__ inline float to_unit(uint r) { return float(r >> 8) * (1.0f / 8388608.0f) + (1.0f / 16777216.0f); }

__global__ void quasirandom_generator_kernel(float* __restrict__ d_output, uint seed, int n) {
  const int dim = blockIdx.y;
  float* out = d_output + size_t(dim) * n;
  for (int pos = blockIdx.x * blockDim.x + threadIdx.x; pos < n; pos += blockDim.x * gridDim.x) {
    uint data = uint(pos) + seed;
    uint result = 0;
    for (int bit = 0; bit < kResolution; ++bit, data >>= 1)
      if (data & 1) result ^= c_table[dim][bit];
    out[pos] = to_unit(result);
  }
}

// Moro's inverse cumulative normal: Beasley-Springer rational function for
// |u - 0.5| < 0.42, Moro's polynomial in log(-log(.)) beyond.
template <typename T>
__host__ __device__ inline T moro_inv_cnd(T u) {
  const T a0 = T(2.50662823884), a1 = T(-18.61500062529), a2 = T(41.39119773534), a3 = T(-25.44106049637);
  const T b0 = T(-8.47351093090), b1 = T(23.08336743743), b2 = T(-21.06224101826), b3 = T(3.13082909833);
  const T c0 = T(0.3374754822726147), c1 = T(0.9761690190917186), c2 = T(0.1607979714918209),
          c3 = T(0.0276438810333863), c4 = T(0.0038405729373609), c5 = T(0.0003951896511919),
          c6 = T(0.0000321767881768), c7 = T(0.0000002888167364), c8 = T(0.0000003960315187);
  T y = u - T(0.5);
  if (fabs(y) < T(0.42)) {
    T r = y * y;
    return y * (((a3 * r + a2) * r + a1) * r + a0) / ((((b3 * r + b2) * r + b1) * r + b0) * r + T(1));
  }
  T r = y < 0 ? u : T(1) - u;
  r = log(-log(r));
  T x = c0 + r * (c1 + r * (c2 + r * (c3 + r * (c4 + r * (c5 + r * (c6 + r * (c7 + r * c8)))))));
  return y < 0 ? -x : x;
}

__global__ void inverse_cnd_kernel(float* __restrict__ d_output, const float* __restrict__ d_input, int n) {
  for (int pos = blockIdx.x * blockDim.x + threadIdx.x; pos < n; pos += blockDim.x * gridDim.x)
    d_output[pos] = moro_inv_cnd<float>(d_input[pos]);
}

// ---- host: the generator matrices ----

static uint64_t gf2_mul(uint64_t a, uint64_t b) {
  uint64_t r = 0;
  for (; b; b >>= 1, a <<= 1)
    if (b & 1) r ^= a;
  return r;
}

static int gf2_degree(uint64_t p) {
  int d = 0;
  while (p >> (d + 1)) ++d;
  return d;
}

// table[r]: bit (31 - j) is output digit j (1..31) for index bit r.
static void niederreiter_columns(uint64_t p, uint* table) {
  const int e = gf2_degree(p);
  for (int r = 0; r < kResolution; ++r) table[r] = 0;
  for (int j = 1; j <= kResolution; ++j) {
    const int q = (j - 1) / e, u = (j - 1) % e;
    uint64_t power = 1;
    for (int k = 0; k <= q; ++k) power = gf2_mul(power, p);
    const int deg = gf2_degree(power);
    uint64_t num = uint64_t(1) << (e - u - 1);
    // Laurent digits of num / power: multiply by x, subtract power when the
    // degree reaches deg(power).
    for (int r = 0; r < kResolution; ++r) {
      num <<= 1;
      if ((num >> deg) & 1) {
        table[r] |= 1u << (31 - j);
        num ^= power;
      }
    }
  }
}

int main() {
  const uint64_t polys[kDimensions] = {0x2, 0x3, 0x7};  // x, x + 1, x^2 + x + 1
  uint table[kDimensions][kResolution];
  for (int d = 0; d < kDimensions; ++d) niederreiter_columns(polys[d], table[d]);
  CHECK(cudaMemcpyToSymbol(c_table, table, sizeof(table)));

  const size_t total = size_t(kDimensions) * kN;
  float* d_uniform = device_zeros<float>(total);
  float* d_normal = device_zeros<float>(total);

  EventTimer gen_timer;
  gen_timer.start();
  quasirandom_generator_kernel<<<dim3(kGenBlocksX, kDimensions), kGenThreads>>>(d_uniform, kSeed, kN);
  CHECK(cudaGetLastError());
  float gen_ms = gen_timer.stop_ms();
  CHECK_LAUNCH();

  EventTimer cnd_timer;
  cnd_timer.start();
  inverse_cnd_kernel<<<kCndBlocks, kCndThreads>>>(d_normal, d_uniform, int(total));
  CHECK(cudaGetLastError());
  float cnd_ms = cnd_timer.stop_ms();
  CHECK_LAUNCH();

  std::vector<float> uniform = to_host(d_uniform, total), normal = to_host(d_normal, total);

  long bad_gen = 0;
  for (int d = 0; d < kDimensions; ++d)
    for (int i = 0; i < kN; ++i) {
      uint data = uint(i) + kSeed, result = 0;
      for (int bit = 0; bit < kResolution; ++bit, data >>= 1)
        if (data & 1) result ^= table[d][bit];
      bad_gen += uniform[size_t(d) * kN + i] != to_unit(result);
    }
  std::printf("generator   %s\n", bad_gen ? "mismatch" : "bit-exact");

  long bad_cnd = 0;
  double sum_err = 0, sum_ref = 0, max_err = 0;
  for (size_t i = 0; i < total; ++i) {
    double want = moro_inv_cnd<double>(double(uniform[i]));
    double e = std::fabs(normal[i] - want);
    sum_err += e;
    sum_ref += std::fabs(want);
    max_err = std::fmax(max_err, e);
    bad_cnd += !close_enough(normal[i], want, 1e-5, 2e-6);
  }
  std::printf("inverse CND L1 norm %.3e, max abs err %.3e\n", sum_err / sum_ref, max_err);
  if (sum_err / sum_ref > 1e-6) ++bad_cnd;

  print_timing(gen_ms + cnd_ms, 2);
  device_free(d_uniform, d_normal);
  return verdict("quasirandom_generator", bad_gen + bad_cnd);
}
