// y = a*x + y with a grid-stride loop: a small grid covers a larger array,
// so each thread handles several elements. cudaMemcpyDefault is used for
// the copies (direction from the pointers).
#include <vector>

#include "check.h"

__global__ void saxpy(int n, float a, const float* x, float* y) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) y[i] = a * x[i] + y[i];
}

int main() {
  const int n = 10007;
  const float a = 2.5f;
  std::vector<float> x(n), y(n), out(n);
  for (int i = 0; i < n; ++i) {
    x[i] = static_cast<float>(i % 97) - 48.0f;
    y[i] = static_cast<float>(i % 13) * 0.25f;
  }
  float *dx, *dy;
  CHECK(cudaMalloc(&dx, n * sizeof(float)));
  CHECK(cudaMalloc(&dy, n * sizeof(float)));
  CHECK(cudaMemcpy(dx, x.data(), n * sizeof(float), cudaMemcpyDefault));
  CHECK(cudaMemcpy(dy, y.data(), n * sizeof(float), cudaMemcpyDefault));
  saxpy<<<6, 192>>>(n, a, dx, dy);
  CHECK_LAUNCH();
  CHECK(cudaMemcpy(out.data(), dy, n * sizeof(float), cudaMemcpyDefault));
  long bad = 0;
  for (int i = 0; i < n; ++i) bad += !close_enough(out[i], a * x[i] + y[i], 1e-6, 1e-6);
  CHECK(cudaFree(dx));
  CHECK(cudaFree(dy));
  return verdict("saxpy_grid_stride", bad);
}
