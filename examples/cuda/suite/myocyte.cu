// Suite benchmark: a cardiac myocyte model integrated by explicit Euler, in
// the style of Rodinia's myocyte (double precision, one large kernel per
// time step, the state of every cell and its derivatives kept in global
// arrays). 256 independent cells of 100 state variables each: the membrane
// voltage, 63 Hodgkin-Huxley style gates (steady state and time constant
// from double exp / pow), 16 ion concentrations driving 16 currents through
// Nernst potentials (double log, pow of a gate to a per-channel power), and
// a 20-state calcium-handling module computed in single precision (expf,
// logf, powf, sqrtf) that feeds a current back into the voltage. A periodic
// stimulus (double fmod) drives the voltage. Every time step is one launch
// of `myocyte_step` doing 10 Euler sub-steps (the derivatives go to a
// global `deriv` array, as Rodinia's finavalu, then the state is updated);
// between steps the host copies the voltages back for its trace and copies
// a new stimulus amplitude per cell to the device. 8 steps, 8 launches.
// Exercises long straight-line double-precision transcendental code,
// strided global arrays of many state variables and mixed float/double
// arithmetic. Checked against the same model on the host with a tolerance.
#include <cmath>
#include <vector>

#include "suite.h"

constexpr int kCells = 256, kBlock = 128;
constexpr int kGates = 63, kIons = 16, kCa = 20;
constexpr int kEq = 1 + kGates + kIons + kCa;  // 100 state variables per cell
constexpr int kParams = 40;                     // per cell
constexpr int kSteps = 8, kSub = 10;
constexpr double kDt = 0.01;  // ms
// The layout of one cell's state.
constexpr int kV = 0, kGate0 = 1, kIon0 = kGate0 + kGates, kCa0 = kIon0 + kIons;
// The layout of one cell's parameters.
constexpr int kPgbar = 0;       // 16 maximal conductances
constexpr int kPout = 16;       // 16 outside concentrations
constexpr int kPshift = 32;     // 4 gate half-activation shifts
constexpr int kPcm = 36;        // membrane capacitance
constexpr int kPstim = 37;      // stimulus amplitude (changed by the host between steps)
constexpr int kPperiod = 38;    // stimulus period
constexpr int kPca = 39;        // calcium module gain
static_assert(kCells % kBlock == 0, "whole CTAs only");
static_assert(kEq == 100, "layout");

// ---- the model, shared by the kernel and the host ----
// y, dy and p point at one cell's first element; element k is at [k * stride].

__host__ __device__ inline void model_derivs(const double* y, double* dy, const double* p, int stride, double t) {
  double v = y[kV * stride];
  // Gates.
  for (int g = 0; g < kGates; ++g) {
    double vh = -40.0 + 1.25 * (g % 32) + p[(kPshift + g % 4) * stride];
    double k = 4.0 + (g % 5);
    double inf = 1.0 / (1.0 + exp((vh - v) / k));
    double tau = 1.0 + 4.0 * exp(-pow(fabs(v - vh) / 30.0, 1.5));
    double x = y[(kGate0 + g) * stride];
    dy[(kGate0 + g) * stride] = (inf - x) / tau;
  }
  // Ion channels: current c opens with gates 4c+0..4c+2 (the first to a power 1..3).
  double itotal = 0.0;
  for (int c = 0; c < kIons; ++c) {
    double a = y[(kGate0 + 4 * c) * stride], b = y[(kGate0 + 4 * c + 1) * stride];
    double h = y[(kGate0 + 4 * c + 2) * stride];
    double open = pow(a, double(1 + c % 3)) * b * (0.5 + 0.5 * h);
    double conc = y[(kIon0 + c) * stride];
    double e = 26.7 * log(p[(kPout + c) * stride] / conc) * ((c & 1) ? -1.0 : 1.0);
    double i = p[(kPgbar + c) * stride] * open * (v - e);
    itotal += i;
    dy[(kIon0 + c) * stride] = -2.0e-4 * i + 0.02 * (10.0 + c - conc);
  }
  // The calcium module, in single precision.
  float vf = float(v);
  float gain = float(p[kPca * stride]);
  float prev = float(y[(kCa0 + kCa - 1) * stride]);
  float ica = 0.0f;
  for (int j = 0; j < kCa; ++j) {
    float s = float(y[(kCa0 + j) * stride]);
    float rate = 0.1f * expf(-(vf + 20.0f + float(j)) / 15.0f);
    float bound = s * powf(fabsf(s) + 1.0e-3f, 0.5f);
    float release = logf(1.0f + fabsf(prev)) * sqrtf(gain);
    dy[(kCa0 + j) * stride] = double(0.05f * (1.0f - s) * fminf(rate, 1.0f) - 0.02f * bound + 0.01f * release);
    ica += gain * s;
    prev = s;
  }
  itotal += double(ica) * (v - 60.0) * 1.0e-3;
  // Stimulus: a pulse of 0.2 ms at the start of every period.
  double stim = fmod(t, p[kPperiod * stride]) < 0.2 ? p[kPstim * stride] : 0.0;
  dy[kV * stride] = (stim - itotal) / p[kPcm * stride];
}

