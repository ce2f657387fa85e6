// SIMD video instructions: CUDA's __vsadu4 and __vabsdiffu4 (which nvcc
// compiles to vabsdiff4, with and without .add) and, through inline PTX, the
// other 4- and 2-lane forms with signed and unsigned operands, saturation and
// the .add accumulation. Each result is checked against a host model written
// from the PTX ISA's description (lanes extended by type, op, clamp, pack or sum).
#include <cstdint>
#include <vector>

#include "check.h"

constexpr int kN = 4096;
constexpr int kForms = 12;

__device__ uint32_t vx(uint32_t x) { return x * 2654435761u + 12345u; }

__global__ void video(const uint32_t* a, const uint32_t* b, uint32_t* out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= kN) return;
  uint32_t x = a[i], y = b[i], c = vx(x ^ y), r[kForms];
  r[0] = __vsadu4(x, y);
  r[1] = __vabsdiffu4(x, y);
  asm("vabsdiff4.s32.s32.s32.add %0, %1, %2, %3;" : "=r"(r[2]) : "r"(x), "r"(y), "r"(c));
  asm("vadd4.u32.u32.u32.sat %0, %1, %2, %3;" : "=r"(r[3]) : "r"(x), "r"(y), "r"(c));
  asm("vsub4.s32.s32.s32.sat %0, %1, %2, %3;" : "=r"(r[4]) : "r"(x), "r"(y), "r"(c));
  asm("vavrg4.s32.u32.s32 %0, %1, %2, %3;" : "=r"(r[5]) : "r"(x), "r"(y), "r"(c));
  asm("vmin4.s32.s32.s32 %0, %1, %2, %3;" : "=r"(r[6]) : "r"(x), "r"(y), "r"(c));
  asm("vmax4.u32.u32.u32.add %0, %1, %2, %3;" : "=r"(r[7]) : "r"(x), "r"(y), "r"(c));
  asm("vabsdiff2.u32.u32.u32.add %0, %1, %2, %3;" : "=r"(r[8]) : "r"(x), "r"(y), "r"(c));
  asm("vadd2.s32.s32.s32.sat %0, %1, %2, %3;" : "=r"(r[9]) : "r"(x), "r"(y), "r"(c));
  asm("vsub2.u32.u32.u32.sat %0, %1, %2, %3;" : "=r"(r[10]) : "r"(x), "r"(y), "r"(c));
  asm("vavrg2.s32.s32.s32 %0, %1, %2, %3;" : "=r"(r[11]) : "r"(x), "r"(y), "r"(c));
  for (int k = 0; k < kForms; ++k) out[k * kN + i] = r[k];
}

// ---- host model ----
enum Op { Add, Sub, Avrg, Absdiff, Min, Max };
struct Form {
  Op op;
  int bits;  // lane width
  bool sd, sa, sb, sat, add;
};

int64_t lane(uint32_t v, int i, int bits, bool sgn) {
  int64_t x = (v >> (i * bits)) & ((1u << bits) - 1);
  return sgn && x >= (int64_t{1} << (bits - 1)) ? x - (int64_t{1} << bits) : x;
}

uint32_t model(const Form& f, uint32_t a, uint32_t b, uint32_t c) {
  int64_t acc = int32_t(c);
  uint32_t packed = 0;
  for (int i = 0; i < 32 / f.bits; ++i) {
    int64_t x = lane(a, i, f.bits, f.sa), y = lane(b, i, f.bits, f.sb), t = 0;
    switch (f.op) {
      case Add: t = x + y; break;
      case Sub: t = x - y; break;
      case Avrg: t = (x + y >= 0) ? (x + y + 1) / 2 : -((-(x + y)) / 2 + ((-(x + y)) % 2 ? 1 : 0)); break;
      case Absdiff: t = x > y ? x - y : y - x; break;
      case Min: t = x < y ? x : y; break;
      case Max: t = x > y ? x : y; break;
    }
    if (f.sat) {
      int64_t lo = f.sd ? -(int64_t{1} << (f.bits - 1)) : 0;
      int64_t hi = f.sd ? (int64_t{1} << (f.bits - 1)) - 1 : (int64_t{1} << f.bits) - 1;
      t = t < lo ? lo : t > hi ? hi : t;
    }
    acc += t;
    packed |= uint32_t(t & ((int64_t{1} << f.bits) - 1)) << (i * f.bits);
  }
  return f.add ? uint32_t(acc) : packed;
}

int main() {
  const Form forms[kForms] = {
      {Absdiff, 8, false, false, false, false, true},  // __vsadu4: sum of |a - b| bytes (+ 0)
      {Absdiff, 8, false, false, false, false, false}, {Absdiff, 8, true, true, true, false, true},
      {Add, 8, false, false, false, true, false},      {Sub, 8, true, true, true, true, false},
      {Avrg, 8, true, false, true, false, false},      {Min, 8, true, true, true, false, false},
      {Max, 8, false, false, false, false, true},      {Absdiff, 16, false, false, false, false, true},
      {Add, 16, true, true, true, true, false},        {Sub, 16, false, false, false, true, false},
      {Avrg, 16, true, true, true, false, false}};
  std::vector<uint32_t> a(kN), b(kN), out(kForms * kN);
  uint32_t s = 7;
  for (int i = 0; i < kN; ++i) {
    s = s * 1664525u + 1013904223u, a[i] = s;
    s = s * 1664525u + 1013904223u, b[i] = s;
  }
  a[0] = 0x80ff7f00u, b[0] = 0x7f0180ffu;  // lane extremes
  uint32_t *da, *db, *dout;
  CHECK(cudaMalloc(&da, kN * 4));
  CHECK(cudaMalloc(&db, kN * 4));
  CHECK(cudaMalloc(&dout, kForms * kN * 4));
  CHECK(cudaMemcpy(da, a.data(), kN * 4, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(db, b.data(), kN * 4, cudaMemcpyHostToDevice));
  video<<<kN / 128, 128>>>(da, db, dout);
  CHECK_LAUNCH();
  CHECK(cudaMemcpy(out.data(), dout, kForms * kN * 4, cudaMemcpyDeviceToHost));
  long bad = 0;
  for (int k = 0; k < kForms; ++k)
    for (int i = 0; i < kN; ++i) {
      uint32_t c = (a[i] ^ b[i]) * 2654435761u + 12345u;
      uint32_t want = model(forms[k], a[i], b[i], k < 2 ? 0 : c);
      if (out[k * kN + i] != want && bad++ < 5)
        std::printf("form %d element %d: got %08x want %08x\n", k, i, out[k * kN + i], want);
    }
  return verdict("simd_video", bad);
}
