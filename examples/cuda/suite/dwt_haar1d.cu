// dwt_haar1d: full 1-D Haar wavelet decomposition (20 levels) of a signal
// of 2^20 floats, styled after the CUDA samples' dwtHaar1D. A CTA of
// kThreads = 256 threads loads 512 consecutive values into shared memory and
// runs as many levels as its slice allows (9): at each level the first half
// of the still-active threads read a pair, __syncthreads, write the
// approximation (a + b) / sqrt(2) back to shared memory and the detail
// (a - b) / sqrt(2) straight to its place in the output, __syncthreads; the
// CTA's last approximation goes to a small array that is the next launch's
// input. 2^20 -> 2048 -> 4 -> 1 values: three launches (2048 CTAs, then 4,
// then one CTA of 2 threads), ping-ponging between two approximation
// buffers; the last launch writes the final approximation to output[0].
// Output layout: [approximation, level-20 detail, 2 level-19 details, ...,
// 2^19 level-1 details]. The decomposition runs kIters times. Checked
// against a double-precision host decomposition with a tolerance that grows
// with the level (values scale by sqrt(2) per level), plus the relative L2
// error over the whole output.
#include <cmath>
#include <vector>

#include "suite.h"

typedef unsigned int uint;

constexpr int kLog2N = 20, kN = 1 << kLog2N;
constexpr int kThreads = 256;
constexpr int kIters = 2;
constexpr float kInvSqrt2 = 0.70710678118654752440f;

// One launch: CTAs of blockDim.x threads decompose 2 * blockDim.x values of
// d_src (a signal of length n) by `levels` levels. Level details of a signal
// of length m go to d_out[m / 2, m).
__global__ void __launch_bounds__(kThreads) haar_levels(float* __restrict__ d_out, float* __restrict__ d_approx,
                                                        const float* __restrict__ d_src, uint n, uint levels) {
  __shared__ float s_data[2 * kThreads];
  const uint t = threadIdx.x, width0 = 2 * blockDim.x;
  const uint base = blockIdx.x * width0;
  s_data[t] = d_src[base + t];
  s_data[t + blockDim.x] = d_src[base + t + blockDim.x];
  __syncthreads();

  uint m = n;               // signal length at this level (whole signal)
  uint pairs = blockDim.x;  // pairs in this CTA's slice at this level
  for (uint l = 0; l < levels; ++l) {
    float a = 0, b = 0;
    if (t < pairs) {
      a = s_data[2 * t];
      b = s_data[2 * t + 1];
    }
    __syncthreads();
    if (t < pairs) {
      s_data[t] = (a + b) * kInvSqrt2;
      d_out[m / 2 + blockIdx.x * pairs + t] = (a - b) * kInvSqrt2;
    }
    __syncthreads();
    m /= 2;
    pairs /= 2;
  }
  if (t == 0) d_approx[blockIdx.x] = s_data[0];
}

// Host driver: returns the number of launches.
static int haar_decompose(float* d_out, const float* d_signal, float* d_tmp0, float* d_tmp1) {
  int launches = 0;
  const float* src = d_signal;
  float* tmp[2] = {d_tmp0, d_tmp1};
  uint n = kN;
  while (n > 1) {
    uint threads = n / 2 < uint(kThreads) ? n / 2 : kThreads;
    uint blocks = n / (2 * threads);
    uint levels = 0;
    while ((1u << levels) < 2 * threads) ++levels;
    float* approx = blocks == 1 ? d_out : tmp[launches & 1];  // the final approximation lands in d_out[0]
    haar_levels<<<blocks, threads>>>(d_out, approx, src, n, levels);
    ++launches;
    src = approx;
    n = blocks;
  }
  return launches;
}

int main() {
  std::vector<float> signal(kN);
  XorShift32 rng(8086);
  for (int i = 0; i < kN; ++i) signal[i] = std::sin(i * 0.001f) + 0.5f * rng.uniform_pm1();

  float* d_signal = to_device(signal);
  float* d_out = device_zeros<float>(kN);
  float* d_tmp0 = device_zeros<float>(kN / (2 * kThreads));
  float* d_tmp1 = device_zeros<float>(kN / (2 * kThreads));

  float total_ms = 0;
  int launches = 0;
  for (int it = 0; it < kIters; ++it) {
    EventTimer timer;
    timer.start();
    launches += haar_decompose(d_out, d_signal, d_tmp0, d_tmp1);
    CHECK(cudaGetLastError());
    total_ms += timer.stop_ms();
    CHECK_LAUNCH();
  }
  std::vector<float> got = to_host(d_out, kN);

  // Host reference in double; output i belongs to level lev[i].
  std::vector<double> want(kN), approx(signal.begin(), signal.end());
  std::vector<int> lev(kN);
  const double inv_sqrt2 = 1.0 / std::sqrt(2.0);
  int level = 0;
  for (int m = kN; m > 1; m /= 2) {
    ++level;
    for (int i = 0; i < m / 2; ++i) {
      double a = approx[2 * i], b = approx[2 * i + 1];
      want[m / 2 + i] = (a - b) * inv_sqrt2;
      lev[m / 2 + i] = level;
      approx[i] = (a + b) * inv_sqrt2;
    }
  }
  want[0] = approx[0];
  lev[0] = level;

  long bad = 0;
  double err2 = 0, ref2 = 0;
  for (int i = 0; i < kN; ++i) {
    double e = got[i] - want[i];
    err2 += e * e;
    ref2 += want[i] * want[i];
    // A float rounding or two per level on values that grow by up to sqrt(2) per level.
    bad += !(std::fabs(e) <= 2e-7 * lev[i] * std::pow(2.0, 0.5 * lev[i]) + 1e-6);
  }
  double l2 = std::sqrt(err2 / ref2);
  std::printf("relative L2 error %.3e\n", l2);
  if (l2 > 1e-6) ++bad;

  print_timing(total_ms, launches);
  device_free(d_signal, d_out, d_tmp0, d_tmp1);
  return verdict("dwt_haar1d", bad);
}
