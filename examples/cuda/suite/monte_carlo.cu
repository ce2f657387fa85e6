// monte_carlo: Monte Carlo pricing of a European call and an estimate of pi
// with the cuRAND device API, styled after the CUDA samples'
// MonteCarloMultiGPU / MC_EstimatePiInlineP: a setup kernel gives every
// thread its own XORWOW state (curand_init with the thread index as the
// subsequence, so each one runs the skip-ahead matrices) and keeps it in
// global memory; the pricing kernel loads the state, draws kPaths normals
// with curand_normal (Box-Muller with the fast sin/cos), sums the payoffs
// and their squares, stores the state back and reduces the sums per CTA in
// shared memory; a one-CTA kernel combines the CTA partials. A pi kernel then
// continues from the stored states with curand_uniform pairs, counts hits in
// the unit quarter circle with a shared-memory tree and one atomicAdd per
// CTA, and a last kernel sums raw curand() words with 64-bit atomics.
// Checks: the price against Black-Scholes within the Monte Carlo error, and,
// since XORWOW is deterministic, every draw against a host reimplementation
// of the generator (its seeding and skip-ahead): the raw word sum and the hit
// count exactly, the payoff sum to float-summation tolerance.
#include <curand_kernel.h>

#include <cmath>
#include <vector>

#include "suite.h"

constexpr int kCtas = 64, kThreads = 256, kPaths = 32, kRawDraws = 8;
constexpr int kStates = kCtas * kThreads;
constexpr unsigned long long kSeed = 1234ull;
constexpr float kSpot = 100.0f, kStrike = 100.0f, kYears = 1.0f, kRate = 0.05f, kVol = 0.20f;

// ---- kernels ----

__global__ void setup_states(curandState* states) {
  int tid = blockIdx.x * blockDim.x + threadIdx.x;
  curand_init(kSeed, tid, 0, &states[tid]);
}

// Per CTA: the sums of the discounted-free payoffs and of their squares.
__global__ void price_call(curandState* states, float2* partial, float spot, float strike, float drift,
                           float vol_sqrt_t) {
  __shared__ float s_sum[kThreads];
  __shared__ float s_sq[kThreads];
  int t = threadIdx.x, tid = blockIdx.x * blockDim.x + t;
  curandState local = states[tid];
  float sum = 0.0f, sq = 0.0f;
  for (int p = 0; p < kPaths; ++p) {
    float z = curand_normal(&local);
    float end = spot * expf(drift + vol_sqrt_t * z);
    float payoff = fmaxf(end - strike, 0.0f);
    sum += payoff;
    sq += payoff * payoff;
  }
  states[tid] = local;
  s_sum[t] = sum;
  s_sq[t] = sq;
  __syncthreads();
  for (int half = kThreads / 2; half > 0; half >>= 1) {
    if (t < half) {
      s_sum[t] += s_sum[t + half];
      s_sq[t] += s_sq[t + half];
    }
    __syncthreads();
  }
  if (t == 0) partial[blockIdx.x] = make_float2(s_sum[0], s_sq[0]);
}

// One CTA of kCtas threads: the partials into the totals.
__global__ void reduce_partials(const float2* partial, float2* total) {
  __shared__ float2 s[kCtas];
  int t = threadIdx.x;
  s[t] = partial[t];
  __syncthreads();
  for (int half = kCtas / 2; half > 0; half >>= 1) {
    if (t < half) {
      s[t].x += s[t + half].x;
      s[t].y += s[t + half].y;
    }
    __syncthreads();
  }
  if (t == 0) *total = s[0];
}

__device__ inline bool in_quarter_circle(float x, float y) { return x * x + y * y <= 1.0f; }

__global__ void estimate_pi(curandState* states, unsigned int* hits) {
  __shared__ unsigned int s_hits[kThreads];
  int t = threadIdx.x, tid = blockIdx.x * blockDim.x + t;
  curandState local = states[tid];
  unsigned int inside = 0;
  for (int p = 0; p < kPaths; ++p) {
    float x = curand_uniform(&local);
    float y = curand_uniform(&local);
    inside += in_quarter_circle(x, y);
  }
  states[tid] = local;
  s_hits[t] = inside;
  __syncthreads();
  for (int half = kThreads / 2; half > 0; half >>= 1) {
    if (t < half) s_hits[t] += s_hits[t + half];
    __syncthreads();
  }
  if (t == 0) atomicAdd(hits, s_hits[0]);
}

__global__ void raw_word_sum(curandState* states, unsigned long long* total) {
  int tid = blockIdx.x * blockDim.x + threadIdx.x;
  curandState local = states[tid];
  unsigned long long sum = 0;
  for (int i = 0; i < kRawDraws; ++i) sum += curand(&local);
  states[tid] = local;
  atomicAdd(total, sum);
}

// ---- host reimplementation of XORWOW ----

struct HostXorwow {
  uint32_t d, v[5];

  HostXorwow(unsigned long long seed, unsigned long long subsequence) {
    uint32_t s0 = uint32_t(seed) ^ 0xaad26b49u, s1 = uint32_t(seed >> 32) ^ 0xf7dcefddu;
    uint32_t t0 = 1099087573u * s0, t1 = 2591861531u * s1;
    d = 6615241u + t1 + t0;
    v[0] = 123456789u + t0;
    v[1] = 362436069u ^ t0;
    v[2] = 521288629u + t1;
    v[3] = 88675123u ^ t1;
    v[4] = 5783321u + t0;
    // Jump 2^67 * subsequence draws: matrix m advances by 4^m subsequences.
    for (int m = 0; subsequence; ++m, subsequence >>= 2)
      for (unsigned k = 0; k < (subsequence & 3u); ++k) apply(precalc_xorwow_matrix_host[m]);
  }

