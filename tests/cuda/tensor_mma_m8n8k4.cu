// Volta's mma.sync.aligned.m8n8k4 with f16 inputs, through inline PTX, in
// every .alayout/.blayout nvcc accepts (row/col each), with f32 and f16
// accumulators. One warp runs four independent 8x8x4 products, one per quad
// pair q (lanes 4q..4q+3 and 4q+16..4q+19); each lane loads its fragment
// elements by the PTX ISA's table ("Matrix Fragments for mma.m8n8k4 with
// .f16 floating point type"; hi = 4 for lanes 16-31, t = lane % 4):
//   A row-major a_i = (t+hi, i), column-major (i+hi, t);
//   B row-major b_i = (t, i+hi), column-major (i, t+hi);
//   C/D f16 c_i = (t+hi, i); f32 c_i = ((l&1) + (i&2) + hi, (i&4) + (l&2) + (i&1)).
// Inputs are multiples of 1/8 and C small integers, so every result is
// exact in both accumulator types and must equal the host product.
#include <cuda_fp16.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "check.h"

constexpr int kPairs = 4;  // products per warp
constexpr int kA = 8 * 4, kB = 4 * 8, kC = 8 * 8;

__device__ unsigned pack(__half lo, __half hi) {
  return unsigned(__half_as_ushort(lo)) | unsigned(__half_as_ushort(hi)) << 16;
}

__device__ void c_at(int lane, int i, bool f16_acc, int& row, int& col) {
  int hi = lane >= 16 ? 4 : 0;
  row = f16_acc ? lane % 4 + hi : (lane & 1) + (i & 2) + hi;
  col = f16_acc ? i : (i & 4) + (lane & 2) + (i & 1);
}

#define MMA_F32(layouts)                                                                                         \
  asm volatile("mma.sync.aligned.m8n8k4" layouts ".f32.f16.f16.f32 {%0,%1,%2,%3,%4,%5,%6,%7}, {%8,%9}, {%10,%11}, " \
               "{%0,%1,%2,%3,%4,%5,%6,%7};"                                                                      \
               : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3]), "+f"(c[4]), "+f"(c[5]), "+f"(c[6]), "+f"(c[7]) \
               : "r"(a[0]), "r"(a[1]), "r"(b[0]), "r"(b[1]))
#define MMA_F16(layouts)                                                                          \
  asm volatile("mma.sync.aligned.m8n8k4" layouts ".f16.f16.f16.f16 {%0,%1,%2,%3}, {%4,%5}, {%6,%7}, " \
               "{%0,%1,%2,%3};"                                                                   \
               : "+r"(h[0]), "+r"(h[1]), "+r"(h[2]), "+r"(h[3])                                   \
               : "r"(a[0]), "r"(a[1]), "r"(b[0]), "r"(b[1]))

// A[q], B[q], C[q], D[q] are row-major 8x4, 4x8, 8x8 and 8x8 matrices.
template <bool ACol, bool BCol, bool F16Acc>
__global__ void products(const __half* A, const __half* B, const float* C, float* D) {
  int lane = threadIdx.x, q = lane % 16 / 4, hi = lane >= 16 ? 4 : 0, t = lane % 4;
  const __half* aq = A + q * kA;
  const __half* bq = B + q * kB;
  auto a_el = [&](int i) { return ACol ? aq[(i + hi) * 4 + t] : aq[(t + hi) * 4 + i]; };
  auto b_el = [&](int i) { return BCol ? bq[i * 8 + t + hi] : bq[t * 8 + i + hi]; };
  unsigned a[2] = {pack(a_el(0), a_el(1)), pack(a_el(2), a_el(3))};
  unsigned b[2] = {pack(b_el(0), b_el(1)), pack(b_el(2), b_el(3))};
  float c[8];
  unsigned h[4] = {};
  for (int i = 0; i < 8; ++i) {
    int row, col;
    c_at(lane, i, F16Acc, row, col);
    float v = C[q * kC + row * 8 + col];
    c[i] = v;
    h[i / 2] |= unsigned(__half_as_ushort(__float2half(v))) << (16 * (i % 2));
  }
  if (F16Acc) {
    if (!ACol && !BCol) MMA_F16(".row.row");
    if (!ACol && BCol) MMA_F16(".row.col");
    if (ACol && !BCol) MMA_F16(".col.row");
    if (ACol && BCol) MMA_F16(".col.col");
    for (int i = 0; i < 8; ++i) c[i] = __half2float(__ushort_as_half(static_cast<unsigned short>(h[i / 2] >> (16 * (i % 2)))));
  } else {
    if (!ACol && !BCol) MMA_F32(".row.row");
    if (!ACol && BCol) MMA_F32(".row.col");
    if (ACol && !BCol) MMA_F32(".col.row");
    if (ACol && BCol) MMA_F32(".col.col");
  }
  for (int i = 0; i < 8; ++i) {
    int row, col;
    c_at(lane, i, F16Acc, row, col);
    D[q * kC + row * 8 + col] = c[i];
  }
}

