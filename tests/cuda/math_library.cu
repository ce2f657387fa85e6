// The CUDA math library in double and float, as the public benchmarks call
// it (Rodinia's myocyte and particlefilter, the samples' option pricers):
// every function below is inlined from libdevice with its slow paths
// (multiword argument reduction, copysign of doubles, ...), so the program
// needs exec to run every PTX form they contain and the timed run to name
// each one (tests/cuda: functional, and timed with its trace replayed).
// Each result is compared with the host's libm.
#include <cmath>
#include <cstdio>
#include <vector>

#include "check.h"

constexpr int kDoubleFns = 36, kFloatFns = 16, kInputs = 64;

__device__ double double_fn(int f, double x) {
  double y = 0.37 * x + 0.11;  // a second argument
  switch (f) {
    case 0: return sin(x);
    case 1: return cos(x);
    case 2: return tan(x);
    case 3: return sinh(x);
    case 4: return cosh(x);
    case 5: return tanh(x);
    case 6: return asin(x / 8.0);
    case 7: return acos(x / 8.0);
    case 8: return atan(x);
    case 9: return atan2(x, y);
    case 10: return exp(x);
    case 11: return log(fabs(x) + 0.5);
    case 12: return log10(fabs(x) + 0.5);
    case 13: return log2(fabs(x) + 0.5);
    case 14: return pow(fabs(x) + 0.5, y);
    case 15: return sqrt(fabs(x));
    case 16: return cbrt(x);
    case 17: return fmod(x, 1.3);
    case 18: return remainder(x, 1.3);
    case 19: return copysign(x, y);
    case 20: return round(x);
    case 21: return floor(x) + ceil(x) + trunc(x);
    case 22: return erf(x);
    case 23: return erfc(x);
    case 24: return asinh(x);
    case 25: return acosh(fabs(x) + 1.0);
    case 26: return atanh(x / 8.0);
    case 27: return expm1(x);
    case 28: return log1p(fabs(x));
    case 29: return hypot(x, y);
    case 30: return fma(x, y, 1.0);
    case 31: return ldexp(x, 3);
    case 32: return static_cast<double>(llround(x));
    case 33: return exp2(x);
    case 34: return fmax(x, y) - fmin(x, y);
    default: return 1.0 / (1.0 + x * x);
  }
}

__device__ float float_fn(int f, float x) {
  float y = 0.37f * x + 0.11f;
  switch (f) {
    case 0: return sinf(x);
    case 1: return cosf(x);
    case 2: return tanf(x);
    case 3: return expf(x);
    case 4: return logf(fabsf(x) + 0.5f);
    case 5: return powf(fabsf(x) + 0.5f, y);
    case 6: return sqrtf(fabsf(x));
    case 7: return atan2f(x, y);
    case 8: return fmodf(x, 1.3f);
    case 9: return erff(x);
    case 10: return sinhf(x);
    case 11: return tanhf(x);
    case 12: return cbrtf(x);
    case 13: return copysignf(x, y);
    case 14: return asinf(x / 8.0f);
    default: return rsqrtf(fabsf(x) + 0.5f);
  }
}

__global__ void doubles(const double* in, double* out) {
  out[blockIdx.x * kInputs + threadIdx.x] = double_fn(blockIdx.x, in[threadIdx.x]);
}

__global__ void floats(const float* in, float* out) {
  out[blockIdx.x * kInputs + threadIdx.x] = float_fn(blockIdx.x, in[threadIdx.x]);
}

