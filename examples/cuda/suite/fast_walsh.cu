// fast_walsh: fast Walsh-Hadamard transform of 2^20 floats and a dyadic
// (XOR) convolution built from it, styled after the CUDA samples'
// fastWalshTransform. The strides of 2^11 and above go through global
// memory, two butterfly stages per launch (radix-4, strides 2q and q) plus
// one radix-2 launch for the odd stage left over; the last 11 stages run in
// one launch per 2048-element segment held in dynamic shared memory
// (256 threads, a radix-2 stage then radix-4 stages, __syncthreads between).
// The program transforms the data and a 128-tap kernel padded with zeros,
// multiplies them element-wise (scaled by 1/N) and transforms back: 19
// launches with no host synchronisation. Checked: the forward transform of
// the data against a host transform in double, and the convolution against
// the direct sum over the 128 taps, both with tolerances.
#include <cmath>
#include <vector>

#include "suite.h"

constexpr int kLog2N = 20, kN = 1 << kLog2N;
constexpr int kLog2Seg = 11, kSeg = 1 << kLog2Seg;  // shared-memory segment: the last 11 stages
constexpr int kSegThreads = 256;
constexpr int kGlobalThreads = 256;
constexpr int kTaps = 128;

// Stages at strides 2q and q on the four elements lo + {0, q, 2q, 3q} of each
// group of 4q: one thread per group-of-four, N / 4 threads.
__global__ void fwt_global_radix4(float* d, int q) {
  int pos = blockIdx.x * blockDim.x + threadIdx.x;
  int lo = pos & (q - 1);
  float* p = d + ((pos - lo) << 2) + lo;
  float d0 = p[0], d1 = p[q], d2 = p[2 * q], d3 = p[3 * q];
  float s02 = d0 + d2, m02 = d0 - d2;
  float s13 = d1 + d3, m13 = d1 - d3;
  p[0] = s02 + s13;
  p[q] = s02 - s13;
  p[2 * q] = m02 + m13;
  p[3 * q] = m02 - m13;
}

// One stage at stride h: N / 2 threads.
__global__ void fwt_global_radix2(float* d, int h) {
  int pos = blockIdx.x * blockDim.x + threadIdx.x;
  int lo = pos & (h - 1);
  float* p = d + ((pos - lo) << 1) + lo;
  float a = p[0], b = p[h];
  p[0] = a + b;
  p[h] = a - b;
}

// The strides below 2^log2seg for one segment per CTA, in shared memory.
__global__ void fwt_shared(float* d, int log2seg) {
  extern __shared__ float s[];
  const int seg = 1 << log2seg;
  float* base = d + (size_t(blockIdx.x) << log2seg);
  for (int i = threadIdx.x; i < seg; i += blockDim.x) s[i] = base[i];

  int stride = seg >> 1;
  if (log2seg & 1) {
    __syncthreads();
    for (int pos = threadIdx.x; pos < seg / 2; pos += blockDim.x) {
      int lo = pos & (stride - 1);
      int i0 = ((pos - lo) << 1) + lo;
      float a = s[i0], b = s[i0 + stride];
      s[i0] = a + b;
      s[i0 + stride] = a - b;
    }
    stride >>= 1;
  }
  // stride is now 2q for the first radix-4 step.
  for (int q = stride >> 1; q > 0; q >>= 2) {
    __syncthreads();
    for (int pos = threadIdx.x; pos < seg / 4; pos += blockDim.x) {
      int lo = pos & (q - 1);
      int i0 = ((pos - lo) << 2) + lo;
      float d0 = s[i0], d1 = s[i0 + q], d2 = s[i0 + 2 * q], d3 = s[i0 + 3 * q];
      float s02 = d0 + d2, m02 = d0 - d2;
      float s13 = d1 + d3, m13 = d1 - d3;
      s[i0] = s02 + s13;
      s[i0 + q] = s02 - s13;
      s[i0 + 2 * q] = m02 + m13;
      s[i0 + 3 * q] = m02 - m13;
    }
  }
  __syncthreads();
  for (int i = threadIdx.x; i < seg; i += blockDim.x) base[i] = s[i];
}