// ---- kernel ----

// One time step: kSub Euler sub-steps for every cell.
__global__ void myocyte_step(double* y, double* deriv, const double* params, double t0) {
  int cell = blockIdx.x * blockDim.x + threadIdx.x;
  double* yc = y + cell;
  double* dc = deriv + cell;
  const double* pc = params + cell;
  for (int s = 0; s < kSub; ++s) {
    model_derivs(yc, dc, pc, kCells, t0 + s * kDt);
    for (int e = 0; e < kEq; ++e) yc[e * kCells] += kDt * dc[e * kCells];
  }
}

// ---- host side ----

void host_step(std::vector<double>& y, std::vector<double>& deriv, const std::vector<double>& params, double t0) {
  for (int cell = 0; cell < kCells; ++cell)
    for (int s = 0; s < kSub; ++s) {
      model_derivs(&y[cell], &deriv[cell], &params[cell], kCells, t0 + s * kDt);
      for (int e = 0; e < kEq; ++e) y[e * kCells + cell] += kDt * deriv[e * kCells + cell];
    }
}

int main() {
  Lcg rng{0x5EED1234u};
  std::vector<double> y(size_t(kEq) * kCells), params(size_t(kParams) * kCells);
  for (int cell = 0; cell < kCells; ++cell) {
    auto st = [&](int k) -> double& { return y[k * kCells + cell]; };
    auto pr = [&](int k) -> double& { return params[k * kCells + cell]; };
    st(kV) = -80.0 + 10.0 * rng.uniform();
    for (int g = 0; g < kGates; ++g) st(kGate0 + g) = 0.05 + 0.9 * rng.uniform();
    for (int c = 0; c < kIons; ++c) st(kIon0 + c) = 8.0 + c + 4.0 * rng.uniform();
    for (int j = 0; j < kCa; ++j) st(kCa0 + j) = 0.1 + 0.5 * rng.uniform();
    for (int c = 0; c < kIons; ++c) pr(kPgbar + c) = 0.02 + 0.2 * rng.uniform();
    for (int c = 0; c < kIons; ++c) pr(kPout + c) = 20.0 + 100.0 * rng.uniform();
    for (int k = 0; k < 4; ++k) pr(kPshift + k) = -5.0 + 10.0 * rng.uniform();
    pr(kPcm) = 1.0 + 0.5 * rng.uniform();
    pr(kPstim) = 0.0;
    pr(kPperiod) = 0.3 + 0.4 * rng.uniform();
    pr(kPca) = 0.5 + rng.uniform();
  }
  std::vector<double> host_y = y, host_params = params, host_deriv(y.size(), 0.0);

  double *d_y = to_device(y), *d_params = to_device(params), *d_deriv = device_zeros<double>(y.size());
  std::vector<double> amp(kCells), trace(size_t(kSteps) * kCells), host_trace(trace.size());
  std::vector<double> v_now(kCells);

  EventTimer timer;
  int launches = 0;
  timer.start();
  for (int step = 0; step < kSteps; ++step) {
    // The stimulus amplitude of this step, per cell, into the parameter array.
    for (int cell = 0; cell < kCells; ++cell) amp[cell] = 20.0 + 5.0 * ((cell + step) % 7);
    CHECK(cudaMemcpy(d_params + kPstim * kCells, amp.data(), kCells * sizeof(double), cudaMemcpyHostToDevice));
    double t0 = step * kSub * kDt;
    myocyte_step<<<kCells / kBlock, kBlock>>>(d_y, d_deriv, d_params, t0);
    CHECK(cudaGetLastError());
    ++launches;
    CHECK(cudaMemcpy(v_now.data(), d_y + kV * kCells, kCells * sizeof(double), cudaMemcpyDeviceToHost));
    for (int cell = 0; cell < kCells; ++cell) trace[step * kCells + cell] = v_now[cell];
  }
  float ms = timer.stop_ms();
  CHECK_LAUNCH();
  std::vector<double> result(y.size());
  copy_to_host(result, d_y);

  for (int step = 0; step < kSteps; ++step) {
    for (int cell = 0; cell < kCells; ++cell) host_params[kPstim * kCells + cell] = 20.0 + 5.0 * ((cell + step) % 7);
    host_step(host_y, host_deriv, host_params, step * kSub * kDt);
    for (int cell = 0; cell < kCells; ++cell) host_trace[step * kCells + cell] = host_y[kV * kCells + cell];
  }
  long bad = 0;
  for (size_t i = 0; i < result.size(); ++i) bad += !close_enough(result[i], host_y[i], 1e-4, 1e-6);
  for (size_t i = 0; i < trace.size(); ++i) bad += !close_enough(trace[i], host_trace[i], 1e-4, 1e-6);
  bool finite = true;
  for (double e : result) finite = finite && std::isfinite(e);
  if (!finite) ++bad;
  std::printf("v[0]=%.6f v[last]=%.6f ca[0]=%.6f\n", result[kV * kCells], result[kV * kCells + kCells - 1],
              result[kCa0 * kCells]);

  print_timing(ms, launches);
  device_free(d_y, d_params, d_deriv);
  return verdict("myocyte", bad);
}
