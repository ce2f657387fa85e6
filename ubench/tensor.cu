// Tensor cores through WMMA (sm_70 and newer: m16n16k16, f16 inputs, f32
// accumulators): latency of a dependent chain of mma_sync on one warp, and
// throughput with 4 independent accumulators on every warp of a 1024-thread
// CTA per SM (dense FLOPs: 2 x 16 x 16 x 16 per mma per warp).
// Where tensor instructions are not available (a GPU older than sm_70, or a
// simulator without them) the launch fails and the program prints a comment
// line and exits 3 (so a run script can tell "unsupported" from a crash).
//   args: steps=N (default 64)
#include <mma.h>

#include "ubench.h"

using namespace nvcuda;
using FragA = wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major>;
using FragB = wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major>;
using FragC = wmma::fragment<wmma::accumulator, 16, 16, 16, float>;
constexpr int kAcc = 4;

__global__ void mma_latency(const half* ab, long steps, long long* cycles, float* out) {
  FragA a;
  FragB b;
  FragC c;
  wmma::load_matrix_sync(a, ab, 16);
  wmma::load_matrix_sync(b, ab, 16);
  wmma::fill_fragment(c, 0.0f);
  long long t0 = 0, t1 = 0;
#pragma unroll 1
  for (int pass = 0; pass < 2; ++pass) {
    t0 = ub::clock_now();
    for (long i = 0; i < steps; ++i) wmma::mma_sync(c, a, b, c);
    wmma::store_matrix_sync(out, c, 16, wmma::mem_row_major);
    t1 = ub::clock_now();
  }
  if (threadIdx.x == 0) cycles[0] = t1 - t0;
}

__global__ void mma_throughput(const half* ab, long steps, ub::Span* spans, float* out) {
  FragA a;
  FragB b;
  FragC c[kAcc];
  wmma::load_matrix_sync(a, ab, 16);
  wmma::load_matrix_sync(b, ab, 16);
  for (int k = 0; k < kAcc; ++k) wmma::fill_fragment(c[k], 0.0f);
  long long t0 = ub::clock_now();
  for (long i = 0; i < steps; ++i)
#pragma unroll
    for (int k = 0; k < kAcc; ++k) wmma::mma_sync(c[k], a, b, c[k]);
  for (int k = 1; k < kAcc; ++k)
    for (int e = 0; e < c[0].num_elements; ++e) c[0].x[e] += c[k].x[e];
  wmma::store_matrix_sync(out + (blockIdx.x * blockDim.x + threadIdx.x) / 32 * 256, c[0], 16, wmma::mem_row_major);
  long long t1 = ub::clock_now();
  ub::record_span(spans, t0, t1, 2.0f * 16 * 16 * 16 * kAcc * steps);
}

bool launched_ok() {
  cudaError_t err = cudaGetLastError();
  if (err == cudaSuccess) err = cudaDeviceSynchronize();
  if (err == cudaSuccess) return true;
  std::printf("# tensor: mma not available here (%s)\n", cudaGetErrorString(err));
  return false;
}

int main(int argc, char** argv) {
  const long steps = ub::arg(argc, argv, "steps", 64);
  half* ab;
  float* out;
  long long* cycles;
  ub::Span* spans;
  UB_CHECK(cudaMalloc(&ab, 256 * sizeof(half)));
  UB_CHECK(cudaMemset(ab, 0, 256 * sizeof(half)));
  UB_CHECK(cudaMalloc(&out, 32 * 256 * sizeof(float)));
  UB_CHECK(cudaMalloc(&cycles, sizeof(long long)));
  UB_CHECK(cudaMalloc(&spans, 32 * sizeof(ub::Span)));
  long long c[2];
  for (int k = 0; k < 2; ++k) {
    mma_latency<<<1, 32>>>(ab, steps << k, cycles, out);
    if (!launched_ok()) return 3;
    UB_CHECK(cudaMemcpy(&c[k], cycles, sizeof(long long), cudaMemcpyDeviceToHost));
  }
  ub::emit("tensor_mma_latency_cycles", static_cast<double>(c[1] - c[0]) / steps);
  // A discarded run warms the code (ub::warm_pair); the latency kernel
  // warms itself with a first pass.
  mma_throughput<<<1, 1024>>>(ab, steps, spans, out);
  if (!launched_ok()) return 3;
  std::map<unsigned, ub::SmTotal> runs[2];
  for (int k = 0; k < 2; ++k) {
    mma_throughput<<<1, 1024>>>(ab, steps << k, spans, out);
    if (!launched_ok()) return 3;
    runs[k] = ub::sm_totals(spans, 32);
  }
  ub::emit("tensor_fp16_flops_per_clk_per_sm", ub::differential_rate(runs[0], runs[1]));
  return 0;
}
