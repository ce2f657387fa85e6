// Kernels the driver-API test (driver_launch.cpp) loads as a module: nvcc
// compiles this file to PTX (-ptx), to a fat binary holding that PTX
// (-fatbin, code=compute_80), and to SASS only (-cubin; a fat binary with
// code=sm_80) for the refusals. extern "C" keeps the names unmangled, as
// driver-API programs usually do, so cuModuleGetFunction finds "saxpy".

// Set by the host through cuModuleGetGlobal.
__device__ float bias;

// y[i] = a * x[i] + y[i] + bias
extern "C" __global__ void saxpy(float a, const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i] + bias;
}

// Mixed parameter sizes and alignments (1, 8, 2, 8, 4 bytes): the `extra`
// buffer must hold them at their aligned offsets (0, 8, 16, 24, 32).
extern "C" __global__ void mixed(char c, double d, short s, long long* out, int k) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = static_cast<long long>(c) + static_cast<long long>(d) * 1000 + s * 100 + k * i;
}

// Reverses each block's 256 values through shared memory (static: 1 KiB).
extern "C" __global__ void reverse_block(const float* in, float* out) {
  __shared__ float tile[256];
  int base = blockIdx.x * 256;
  tile[threadIdx.x] = in[base + threadIdx.x];
  __syncthreads();
  out[base + threadIdx.x] = tile[255 - threadIdx.x];
}
