// warpsim example: shared-memory tiled matrix multiply (C = A * B, 64x64).
//   nvcc -cudart shared -gencode arch=compute_80,code=compute_80 matrix_mul.cu -o matrix_mul
//   warpsim exec --gpu qv100 -- ./matrix_mul
#include <cstdio>
#include <vector>

constexpr int kN = 64, kTile = 16;  // about 1.4 M thread instructions

__global__ void matrix_mul(const float* a, const float* b, float* c) {
  __shared__ float ta[kTile][kTile], tb[kTile][kTile];
  int row = blockIdx.y * kTile + threadIdx.y, col = blockIdx.x * kTile + threadIdx.x;
  float sum = 0;
  for (int t = 0; t < kN / kTile; ++t) {
    ta[threadIdx.y][threadIdx.x] = a[row * kN + t * kTile + threadIdx.x];
    tb[threadIdx.y][threadIdx.x] = b[(t * kTile + threadIdx.y) * kN + col];
    __syncthreads();
    for (int k = 0; k < kTile; ++k) sum += ta[threadIdx.y][k] * tb[k][threadIdx.x];
    __syncthreads();
  }
  c[row * kN + col] = sum;
}

int main() {
  std::vector<float> a(kN * kN), b(kN * kN), c(kN * kN);
  for (int i = 0; i < kN * kN; ++i) a[i] = float(i % 5), b[i] = float(i % 3) - 1;
  float *da, *db, *dc;
  size_t bytes = kN * kN * sizeof(float);
  cudaMalloc(&da, bytes);
  cudaMalloc(&db, bytes);
  cudaMalloc(&dc, bytes);
  cudaMemcpy(da, a.data(), bytes, cudaMemcpyHostToDevice);
  cudaMemcpy(db, b.data(), bytes, cudaMemcpyHostToDevice);
  matrix_mul<<<dim3(kN / kTile, kN / kTile), dim3(kTile, kTile)>>>(da, db, dc);
  cudaError_t err = cudaDeviceSynchronize();
  cudaMemcpy(c.data(), dc, bytes, cudaMemcpyDeviceToHost);
  int wrong = 0;
  for (int r = 0; r < kN; ++r)
    for (int col = 0; col < kN; ++col) {
      float want = 0;
      for (int k = 0; k < kN; ++k) want += a[r * kN + k] * b[k * kN + col];
      wrong += c[r * kN + col] != want;
    }
  std::printf("matrix_mul: %dx%d: %s, %s\n", kN, kN, cudaGetErrorString(err), wrong ? "WRONG" : "correct");
  cudaFree(da);
  cudaFree(db);
  cudaFree(dc);
  return wrong || err != cudaSuccess ? 1 : 0;
}
