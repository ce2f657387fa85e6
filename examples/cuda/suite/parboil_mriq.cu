// parboil_mriq: the Q matrix of non-Cartesian MRI reconstruction, Parboil
// MRI-Q style. A first kernel computes |phi|^2 of every k-space sample from
// its real and imaginary parts; the host gathers the samples (kx, ky, kz,
// |phi|^2) into one array and streams it through __constant__ memory in
// chunks of kChunk samples: per chunk a cudaMemcpyToSymbol and one launch of
// the Q kernel, in which each thread owns one voxel, reads the chunk's
// samples with a warp-uniform index (constant-cache broadcast), and adds
// |phi|^2 (cos(2 pi k.x), sin(2 pi k.x)) to the voxel's running Qr, Qi
// (read from and written back to global memory every launch). __sinf and
// __cosf, as fast-math builds of the benchmark use. Checked against a host
// sum in double.
#include <vector>

#include "suite.h"

constexpr int kNumK = 2048, kNumX = 20480;
constexpr int kChunk = 1024;  // samples per constant-memory chunk (16 KB)
constexpr int kPhiBlock = 512, kQBlock = 256;
constexpr float kTwoPi = 6.2831853071795864769f;

struct KSample {
  float kx, ky, kz, phi_mag;
};

__constant__ KSample c_samples[kChunk];

__global__ void compute_phi_mag(const float* __restrict__ phi_r, const float* __restrict__ phi_i,
                                float* __restrict__ phi_mag, int num_k) {
  int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k < num_k) {
    float r = phi_r[k], i = phi_i[k];
    phi_mag[k] = r * r + i * i;
  }
}

__global__ void compute_q(int chunk_len, int num_x, const float* __restrict__ x, const float* __restrict__ y,
                          const float* __restrict__ z, float* __restrict__ q_r, float* __restrict__ q_i) {
  int v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v >= num_x) return;
  float px = x[v], py = y[v], pz = z[v];
  float acc_r = q_r[v], acc_i = q_i[v];
#pragma unroll 4
  for (int k = 0; k < chunk_len; ++k) {
    float arg = kTwoPi * (c_samples[k].kx * px + c_samples[k].ky * py + c_samples[k].kz * pz);
    float m = c_samples[k].phi_mag;
    acc_r += m * __cosf(arg);
    acc_i += m * __sinf(arg);
  }
  q_r[v] = acc_r;
  q_i[v] = acc_i;
}

int main() {
  // k-space trajectory and voxel coordinates, fixed seed.
  XorShift32 rng(1357);
  std::vector<float> kx(kNumK), ky(kNumK), kz(kNumK), phi_r(kNumK), phi_i(kNumK);
  for (int k = 0; k < kNumK; ++k) {
    kx[k] = 8.0f * rng.uniform_pm1();
    ky[k] = 8.0f * rng.uniform_pm1();
    kz[k] = 8.0f * rng.uniform_pm1();
    phi_r[k] = rng.uniform_pm1();
    phi_i[k] = rng.uniform_pm1();
  }
  std::vector<float> x(kNumX), y(kNumX), z(kNumX);
  for (int v = 0; v < kNumX; ++v) {
    x[v] = 0.5f * rng.uniform_pm1();
    y[v] = 0.5f * rng.uniform_pm1();
    z[v] = 0.5f * rng.uniform_pm1();
  }

  float *d_phi_r = to_device(phi_r), *d_phi_i = to_device(phi_i), *d_phi_mag = device_alloc<float>(kNumK);
  float *d_x = to_device(x), *d_y = to_device(y), *d_z = to_device(z);
  float *d_qr = device_zeros<float>(kNumX), *d_qi = device_zeros<float>(kNumX);

  EventTimer timer;
  timer.start();
  compute_phi_mag<<<(kNumK + kPhiBlock - 1) / kPhiBlock, kPhiBlock>>>(d_phi_r, d_phi_i, d_phi_mag, kNumK);
  CHECK(cudaGetLastError());
  std::vector<float> phi_mag = to_host(d_phi_mag, kNumK);
  std::vector<KSample> samples(kNumK);
  for (int k = 0; k < kNumK; ++k) samples[k] = {kx[k], ky[k], kz[k], phi_mag[k]};
  int launches = 1;
  for (int first = 0; first < kNumK; first += kChunk) {
    int len = kNumK - first < kChunk ? kNumK - first : kChunk;
    CHECK(cudaMemcpyToSymbol(c_samples, &samples[first], sizeof(KSample) * len));
    compute_q<<<(kNumX + kQBlock - 1) / kQBlock, kQBlock>>>(len, kNumX, d_x, d_y, d_z, d_qr, d_qi);
    CHECK(cudaGetLastError());
    ++launches;
  }
  float ms = timer.stop_ms();
  CHECK_LAUNCH();
  std::vector<float> qr = to_host(d_qr, kNumX), qi = to_host(d_qi, kNumX);

  long bad = 0;
  double mag_sum = 0;
  for (int k = 0; k < kNumK; ++k) {
    double m = double(phi_r[k]) * phi_r[k] + double(phi_i[k]) * phi_i[k];
    bad += !close_enough(phi_mag[k], m, 1e-6);
    mag_sum += m;
  }
  for (int v = 0; v < kNumX; ++v) {
    double want_r = 0, want_i = 0;
    for (int k = 0; k < kNumK; ++k) {
      double arg = 2.0 * 3.14159265358979323846 * (double(kx[k]) * x[v] + double(ky[k]) * y[v] + double(kz[k]) * z[v]);
      double m = double(phi_r[k]) * phi_r[k] + double(phi_i[k]) * phi_i[k];
      want_r += m * std::cos(arg);
      want_i += m * std::sin(arg);
    }
    // Float arguments up to ~75 rad carry ~1e-5 absolute error per term.
    bad += !close_enough(qr[v], want_r, 1e-3, 2e-5 * mag_sum);
    bad += !close_enough(qi[v], want_i, 1e-3, 2e-5 * mag_sum);
  }
  std::printf("samples %d in chunks of %d, voxels %d\n", kNumK, kChunk, kNumX);
  device_free(d_phi_r, d_phi_i, d_phi_mag, d_x, d_y, d_z, d_qr, d_qi);
  print_timing(ms, launches);
  return verdict("parboil_mriq", bad);
}
