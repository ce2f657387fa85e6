// Double and half precision arithmetic.
#include <cuda_fp16.h>

__global__ void saxpy_double(double a, const double* x, double* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i] + sqrt(x[i]) + 1.5;
}

__global__ void half_ops(const __half* a, const __half* b, __half* c, __half2* c2, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    __half h = __hadd(a[i], __hmul(b[i], __float2half(0.5f)));
    c[i] = h;
    __half2 p = __halves2half2(a[i], b[i]);
    c2[i] = __hfma2(p, p, __float2half2_rn(1.0f));
  }
}

__global__ void mixed(const float* f, double* d, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  double acc = 0.0;
  for (int k = 0; k < n; ++k) {
    if ((k + i) % 3 == 0) acc += (double)f[k] * 0.1;
    else acc -= exp((double)f[k]);
  }
  d[i] = acc;
}
