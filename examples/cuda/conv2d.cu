// warpsim example: a 3 x 3 convolution of a 512 x 512 image with the filter
// in constant memory (1 MB in, 1 MB out, nine multiply-adds a pixel).
//   nvcc -cudart shared -gencode arch=compute_80,code=compute_80 conv2d.cu -o conv2d
#include <cstdio>
#include <vector>

constexpr int kN = 512;
__constant__ float kFilter[9];

__global__ void conv(const float* in, float* out) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  float sum = 0;
  for (int dy = -1; dy <= 1; ++dy)
    for (int dx = -1; dx <= 1; ++dx) {
      int sx = min(max(x + dx, 0), kN - 1), sy = min(max(y + dy, 0), kN - 1);  // clamp at the border
      sum += kFilter[(dy + 1) * 3 + dx + 1] * in[sy * kN + sx];
    }
  out[y * kN + x] = sum;
}

int main() {
  const float filter[9] = {1, 2, 1, 2, 4, 2, 1, 2, 1};
  std::vector<float> in(kN * kN), out(kN * kN);
  for (int i = 0; i < kN * kN; ++i) in[i] = float(i % 9);  // whole numbers: every sum is exact
  float *din, *dout;
  size_t bytes = kN * kN * sizeof(float);
  cudaMalloc(&din, bytes);
  cudaMalloc(&dout, bytes);
  cudaMemcpy(din, in.data(), bytes, cudaMemcpyHostToDevice);
  cudaMemcpyToSymbol(kFilter, filter, sizeof(filter));
  conv<<<dim3(kN / 32, kN / 8), dim3(32, 8)>>>(din, dout);
  cudaError_t err = cudaDeviceSynchronize();
  cudaMemcpy(out.data(), dout, bytes, cudaMemcpyDeviceToHost);
  int wrong = 0;
  for (int y = 0; y < kN; ++y)
    for (int x = 0; x < kN; ++x) {
      float want = 0;
      for (int dy = -1; dy <= 1; ++dy)
        for (int dx = -1; dx <= 1; ++dx) {
          int sx = std::min(std::max(x + dx, 0), kN - 1), sy = std::min(std::max(y + dy, 0), kN - 1);
          want += filter[(dy + 1) * 3 + dx + 1] * in[sy * kN + sx];
        }
      wrong += out[y * kN + x] != want;
    }
  std::printf("conv2d: %dx%d: %s, %s\n", kN, kN, cudaGetErrorString(err), wrong ? "WRONG" : "correct");
  cudaFree(din);
  cudaFree(dout);
  return wrong || err != cudaSuccess ? 1 : 0;
}