__global__ void modulate(float* a, const float* b, int n) {
  float rcp = 1.0f / float(n);
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) a[i] *= b[i] * rcp;
}

// The whole transform in place: returns the launches it queued.
static int fwt(float* d) {
  int launches = 0;
  int log2 = kLog2N;
  for (; log2 - 2 >= kLog2Seg; log2 -= 2, ++launches)
    fwt_global_radix4<<<kN / 4 / kGlobalThreads, kGlobalThreads>>>(d, 1 << (log2 - 2));
  if (log2 > kLog2Seg) {
    fwt_global_radix2<<<kN / 2 / kGlobalThreads, kGlobalThreads>>>(d, 1 << (log2 - 1));
    --log2, ++launches;
  }
  fwt_shared<<<kN / kSeg, kSegThreads, kSeg * sizeof(float)>>>(d, kLog2Seg);
  return launches + 1;
}

static void host_fwt(std::vector<double>& v) {
  for (size_t h = 1; h < v.size(); h <<= 1)
    for (size_t i = 0; i < v.size(); i += 2 * h)
      for (size_t j = i; j < i + h; ++j) {
        double a = v[j], b = v[j + h];
        v[j] = a + b;
        v[j + h] = a - b;
      }
}

int main() {
  std::vector<float> data(kN), kernel(kN, 0.0f);
  XorShift32 rng{0xF00DF00Du};
  for (float& x : data) x = rng.uniform_pm1();
  for (int j = 0; j < kTaps; ++j) kernel[j] = rng.uniform_pm1();
  float *d_data = to_device(data), *d_kernel = to_device(kernel);
  float* d_fwt = device_alloc<float>(kN);
  CHECK(cudaMemcpy(d_fwt, d_data, kN * sizeof(float), cudaMemcpyDeviceToDevice));

  EventTimer timer;
  timer.start();
  int launches = fwt(d_fwt);  // forward transform of the data, kept for the check
  CHECK(cudaMemcpyAsync(d_data, d_fwt, kN * sizeof(float), cudaMemcpyDeviceToDevice));
  launches += fwt(d_kernel);
  modulate<<<256, 256>>>(d_data, d_kernel, kN);
  ++launches;
  launches += fwt(d_data);  // the inverse: the same transform, the 1/N already applied
  CHECK(cudaGetLastError());
  float ms = timer.stop_ms();
  CHECK_LAUNCH();

  std::vector<float> got_fwt = to_host(d_fwt, kN), got_conv = to_host(d_data, kN);

  // Forward transform against a double-precision host transform.
  std::vector<double> ref(data.begin(), data.end());
  host_fwt(ref);
  long bad = 0;
  double err2 = 0, ref2 = 0;
  const double fwt_tol = 1e-6 * kN;  // inputs in [-1, 1): outputs up to N, float error ~ eps * sqrt(N) * stages
  for (int i = 0; i < kN; ++i) {
    double e = got_fwt[i] - ref[i];
    err2 += e * e;
    ref2 += ref[i] * ref[i];
    bad += !(std::fabs(e) <= fwt_tol);
  }
  double fwt_l2 = std::sqrt(err2 / ref2);

  // Dyadic convolution against the direct sum: out[i] = sum_j data[i ^ j] kernel[j].
  err2 = ref2 = 0;
  for (int i = 0; i < kN; ++i) {
    double want = 0;
    for (int j = 0; j < kTaps; ++j) want += double(data[i ^ j]) * kernel[j];
    double e = got_conv[i] - want;
    err2 += e * e;
    ref2 += want * want;
    bad += !(std::fabs(e) <= 1e-3);
  }
  double conv_l2 = std::sqrt(err2 / ref2);
  std::printf("forward L2 rel err %.3e, convolution L2 rel err %.3e\n", fwt_l2, conv_l2);
  bad += !(fwt_l2 < 1e-6) + !(conv_l2 < 1e-5);

  print_timing(ms, launches);
  device_free(d_data, d_kernel, d_fwt);
  return verdict("fast_walsh", bad);
}
