// warpsim example: one Jacobi sweep of a 5-point stencil over a 512 x 512
// grid of floats (1 MB in, 1 MB out): each point reads four neighbours, so
// most reads hit in the caches and DRAM traffic is about one read and one
// write per point.
//   nvcc -cudart shared -gencode arch=compute_80,code=compute_80 stencil2d.cu -o stencil2d
#include <cstdio>
#include <vector>

constexpr int kN = 512;

__global__ void jacobi(const float* in, float* out) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x == 0 || y == 0 || x == kN - 1 || y == kN - 1) {
    out[y * kN + x] = in[y * kN + x];
    return;
  }
  out[y * kN + x] = 0.25f * (in[y * kN + x - 1] + in[y * kN + x + 1] + in[(y - 1) * kN + x] + in[(y + 1) * kN + x]);
}

int main() {
  std::vector<float> in(kN * kN), out(kN * kN);
  for (int i = 0; i < kN * kN; ++i) in[i] = float((i * 7) % 16);  // sums of four and a quarter stay exact
  float *din, *dout;
  size_t bytes = kN * kN * sizeof(float);
  cudaMalloc(&din, bytes);
  cudaMalloc(&dout, bytes);
  cudaMemcpy(din, in.data(), bytes, cudaMemcpyHostToDevice);
  jacobi<<<dim3(kN / 32, kN / 8), dim3(32, 8)>>>(din, dout);
  cudaError_t err = cudaDeviceSynchronize();
  cudaMemcpy(out.data(), dout, bytes, cudaMemcpyDeviceToHost);
  int wrong = 0;
  for (int y = 0; y < kN; ++y)
    for (int x = 0; x < kN; ++x) {
      bool edge = x == 0 || y == 0 || x == kN - 1 || y == kN - 1;
      float want = edge ? in[y * kN + x]
                        : 0.25f * (in[y * kN + x - 1] + in[y * kN + x + 1] + in[(y - 1) * kN + x] +
                                   in[(y + 1) * kN + x]);
      wrong += out[y * kN + x] != want;
    }
  std::printf("stencil2d: %dx%d: %s, %s\n", kN, kN, cudaGetErrorString(err), wrong ? "WRONG" : "correct");
  cudaFree(din);
  cudaFree(dout);
  return wrong || err != cudaSuccess ? 1 : 0;
}