double host_double(int f, double x) {
  double y = 0.37 * x + 0.11;
  switch (f) {
    case 0: return std::sin(x);
    case 1: return std::cos(x);
    case 2: return std::tan(x);
    case 3: return std::sinh(x);
    case 4: return std::cosh(x);
    case 5: return std::tanh(x);
    case 6: return std::asin(x / 8.0);
    case 7: return std::acos(x / 8.0);
    case 8: return std::atan(x);
    case 9: return std::atan2(x, y);
    case 10: return std::exp(x);
    case 11: return std::log(std::fabs(x) + 0.5);
    case 12: return std::log10(std::fabs(x) + 0.5);
    case 13: return std::log2(std::fabs(x) + 0.5);
    case 14: return std::pow(std::fabs(x) + 0.5, y);
    case 15: return std::sqrt(std::fabs(x));
    case 16: return std::cbrt(x);
    case 17: return std::fmod(x, 1.3);
    case 18: return std::remainder(x, 1.3);
    case 19: return std::copysign(x, y);
    case 20: return std::round(x);
    case 21: return std::floor(x) + std::ceil(x) + std::trunc(x);
    case 22: return std::erf(x);
    case 23: return std::erfc(x);
    case 24: return std::asinh(x);
    case 25: return std::acosh(std::fabs(x) + 1.0);
    case 26: return std::atanh(x / 8.0);
    case 27: return std::expm1(x);
    case 28: return std::log1p(std::fabs(x));
    case 29: return std::hypot(x, y);
    case 30: return std::fma(x, y, 1.0);
    case 31: return std::ldexp(x, 3);
    case 32: return static_cast<double>(std::llround(x));
    case 33: return std::exp2(x);
    case 34: return std::fmax(x, y) - std::fmin(x, y);
    default: return 1.0 / (1.0 + x * x);
  }
}

int main() {
  // Arguments from -7.9 to 7.9, and two past the range of the fast
  // trigonometric reduction (the slow, multiword path).
  std::vector<double> in(kInputs);
  for (int i = 0; i < kInputs; ++i) in[i] = -7.9 + 15.8 * i / (kInputs - 1);
  in[0] = 1.0e6 + 0.3;
  in[1] = -3.0e7 - 0.7;
  std::vector<float> in_f(in.begin(), in.end());
  double *din, *dout;
  float *fin, *fout;
  CHECK(cudaMalloc(&din, kInputs * sizeof(double)));
  CHECK(cudaMalloc(&dout, kDoubleFns * kInputs * sizeof(double)));
  CHECK(cudaMalloc(&fin, kInputs * sizeof(float)));
  CHECK(cudaMalloc(&fout, kFloatFns * kInputs * sizeof(float)));
  CHECK(cudaMemcpy(din, in.data(), kInputs * sizeof(double), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(fin, in_f.data(), kInputs * sizeof(float), cudaMemcpyHostToDevice));
  doubles<<<kDoubleFns, kInputs>>>(din, dout);
  CHECK_LAUNCH();
  floats<<<kFloatFns, kInputs>>>(fin, fout);
  CHECK_LAUNCH();
  std::vector<double> got(kDoubleFns * kInputs);
  std::vector<float> got_f(kFloatFns * kInputs);
  CHECK(cudaMemcpy(got.data(), dout, got.size() * sizeof(double), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(got_f.data(), fout, got_f.size() * sizeof(float), cudaMemcpyDeviceToHost));
  long bad = 0;
  for (int f = 0; f < kDoubleFns; ++f)
    for (int i = 0; i < kInputs; ++i) {
      double want = host_double(f, in[i]);
      // The libraries agree to a few ulp; huge arguments of the hyperbolic
      // and exponential functions overflow alike on both sides.
      if ((std::isinf(want) && got[f * kInputs + i] == want) || (std::isnan(want) && std::isnan(got[f * kInputs + i])))
        continue;
      if (!close_enough(got[f * kInputs + i], want, 1e-13, 1e-300)) {
        if (bad < 5) std::printf("double fn %d at %g: %.17g, want %.17g\n", f, in[i], got[f * kInputs + i], want);
        ++bad;
      }
    }
  // Floats: against the host's double result of the same function (the
  // float's own rounding and its argument's allow 2e-5), for the moderate
  // arguments; fmodf (8) only for being finite (an argument rounded to float
  // may cross a multiple of 1.3).
  constexpr int kAsDouble[kFloatFns] = {0, 1, 2, 10, 11, 14, 15, 9, 17, 22, 3, 5, 16, 19, 6, -1};
  for (int f = 0; f < kFloatFns; ++f)
    for (int i = 2; i < kInputs; ++i) {
      float g = got_f[f * kInputs + i];
      double x = static_cast<double>(in_f[i]);
      double want = kAsDouble[f] < 0 ? 1.0 / std::sqrt(std::fabs(x) + 0.5) : host_double(kAsDouble[f], x);
      bool ok = f == 8 ? std::isfinite(g) : close_enough(g, want, 2e-5, 2e-6);
      if (!ok) {
        if (bad < 5) std::printf("float fn %d at %g: %.9g, want %.9g\n", f, x, g, want);
        ++bad;
      }
    }
  return verdict("math_library", bad);
}