struct Device {
  __half *a, *b;
  float *c, *d;
};

template <bool ACol, bool BCol, bool F16Acc>
long run(const Device& dev, const std::vector<float>& A, const std::vector<float>& B, const std::vector<float>& C,
         const char* name) {
  CHECK(cudaMemset(dev.d, 0, kPairs * kC * sizeof(float)));
  products<ACol, BCol, F16Acc><<<1, 32>>>(dev.a, dev.b, dev.c, dev.d);
  CHECK_LAUNCH();
  std::vector<float> D(kPairs * kC);
  CHECK(cudaMemcpy(D.data(), dev.d, D.size() * sizeof(float), cudaMemcpyDeviceToHost));
  long bad = 0;
  for (int q = 0; q < kPairs; ++q)
    for (int r = 0; r < 8; ++r)
      for (int n = 0; n < 8; ++n) {
        float ref = C[q * kC + r * 8 + n];
        for (int k = 0; k < 4; ++k) ref += A[q * kA + r * 4 + k] * B[q * kB + k * 8 + n];
        if (D[q * kC + r * 8 + n] != ref) {
          if (bad < 5)
            std::printf("%s: product %d D[%d][%d] = %g, expected %g\n", name, q, r, n, D[q * kC + r * 8 + n], ref);
          ++bad;
        }
      }
  return bad;
}

int main() {
  std::vector<float> A(kPairs * kA), B(kPairs * kB), C(kPairs * kC);
  std::vector<__half> ah(A.size()), bh(B.size());
  // Distinct values per product, so a product reading another quad pair's
  // matrices gives a different result.
  for (size_t i = 0; i < A.size(); ++i) A[i] = float(int(i * 7 % 17) - 8) / 8, ah[i] = __float2half(A[i]);
  for (size_t i = 0; i < B.size(); ++i) B[i] = float(int(i * 5 % 13) - 6) / 8, bh[i] = __float2half(B[i]);
  for (size_t i = 0; i < C.size(); ++i) C[i] = float(int(i * 3 % 11) - 5);
  Device dev;
  CHECK(cudaMalloc(&dev.a, ah.size() * sizeof(__half)));
  CHECK(cudaMalloc(&dev.b, bh.size() * sizeof(__half)));
  CHECK(cudaMalloc(&dev.c, C.size() * sizeof(float)));
  CHECK(cudaMalloc(&dev.d, C.size() * sizeof(float)));
  CHECK(cudaMemcpy(dev.a, ah.data(), ah.size() * sizeof(__half), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dev.b, bh.data(), bh.size() * sizeof(__half), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dev.c, C.data(), C.size() * sizeof(float), cudaMemcpyHostToDevice));
  long bad = 0;
  bad += run<false, false, false>(dev, A, B, C, "row.row f32");
  bad += run<false, true, false>(dev, A, B, C, "row.col f32");
  bad += run<true, false, false>(dev, A, B, C, "col.row f32");
  bad += run<true, true, false>(dev, A, B, C, "col.col f32");
  bad += run<false, false, true>(dev, A, B, C, "row.row f16");
  bad += run<false, true, true>(dev, A, B, C, "row.col f16");
  bad += run<true, false, true>(dev, A, B, C, "col.row f16");
  bad += run<true, true, true>(dev, A, B, C, "col.col f16");
  CHECK(cudaFree(dev.a));
  CHECK(cudaFree(dev.b));
  CHECK(cudaFree(dev.c));
  CHECK(cudaFree(dev.d));
  return verdict("tensor_mma_m8n8k4", bad);
}
