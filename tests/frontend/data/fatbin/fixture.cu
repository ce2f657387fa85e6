// Source of the fatbin fixtures in tests/frontend/data/fatbin (see README there).
__constant__ float coeff[4];
__device__ int hits;
__global__ void axpb(float* y, const float* x, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) { y[i] = a * x[i] + coeff[0]; atomicAdd(&hits, 1); }
}
int main() { return 0; }
