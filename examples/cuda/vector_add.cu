// warpsim example: an ordinary CUDA program. Build it against the shared
// runtime and run it on the simulated GPU:
//   nvcc -cudart shared -gencode arch=compute_80,code=compute_80 vector_add.cu -o vector_add
//   warpsim exec --gpu qv100 -- ./vector_add
#include <cstdio>
#include <vector>

__global__ void add(const float* a, const float* b, float* c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}

int main() {
  const int n = 1 << 14;
  std::vector<float> a(n), b(n), c(n);
  for (int i = 0; i < n; ++i) a[i] = float(i), b[i] = float(2 * i);
  float *da, *db, *dc;
  cudaMalloc(&da, n * sizeof(float));
  cudaMalloc(&db, n * sizeof(float));
  cudaMalloc(&dc, n * sizeof(float));
  cudaMemcpy(da, a.data(), n * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(db, b.data(), n * sizeof(float), cudaMemcpyHostToDevice);

  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  cudaEventRecord(start);
  add<<<(n + 255) / 256, 256>>>(da, db, dc, n);
  cudaEventRecord(stop);
  cudaEventSynchronize(stop);
  float ms = 0;
  cudaEventElapsedTime(&ms, start, stop);
  cudaError_t err = cudaGetLastError();
  cudaMemcpy(c.data(), dc, n * sizeof(float), cudaMemcpyDeviceToHost);

  int wrong = 0;
  for (int i = 0; i < n; ++i) wrong += c[i] != a[i] + b[i];
  cudaDeviceProp prop;
  cudaGetDeviceProperties(&prop, 0);
  std::printf("vector_add: %d elements on %s: %s, kernel %.3f ms by events, %s\n", n, prop.name,
              cudaGetErrorString(err), ms, wrong ? "WRONG" : "correct");
  cudaFree(da);
  cudaFree(db);
  cudaFree(dc);
  return wrong || err != cudaSuccess ? 1 : 0;
}
