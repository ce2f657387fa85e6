// 128- and 256-bit data as nvcc 13 emits it for compute_100 PTX (built with
// -gencode arch=compute_100,code=compute_100, run on whatever preset: warpsim
// takes the newest PTX there is): 32-byte aligned structs of eight floats and
// double4_32a move as ld/st.global.v8.f32 and .v4.f64, atomicExch on
// unsigned __int128 is atom.global.exch.b128 on .b128 registers (mov.b128
// packs and unpacks them), and a CAS loop on 128 bits (atom.cas.b128). Every
// result is checked on the CPU.
#include <cstdint>
#include <vector>

#include "../check.h"

using u128 = unsigned __int128;

struct __align__(32) Float8 {
  float v[8];
};

constexpr int kThreads = 256, kBlocks = 4, kN = kThreads * kBlocks;

// out[i] = in[i] with its eight floats reversed and scaled.
__global__ void reverse8(const Float8* in, Float8* out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  Float8 a = in[i], b;
  for (int k = 0; k < 8; ++k) b.v[k] = 2.0f * a.v[7 - k];
  out[i] = b;
}

// out[i] = in[i] rotated by one element.
__global__ void rotate4(const double4_32a* in, double4_32a* out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  double4_32a a = in[i];
  out[i] = make_double4_32a(a.w, a.x, a.y, a.z);
}

// Every thread swaps its own 128-bit token into one slot.
__global__ void exchange(u128* slot, u128* old) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  u128 token = (u128(i + 1) << 64) | u128(3 * i + 7);
  old[i] = atomicExch(slot, token);
}

// A 128-bit counter whose halves move together: +1 low, +2 high, by CAS.
__global__ void cas_count(u128* counter) {
  u128 seen = *counter;
  for (;;) {
    u128 want = seen + ((u128(2) << 64) | 1);
    u128 got = atomicCAS(counter, seen, want);
    if (got == seen) break;
    seen = got;
  }
}

int main() {
  long bad = 0;
  std::vector<Float8> f(kN), f_out(kN);
  for (int i = 0; i < kN; ++i)
    for (int k = 0; k < 8; ++k) f[i].v[k] = float(i * 8 + k) + 0.25f;
  std::vector<double4_32a> d(kN), d_out(kN);
  for (int i = 0; i < kN; ++i) d[i] = make_double4_32a(i + 0.5, -i, i * 3.0, 1e10 + i);
  Float8 *df, *df_out;
  double4_32a *dd, *dd_out;
  u128 *slot, *old, *counter;
  CHECK(cudaMalloc(&df, kN * sizeof(Float8)));
  CHECK(cudaMalloc(&df_out, kN * sizeof(Float8)));
  CHECK(cudaMalloc(&dd, kN * sizeof(double4_32a)));
  CHECK(cudaMalloc(&dd_out, kN * sizeof(double4_32a)));
  CHECK(cudaMalloc(&slot, sizeof(u128)));
  CHECK(cudaMalloc(&old, kN * sizeof(u128)));
  CHECK(cudaMalloc(&counter, sizeof(u128)));
  CHECK(cudaMemcpy(df, f.data(), kN * sizeof(Float8), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dd, d.data(), kN * sizeof(double4_32a), cudaMemcpyHostToDevice));
  const u128 initial = (u128(0xfeedull) << 64) | 0xbeefull;
  CHECK(cudaMemcpy(slot, &initial, sizeof(u128), cudaMemcpyHostToDevice));
  CHECK(cudaMemset(counter, 0, sizeof(u128)));

  reverse8<<<kBlocks, kThreads>>>(df, df_out);
  CHECK_LAUNCH();
  rotate4<<<kBlocks, kThreads>>>(dd, dd_out);
  CHECK_LAUNCH();
  exchange<<<kBlocks, kThreads>>>(slot, old);
  CHECK_LAUNCH();
  cas_count<<<kBlocks, kThreads>>>(counter);
  CHECK_LAUNCH();

  CHECK(cudaMemcpy(f_out.data(), df_out, kN * sizeof(Float8), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(d_out.data(), dd_out, kN * sizeof(double4_32a), cudaMemcpyDeviceToHost));
  for (int i = 0; i < kN; ++i) {
    for (int k = 0; k < 8; ++k) bad += f_out[i].v[k] != 2.0f * f[i].v[7 - k];
    bad += d_out[i].x != d[i].w || d_out[i].y != d[i].x || d_out[i].z != d[i].y || d_out[i].w != d[i].z;
  }
  // The exchanges form one chain: the old values and the final slot are
  // exactly the initial value and every token, each once, whatever the order.
  std::vector<u128> olds(kN);
  u128 last;
  CHECK(cudaMemcpy(olds.data(), old, kN * sizeof(u128), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(&last, slot, sizeof(u128), cudaMemcpyDeviceToHost));
  std::vector<int> seen(kN + 1, 0);
  olds.push_back(last);
  for (u128 v : olds) {
    if (v == initial) { ++seen[kN]; continue; }
    uint64_t hi = uint64_t(v >> 64), lo = uint64_t(v);
    int i = int(hi) - 1;
    if (i < 0 || i >= kN || lo != uint64_t(3 * i + 7)) { ++bad; continue; }
    ++seen[i];
  }
  for (int s : seen) bad += s != 1;
  u128 count;
  CHECK(cudaMemcpy(&count, counter, sizeof(u128), cudaMemcpyDeviceToHost));
  bad += uint64_t(count) != uint64_t(kN) || uint64_t(count >> 64) != uint64_t(2 * kN);
  return verdict("wide_access", bad);
}
