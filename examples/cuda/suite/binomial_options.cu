// binomial_options: European call prices of 256 options on a Cox-Ross-
// Rubinstein binomial tree of kSteps = 2048 time steps, styled after the
// CUDA samples' binomialOptions: one CTA per option, in float. The host
// turns each option's spot, strike and expiry into the tree's per-step
// parameters (vDt = V sqrt(dt) and the discounted up / down probabilities,
// in double, rounded once to float), as the sample does. On the device the
// 2049 leaves are computed with expf; each of the 128 threads keeps 16
// consecutive tree nodes in registers, and the backward induction runs
// 2048 steps, each step publishing every thread's first node in a
// double-buffered shared array, one __syncthreads, then 16 dependent
// FMA updates (node[i] = pu * node[i + 1] + pd * node[i]) per thread; warps
// whose nodes have all left the shrinking tree skip the arithmetic but keep
// taking part in the barrier. Checked against the same tree in double on
// the host, built from the float parameters the device gets, with a
// tolerance; the difference from the Black-Scholes closed form (the tree's
// limit) is printed for information.
#include <cmath>
#include <vector>

#include "suite.h"

constexpr int kOptions = 256;
constexpr int kSteps = 2048;
constexpr int kThreads = 128;
constexpr int kElems = kSteps / kThreads;  // 16 nodes per thread; node kSteps lives in shared memory
constexpr double kRiskFree = 0.06, kVolatility = 0.10;
static_assert(kSteps % kThreads == 0, "whole node groups per thread");

struct TreeParams {
  float s, x, vdt, pu_by_df, pd_by_df;
};

__global__ void __launch_bounds__(kThreads)
    binomial_options(float* __restrict__ d_call, const TreeParams* __restrict__ d_params) {
  // s_edge[buf][t]: thread t's first node for the neighbouring thread t - 1;
  // s_edge[buf][kThreads] is leaf kSteps, read only at the first step.
  __shared__ float s_edge[2][kThreads + 1];

  const TreeParams p = d_params[blockIdx.x];
  const int t = threadIdx.x;
  const int first = t * kElems;

  float node[kElems];
#pragma unroll
  for (int e = 0; e < kElems; ++e) {
    float price = p.s * expf(p.vdt * float(2 * (first + e) - kSteps));
    node[e] = fmaxf(price - p.x, 0.0f);
  }
  if (t == 0) {
    float price = p.s * expf(p.vdt * float(kSteps));
    float leaf = fmaxf(price - p.x, 0.0f);
    s_edge[0][kThreads] = leaf;
    s_edge[1][kThreads] = leaf;
  }

  for (int i = kSteps; i > 0; --i) {
    // Step i: nodes 0 .. i - 1 get their value at time step i - 1.
    const int buf = i & 1;
    s_edge[buf][t] = node[0];
    __syncthreads();
    if (first < i) {
      float right = s_edge[buf][t + 1];
#pragma unroll
      for (int e = 0; e < kElems; ++e) {
        float up = e + 1 < kElems ? node[e + 1] : right;
        node[e] = p.pu_by_df * up + p.pd_by_df * node[e];
      }
    }
  }

  if (t == 0) d_call[blockIdx.x] = node[0];
}

// ---- host side, in double ----

struct Option {
  double s, x, t;
};

static void tree_params(const Option& o, double& vdt, double& pu_by_df, double& pd_by_df) {
  double dt = o.t / kSteps;
  vdt = kVolatility * std::sqrt(dt);
  double rdt = kRiskFree * dt;
  double growth = std::exp(rdt), discount = std::exp(-rdt);
  double u = std::exp(vdt), d = std::exp(-vdt);
  double pu = (growth - d) / (u - d), pd = 1.0 - pu;
  pu_by_df = pu * discount;
  pd_by_df = pd * discount;
}

// The device's tree in double, from the float parameters the device gets
// (rounding pu / pd to float alone moves a 2048-step price by ~1e-4).
static double host_binomial(const TreeParams& p) {
  std::vector<double> v(kSteps + 1);
  for (int i = 0; i <= kSteps; ++i)
    v[i] = std::fmax(double(p.s) * std::exp(double(p.vdt) * (2 * i - kSteps)) - double(p.x), 0.0);
  for (int i = kSteps; i > 0; --i)
    for (int j = 0; j < i; ++j) v[j] = double(p.pu_by_df) * v[j + 1] + double(p.pd_by_df) * v[j];
  return v[0];
}

static double host_black_scholes(const Option& o) {
  double sqrt_t = std::sqrt(o.t);
  double d1 = (std::log(o.s / o.x) + (kRiskFree + 0.5 * kVolatility * kVolatility) * o.t) / (kVolatility * sqrt_t);
  double d2 = d1 - kVolatility * sqrt_t;
  auto cnd = [](double d) { return 0.5 * std::erfc(-d / std::sqrt(2.0)); };
  return o.s * cnd(d1) - o.x * std::exp(-kRiskFree * o.t) * cnd(d2);
}

int main() {
  std::vector<Option> options(kOptions);
  std::vector<TreeParams> params(kOptions);
  Lcg rng{777};
  for (int i = 0; i < kOptions; ++i) {
    Option& o = options[i];
    o.s = 5.0 + 25.0 * rng.uniform();   // [5, 30)
    o.x = 1.0 + 99.0 * rng.uniform();   // [1, 100)
    o.t = 0.25 + 9.75 * rng.uniform();  // [0.25, 10)
    double vdt, pu_by_df, pd_by_df;
    tree_params(o, vdt, pu_by_df, pd_by_df);
    params[i] = {float(o.s), float(o.x), float(vdt), float(pu_by_df), float(pd_by_df)};
  }

  TreeParams* d_params = to_device(params);
  float* d_call = device_zeros<float>(kOptions);

  EventTimer timer;
  timer.start();
  binomial_options<<<kOptions, kThreads>>>(d_call, d_params);
  CHECK(cudaGetLastError());
  float ms = timer.stop_ms();
  CHECK_LAUNCH();

  std::vector<float> call = to_host(d_call, kOptions);
  long bad = 0;
  double sum_err = 0, sum_ref = 0, max_err = 0, sum_bs = 0;
  for (int i = 0; i < kOptions; ++i) {
    double want = host_binomial(params[i]);
    double e = std::fabs(call[i] - want);
    sum_err += e;
    sum_ref += std::fabs(want);
    max_err = std::fmax(max_err, e);
    sum_bs += std::fabs(want - host_black_scholes(options[i]));
    // 2048 steps of float FMAs (the leaves' expf adds a few ulps).
    bad += !close_enough(call[i], want, 2e-5, 1e-4);
  }
  std::printf("L1 norm %.3e, max abs err %.3e (tree vs Black-Scholes: L1 %.3e)\n", sum_err / sum_ref, max_err,
              sum_bs / sum_ref);
  if (sum_err / sum_ref > 5e-6) ++bad;

  print_timing(ms, 1);
  device_free(d_params, d_call);
  return verdict("binomial_options", bad);
}
