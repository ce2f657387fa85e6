// Static and dynamic shared memory, constant and device globals with initialisers, atomics.
__constant__ int lookup[5] = {1, 2, 3, 500, -7};
__constant__ float scales[2] = {1.0f, 0.5f};
__device__ int counter = 42;
__device__ double weights[3] = {0.25, 1.5, -2.0};
__device__ int* counter_ptr = &counter;

extern __shared__ float dyn_smem[];

__global__ void reduce_shared(const float* in, float* out, int n) {
  __shared__ float tile[256];
  int t = threadIdx.x;
  int i = blockIdx.x * blockDim.x + t;
  tile[t] = (i < n) ? in[i] * scales[i & 1] : 0.0f;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (t < s) tile[t] += tile[t + s];
    __syncthreads();
  }
  if (t == 0) atomicAdd(out, tile[0]);
}

__global__ void dynamic_shared(int* out, int n) {
  int t = threadIdx.x;
  dyn_smem[t] = (float)lookup[t % 5] * (float)weights[t % 3];
  __syncthreads();
  float v = dyn_smem[(t + 1) % blockDim.x];
  if (t < n) {
    out[t] = (int)v;
    atomicMax(out + n, t);
    atomicCAS(out + n + 1, 0, t);
    atomicAdd(counter_ptr, 1);
    atomicExch(out + n + 2, t);
  }
}
