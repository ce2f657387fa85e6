// black_scholes: European call and put prices for 64K options with the
// Black-Scholes closed form, styled after the CUDA samples' BlackScholes:
// one float per option for stock price, strike and years to expiry, a
// polynomial approximation of the cumulative normal distribution (the
// Abramowitz-Stegun five-term form), expf / logf / sqrtf and a division per
// option. 128-thread CTAs walk the options with a grid-stride loop and the
// same kernel is launched kIters times back to back, as the sample's timing
// loop does. Checked against a double-precision host formula.
#include <cmath>
#include <vector>

#include "suite.h"

constexpr int kOptions = 64 * 1024;
constexpr int kIters = 4;
constexpr int kThreads = 128;
constexpr int kCtas = 128;  // each thread prices kOptions / (kCtas * kThreads) = 4 options
constexpr float kRiskFree = 0.02f, kVolatility = 0.30f;

// Cumulative normal distribution, polynomial approximation.
__device__ inline float cnd(float d) {
  const float a1 = 0.31938153f, a2 = -0.356563782f, a3 = 1.781477937f, a4 = -1.821255978f, a5 = 1.330274429f;
  const float rsqrt2pi = 0.39894228040143267794f;
  float k = 1.0f / (1.0f + 0.2316419f * fabsf(d));
  float poly = k * (a1 + k * (a2 + k * (a3 + k * (a4 + k * a5))));
  float c = rsqrt2pi * expf(-0.5f * d * d) * poly;
  return d > 0.0f ? 1.0f - c : c;
}

__device__ inline void price_one(float s, float x, float t, float r, float v, float& call, float& put) {
  float sqrt_t = sqrtf(t);
  float d1 = (logf(s / x) + (r + 0.5f * v * v) * t) / (v * sqrt_t);
  float d2 = d1 - v * sqrt_t;
  float cnd1 = cnd(d1), cnd2 = cnd(d2);
  float disc = expf(-r * t);
  call = s * cnd1 - x * disc * cnd2;
  put = x * disc * (1.0f - cnd2) - s * (1.0f - cnd1);
}

__global__ void __launch_bounds__(kThreads) black_scholes(float* __restrict__ call, float* __restrict__ put,
                                                          const float* __restrict__ stock,
                                                          const float* __restrict__ strike,
                                                          const float* __restrict__ years, float r, float v,
                                                          int n) {
  int stride = blockDim.x * gridDim.x;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    float c, p;
    price_one(stock[i], strike[i], years[i], r, v, c, p);
    call[i] = c;
    put[i] = p;
  }
}

// ---- host reference, in double ----

static double host_cnd(double d) {
  const double a1 = 0.31938153, a2 = -0.356563782, a3 = 1.781477937, a4 = -1.821255978, a5 = 1.330274429;
  double k = 1.0 / (1.0 + 0.2316419 * std::fabs(d));
  double c = 0.39894228040143267794 * std::exp(-0.5 * d * d) *
             (k * (a1 + k * (a2 + k * (a3 + k * (a4 + k * a5)))));
  return d > 0 ? 1.0 - c : c;
}

static void host_price(double s, double x, double t, double r, double v, double& call, double& put) {
  double sqrt_t = std::sqrt(t);
  double d1 = (std::log(s / x) + (r + 0.5 * v * v) * t) / (v * sqrt_t);
  double d2 = d1 - v * sqrt_t;
  double cnd1 = host_cnd(d1), cnd2 = host_cnd(d2);
  double disc = std::exp(-r * t);
  call = s * cnd1 - x * disc * cnd2;
  put = x * disc * (1.0 - cnd2) - s * (1.0 - cnd1);
}

int main() {
  std::vector<float> stock(kOptions), strike(kOptions), years(kOptions);
  Lcg rng{2024};
  for (int i = 0; i < kOptions; ++i) {
    stock[i] = 5.0f + 25.0f * rng.uniform();   // [5, 30)
    strike[i] = 1.0f + 99.0f * rng.uniform();  // [1, 100)
    years[i] = 0.25f + 9.75f * rng.uniform();  // [0.25, 10)
  }
  float *d_stock = to_device(stock), *d_strike = to_device(strike), *d_years = to_device(years);
  float *d_call = device_zeros<float>(kOptions), *d_put = device_zeros<float>(kOptions);

  EventTimer timer;
  timer.start();
  for (int it = 0; it < kIters; ++it)
    black_scholes<<<kCtas, kThreads>>>(d_call, d_put, d_stock, d_strike, d_years, kRiskFree, kVolatility, kOptions);
  CHECK(cudaGetLastError());
  float ms = timer.stop_ms();
  CHECK_LAUNCH();

  std::vector<float> call = to_host(d_call, kOptions), put = to_host(d_put, kOptions);
  long bad = 0;
  double max_err = 0, sum_ref = 0, sum_err = 0;
  for (int i = 0; i < kOptions; ++i) {
    double c, p;
    host_price(stock[i], strike[i], years[i], kRiskFree, kVolatility, c, p);
    double ec = std::fabs(call[i] - c), ep = std::fabs(put[i] - p);
    max_err = std::fmax(max_err, std::fmax(ec, ep));
    sum_ref += std::fabs(c) + std::fabs(p);
    sum_err += ec + ep;
    // Prices are up to ~100; float formula error is a few ulps of that scale.
    bad += !close_enough(call[i], c, 1e-4, 2e-4) + !close_enough(put[i], p, 1e-4, 2e-4);
  }
  std::printf("L1 norm %.3e, max abs err %.3e\n", sum_err / sum_ref, max_err);
  if (sum_err / sum_ref > 1e-6) ++bad;

  print_timing(ms, kIters);
  device_free(d_stock, d_strike, d_years, d_call, d_put);
  return verdict("black_scholes", bad);
}
