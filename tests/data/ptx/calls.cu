// Non-inlined device functions with calls and return values, a loop with divergence.
__device__ __noinline__ float blend(float a, float b, float t) {
  return a + (b - a) * t;
}

__device__ __noinline__ int collatz_steps(int v) {
  int steps = 0;
  while (v != 1 && steps < 1000) {
    v = (v & 1) ? 3 * v + 1 : v / 2;
    ++steps;
  }
  return steps;
}

__device__ __noinline__ void store_pair(int* p, int a, int b) {
  p[0] = a;
  p[1] = b;
}

__global__ void call_kernel(const float* a, const float* b, float* out, int* steps, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  out[i] = blend(a[i], b[i], 0.25f);
  int s = collatz_steps(i + 1);
  store_pair(steps + 2 * i, s, i);
}