  // v <- v * M over GF(2), M as 160 rows of 5 words.
  void apply(const unsigned int* mat) {
    uint32_t r[5] = {0, 0, 0, 0, 0};
    for (int bit = 0; bit < 160; ++bit)
      if (v[bit / 32] >> (bit % 32) & 1u)
        for (int k = 0; k < 5; ++k) r[k] ^= mat[5 * bit + k];
    for (int k = 0; k < 5; ++k) v[k] = r[k];
  }

  uint32_t next() {
    uint32_t t = v[0] ^ (v[0] >> 2);
    v[0] = v[1];
    v[1] = v[2];
    v[2] = v[3];
    v[3] = v[4];
    v[4] = (v[4] ^ (v[4] << 4)) ^ (t ^ (t << 1));
    d += 362437u;
    return v[4] + d;
  }
};

// The device computes u = float(x) * 2^-32 + 2^-33 as one fused multiply-add.
static float host_uniform(uint32_t x) {
  const float inv = 2.3283064e-10f;
  return std::fmaf(float(x), inv, inv / 2.0f);
}

static double normal_cdf(double x) { return 0.5 * std::erfc(-x / std::sqrt(2.0)); }

int main() {
  curandState* d_states = device_alloc<curandState>(kStates);
  float2 *d_partial = device_alloc<float2>(kCtas), *d_total = device_alloc<float2>(1);
  unsigned int* d_hits = device_zeros<unsigned int>(1);
  unsigned long long* d_raw = device_zeros<unsigned long long>(1);

  float drift = (kRate - 0.5f * kVol * kVol) * kYears, vol_sqrt_t = kVol * sqrtf(kYears);
  EventTimer timer;
  timer.start();
  setup_states<<<kCtas, kThreads>>>(d_states);
  price_call<<<kCtas, kThreads>>>(d_states, d_partial, kSpot, kStrike, drift, vol_sqrt_t);
  reduce_partials<<<1, kCtas>>>(d_partial, d_total);
  estimate_pi<<<kCtas, kThreads>>>(d_states, d_hits);
  raw_word_sum<<<kCtas, kThreads>>>(d_states, d_raw);
  CHECK(cudaGetLastError());
  float ms = timer.stop_ms();
  CHECK_LAUNCH();
  const int launches = 5;

  float2 total;
  unsigned int hits;
  unsigned long long raw;
  CHECK(cudaMemcpy(&total, d_total, sizeof total, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(&hits, d_hits, sizeof hits, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(&raw, d_raw, sizeof raw, cudaMemcpyDeviceToHost));

  // Replay every thread's stream on the host.
  double ref_sum = 0;
  unsigned int ref_hits = 0;
  unsigned long long ref_raw = 0;
  for (int tid = 0; tid < kStates; ++tid) {
    HostXorwow g(kSeed, tid);
    for (int p = 0; p < kPaths; p += 2) {  // curand_normal: one Box-Muller pair per two calls
      float u = host_uniform(g.next());
      float v = std::fmaf(float(g.next()), 2.3283064e-10f * 6.2831855f, 2.3283064e-10f * 6.2831855f / 2.0f);
      double s = std::sqrt(-2.0 * std::log(double(u)));
      for (double z : {std::sin(double(v)) * s, std::cos(double(v)) * s}) {
        double end = double(kSpot) * std::exp(double(drift) + double(vol_sqrt_t) * z);
        ref_sum += std::fmax(end - kStrike, 0.0);
      }
    }
    for (int p = 0; p < kPaths; ++p) {
      float x = host_uniform(g.next()), y = host_uniform(g.next());
      ref_hits += std::fmaf(x, x, y * y) <= 1.0f;
    }
    for (int i = 0; i < kRawDraws; ++i) ref_raw += g.next();
  }

  const double n = double(kStates) * kPaths;
  double mean = total.x / n, var = total.y / n - mean * mean, stderr_ = std::sqrt(var / n);
  double d1 = (std::log(double(kSpot) / kStrike) + (kRate + 0.5 * kVol * kVol) * kYears) / (kVol * std::sqrt(kYears));
  double d2 = d1 - kVol * std::sqrt(kYears);
  // Undiscounted expectation E[max(S_T - X, 0)] under the risk-neutral drift.
  double bs = kSpot * std::exp(kRate * kYears) * normal_cdf(d1) - kStrike * normal_cdf(d2);
  double pi = 4.0 * hits / n;
  std::printf("mc payoff %.5f (host replay %.5f, Black-Scholes %.5f, stderr %.5f)\n", mean, ref_sum / n, bs, stderr_);
  std::printf("pi %.5f, hits %u (host %u), raw sum %llu (host %llu)\n", pi, hits, ref_hits, raw, ref_raw);

  long bad = 0;
  bad += !(std::fabs(mean - bs) < 5 * stderr_);
  bad += !close_enough(total.x, ref_sum, 1e-4);
  bad += !(stderr_ > 0.005 && stderr_ < 0.05);
  bad += !(std::fabs(pi - M_PI) < 0.01);
  bad += hits != ref_hits;
  bad += raw != ref_raw;

  print_timing(ms, launches);
  device_free(d_states, d_partial, d_total, d_hits, d_raw);
  return verdict("monte_carlo", bad);
}
