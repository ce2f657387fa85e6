// C (M x N) = A (M x K) * B (K x N) with 16x16 shared-memory tiles and
// barriers; sizes are not multiples of the tile, so edge tiles pad with 0.
#include <vector>

#include "check.h"

constexpr int kTile = 16;

__global__ void matmul(const float* A, const float* B, float* C, int M, int N, int K) {
  __shared__ float as[kTile][kTile];
  __shared__ float bs[kTile][kTile];
  int row = blockIdx.y * kTile + threadIdx.y;
  int col = blockIdx.x * kTile + threadIdx.x;
  float acc = 0.0f;
  for (int t = 0; t < (K + kTile - 1) / kTile; ++t) {
    int ak = t * kTile + threadIdx.x, bk = t * kTile + threadIdx.y;
    as[threadIdx.y][threadIdx.x] = (row < M && ak < K) ? A[row * K + ak] : 0.0f;
    bs[threadIdx.y][threadIdx.x] = (bk < K && col < N) ? B[bk * N + col] : 0.0f;
    __syncthreads();
    for (int k = 0; k < kTile; ++k) acc += as[threadIdx.y][k] * bs[k][threadIdx.x];
    __syncthreads();
  }
  if (row < M && col < N) C[row * N + col] = acc;
}

int main() {
  const int M = 45, N = 38, K = 70;
  std::vector<float> A(M * K), B(K * N), C(M * N, 0.0f);
  // Small integers: every product and partial sum is exact in float.
  for (int i = 0; i < M * K; ++i) A[i] = static_cast<float>((i * 7) % 11 - 5);
  for (int i = 0; i < K * N; ++i) B[i] = static_cast<float>((i * 3) % 7 - 3);
  float *dA, *dB, *dC;
  CHECK(cudaMalloc(&dA, A.size() * sizeof(float)));
  CHECK(cudaMalloc(&dB, B.size() * sizeof(float)));
  CHECK(cudaMalloc(&dC, C.size() * sizeof(float)));
  CHECK(cudaMemcpy(dA, A.data(), A.size() * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dB, B.data(), B.size() * sizeof(float), cudaMemcpyHostToDevice));
  dim3 block(kTile, kTile), grid((N + kTile - 1) / kTile, (M + kTile - 1) / kTile);
  matmul<<<grid, block>>>(dA, dB, dC, M, N, K);
  CHECK_LAUNCH();
  CHECK(cudaMemcpy(C.data(), dC, C.size() * sizeof(float), cudaMemcpyDeviceToHost));
  long bad = 0;
  for (int r = 0; r < M; ++r)
    for (int c = 0; c < N; ++c) {
      float want = 0;
      for (int k = 0; k < K; ++k) want += A[r * K + k] * B[k * N + c];
      bad += C[r * N + c] != want;
    }
  CHECK(cudaFree(dA));
  CHECK(cudaFree(dB));
  CHECK(cudaFree(dC));
  return verdict("matmul_tiled", bad);
}
