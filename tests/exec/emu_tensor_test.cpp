// Tensor-core instructions: mma.sync fragments placed per the PTX ISA's
// tables (written out here lane by lane, independently of the emulator's
// formulas), wmma through memory (its register layout is unspecified, so
// only load -> mma -> store is observable), ldmatrix/stmatrix, and refusals.
#include <cmath>
#include <functional>
#include <random>

#include "exec/emu_test_util.h"
#include "exec/half.h"
#include "frontend/trace/tensor_work.h"

namespace ws::exec::test {
namespace {

using emu::f16_to_f32;

uint16_t f16(double v) { return emu::f64_to_f16(v, emu::Rounding::Rn); }
uint16_t bf16(double v) { return emu::f64_to_bf16(v, emu::Rounding::Rn); }
uint32_t f32_bits(float f) { uint32_t b; std::memcpy(&b, &f, 4); return b; }
float bits_f32(uint32_t b) { float f; std::memcpy(&f, &b, 4); return f; }

std::string reg_list(int first, int n) {
  std::string s = "{";
  for (int i = 0; i < n; ++i) s += (i ? ", %r" : "%r") + std::to_string(first + i);
  return s + "}";
}

// Runs `mma` (with %A, %B, %C, %D in place of its operands) on one warp:
// lane l's fragment registers come from in[l][0..na+nb+nc) and d goes to out[l][0..nd).
std::vector<uint32_t> run_mma_regs(const std::string& mma, int na, int nb, int nc, int nd,
                                   const std::vector<uint32_t>& in) {
  std::string body = R"(
    ld.param.u64 %rd1, [in];
    ld.param.u64 %rd2, [out];
    mov.u32 %r0, %tid.x;
    mul.wide.u32 %rd3, %r0, 128;
    add.s64 %rd4, %rd1, %rd3;
    add.s64 %rd5, %rd2, %rd3;
)";
  int nin = na + nb + nc;
  for (int i = 0; i < nin; ++i)
    body += "ld.global.b32 %r" + std::to_string(1 + i) + ", [%rd4+" + std::to_string(4 * i) + "];\n";
  std::string text = mma;
  auto sub = [&](const std::string& key, const std::string& v) { text.replace(text.find(key), key.size(), v); };
  sub("%D", reg_list(40, nd));
  sub("%A", reg_list(1, na));
  sub("%B", reg_list(1 + na, nb));
  sub("%C", reg_list(1 + na + nb, nc));
  body += text + ";\n";
  for (int i = 0; i < nd; ++i)
    body += "st.global.b32 [%rd5+" + std::to_string(4 * i) + "], %r" + std::to_string(40 + i) + ";\n";
  Harness h;
  h.load(kernel_ptx("k", ".param .u64 in, .param .u64 out", body));
  Addr a = h.buffer(in);
  Addr o = h.buffer(std::vector<uint32_t>(32 * 32, 0));
  LaunchResult r = h.launch("k", Dim3{1, 1, 1}, Dim3{32, 1, 1}, a, o);
  EXPECT_TRUE(r.ok) << r.error;
  return h.read<uint32_t>(o, 32 * 32);
}

// A value of small integers over 8: exact in f16, bf16 and tf32, and every
// sum of their products is exact in f32, so the reference has no rounding.
double small(std::mt19937& rng) { return static_cast<int>(rng() % 33) - 16 + 0.0; }

template <size_t R, size_t C>
void fill_small(double (&m)[R][C], std::mt19937& rng, double scale) {
  for (auto& row : m)
    for (double& v : row) v = small(rng) * scale;
}

// A and B in eighths, C in integers: products and sums stay exact in f32.
template <size_t M, size_t K, size_t N>
void fill_abc(double (&a)[M][K], double (&b)[K][N], double (&c)[M][N], unsigned seed) {
  std::mt19937 rng(seed);
  fill_small(a, rng, 1.0 / 8);
  fill_small(b, rng, 1.0 / 8);
  fill_small(c, rng, 1.0);
}

// mma.sync.m16n8k16 .f32.f16.f16.f32, fragments per the PTX ISA table
// (g = lane >> 2, t = lane % 4): A regs {a0a1: (g, 2t..2t+1), a2a3: (g+8, 2t..),
// a4a5: (g, 2t+8..), a6a7: (g+8, 2t+8..)}; B regs {b0b1: rows 2t..2t+1, b2b3:
// rows 2t+8..; column g}; C/D {c0,c1: (g, 2t), (g, 2t+1); c2,c3: (g+8, 2t..)}.
TEST(EmuTensor, MmaSyncM16n8k16F16MatchesHostReference) {
  double A[16][16], B[16][8], C[16][8];
  fill_abc(A, B, C, 7);
  std::vector<uint32_t> in(32 * 32, 0);
  auto pair = [](double lo, double hi) { return uint32_t(f16(lo)) | uint32_t(f16(hi)) << 16; };
  for (unsigned l = 0; l < 32; ++l) {
    unsigned g = l / 4, t = l % 4;
    uint32_t* r = &in[l * 32];
    r[0] = pair(A[g][2 * t], A[g][2 * t + 1]);
    r[1] = pair(A[g + 8][2 * t], A[g + 8][2 * t + 1]);
    r[2] = pair(A[g][2 * t + 8], A[g][2 * t + 9]);
    r[3] = pair(A[g + 8][2 * t + 8], A[g + 8][2 * t + 9]);
    r[4] = pair(B[2 * t][g], B[2 * t + 1][g]);
    r[5] = pair(B[2 * t + 8][g], B[2 * t + 9][g]);
    r[6] = f32_bits(float(C[g][2 * t])), r[7] = f32_bits(float(C[g][2 * t + 1]));
    r[8] = f32_bits(float(C[g + 8][2 * t])), r[9] = f32_bits(float(C[g + 8][2 * t + 1]));
  }
  auto out = run_mma_regs("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 %D, %A, %B, %C", 4, 2, 4, 4, in);
  for (unsigned l = 0; l < 32; ++l) {
    unsigned g = l / 4, t = l % 4;
    for (unsigned i = 0; i < 4; ++i) {
      unsigned row = g + 8 * (i / 2), col = 2 * t + i % 2;
      double ref = C[row][col];
      for (int k = 0; k < 16; ++k) ref += A[row][k] * B[k][col];
      EXPECT_EQ(bits_f32(out[l * 32 + i]), float(ref)) << "lane " << l << " c" << i;
    }
  }
}

// Volta's mma.m8n8k4 .f16: four independent 8x8x4 products, quad pair q =
// lanes 4q..4q+3 (low) and 4q+16..4q+19 (high), hi = 4 for the high lanes,
// t = lane % 4 (PTX ISA, "Matrix Fragments for mma.m8n8k4 with .f16"):
// A row-major a_i = (t+hi, i), column-major (i+hi, t); B row-major
// b_i = (t, i+hi), column-major (i, t+hi); f16 C/D c_i = (t+hi, i); f32 C/D
// c_i = ((l&1) + (i&2) + hi, (i&4) + (l&2) + (i&1)). Each quad pair gets its
// own matrices, so a product that read another quad pair's lanes fails.
void check_m8n8k4(bool a_col, bool b_col, bool f16_acc, unsigned seed) {
  double A[4][8][4], B[4][4][8], C[4][8][8];
  for (unsigned q = 0; q < 4; ++q) fill_abc(A[q], B[q], C[q], seed + q);
  auto pair = [](double lo, double hi) { return uint32_t(f16(lo)) | uint32_t(f16(hi)) << 16; };
  auto c_at = [&](unsigned l, unsigned i) -> std::pair<unsigned, unsigned> {
    unsigned hi = l >= 16 ? 4 : 0;
    if (f16_acc) return {l % 4 + hi, i};
    return {(l & 1) + (i & 2) + hi, (i & 4) + (l & 2) + (i & 1)};
  };
  unsigned nc = f16_acc ? 4 : 8;
  std::vector<uint32_t> in(32 * 32, 0);
  for (unsigned l = 0; l < 32; ++l) {
    unsigned q = l % 16 / 4, hi = l >= 16 ? 4 : 0, t = l % 4;
    auto a = [&](unsigned i) { return a_col ? A[q][i + hi][t] : A[q][t + hi][i]; };
    auto b = [&](unsigned i) { return b_col ? B[q][i][t + hi] : B[q][t][i + hi]; };
    uint32_t* r = &in[l * 32];
    r[0] = pair(a(0), a(1)), r[1] = pair(a(2), a(3));
    r[2] = pair(b(0), b(1)), r[3] = pair(b(2), b(3));
    for (unsigned i = 0; i < 8; ++i) {
      auto [row, col] = c_at(l, i);
      if (f16_acc) r[4 + i / 2] |= uint32_t(f16(C[q][row][col])) << (16 * (i % 2));
      else r[4 + i] = f32_bits(float(C[q][row][col]));
    }
  }
  std::string acc = f16_acc ? ".f16" : ".f32";
  std::string form = std::string("mma.sync.aligned.m8n8k4") + (a_col ? ".col" : ".row") + (b_col ? ".col" : ".row") +
                     acc + ".f16.f16" + acc + " %D, %A, %B, %C";
  auto out = run_mma_regs(form, 2, 2, nc, nc, in);
  for (unsigned l = 0; l < 32; ++l) {
    unsigned q = l % 16 / 4;
    for (unsigned i = 0; i < 8; ++i) {
      auto [row, col] = c_at(l, i);
      double ref = C[q][row][col];
      for (int k = 0; k < 4; ++k) ref += A[q][row][k] * B[q][k][col];
      double got = f16_acc ? f16_to_f32(uint16_t(out[l * 32 + i / 2] >> (16 * (i % 2))))
                           : bits_f32(out[l * 32 + i]);
      EXPECT_EQ(got, ref) << form << ": lane " << l << " c" << i;
    }
  }
}

TEST(EmuTensor, MmaSyncM8n8k4F16QuadPairsEveryLayout) {
  for (bool a_col : {false, true})
    for (bool b_col : {false, true}) check_m8n8k4(a_col, b_col, false, 40 + 2 * a_col + b_col);
}

// f16 accumulators: C in integers up to 16 and products in 64ths stay exact in f16.
TEST(EmuTensor, MmaSyncM8n8k4F16Accumulators) {
  check_m8n8k4(false, true, true, 51);
  check_m8n8k4(true, false, true, 52);
}

// .m16n8k8 .tf32: A regs a0 (g, t), a1 (g+8, t), a2 (g, t+4), a3 (g+8, t+4);
// B regs b0 (t, g), b1 (t+4, g). The low 13 mantissa bits of a tf32 operand
// are not read: A's values carry junk there that must not change the sum.
TEST(EmuTensor, MmaSyncM16n8k8Tf32IgnoresLowMantissaBits) {
  std::mt19937 rng(11);
  double A[16][8], B[8][8];
  fill_small(A, rng, 1.0 / 4);
  fill_small(B, rng, 1.0);
  std::vector<uint32_t> in(32 * 32, 0);
  auto tf = [](double v) { return f32_bits(float(v)) | 0x0fffu; };  // junk below the tf32 mantissa
  for (unsigned l = 0; l < 32; ++l) {
    unsigned g = l / 4, t = l % 4;
    uint32_t* r = &in[l * 32];
    r[0] = tf(A[g][t]), r[1] = tf(A[g + 8][t]), r[2] = tf(A[g][t + 4]), r[3] = tf(A[g + 8][t + 4]);
    r[4] = f32_bits(float(B[t][g])), r[5] = f32_bits(float(B[t + 4][g]));
  }
  auto out = run_mma_regs("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 %D, %A, %B, %C", 4, 2, 4, 4, in);
  for (unsigned l = 0; l < 32; ++l)
    for (unsigned i = 0; i < 4; ++i) {
      unsigned row = l / 4 + 8 * (i / 2), col = 2 * (l % 4) + i % 2;
      double ref = 0;  // C registers are zero
      for (int k = 0; k < 8; ++k) ref += A[row][k] * B[k][col];
      EXPECT_EQ(bits_f32(out[l * 32 + i]), float(ref)) << "lane " << l;
    }
}

// .m16n8k32 .s8: A regs hold 4 bytes along K: a0..a3 (g, 4t..4t+3), a4..a7
// (g+8, 4t..), a8..a11 (g, 4t+16..), a12..a15 (g+8, 4t+16..); B regs b0..b3
// (rows 4t..4t+3, column g), b4..b7 (rows 4t+16..). With .satfinite a sum
// past INT32_MAX clamps.
TEST(EmuTensor, MmaSyncM16n8k32S8ExactAndSatfinite) {
  std::mt19937 rng(3);
  int A[16][32], B[32][8];
  for (auto& r : A) for (int& v : r) v = int(rng() % 256) - 128;
  for (auto& r : B) for (int& v : r) v = int(rng() % 256) - 128;
  for (int k = 0; k < 32; ++k) A[0][k] = B[k][0] = 127;  // D(0,0) = C + 32 * 127^2 overflows
  std::vector<uint32_t> in(32 * 32, 0);
  auto quad = [](int a, int b, int c, int d) {
    return uint32_t(uint8_t(a)) | uint32_t(uint8_t(b)) << 8 | uint32_t(uint8_t(c)) << 16 | uint32_t(uint8_t(d)) << 24;
  };
  for (unsigned l = 0; l < 32; ++l) {
    unsigned g = l / 4, t = l % 4;
    uint32_t* r = &in[l * 32];
    for (unsigned reg = 0; reg < 4; ++reg) {
      unsigned row = g + 8 * (reg % 2), col = 4 * t + 16 * (reg / 2);
      r[reg] = quad(A[row][col], A[row][col + 1], A[row][col + 2], A[row][col + 3]);
    }
    for (unsigned reg = 0; reg < 2; ++reg) {
      unsigned k = 4 * t + 16 * reg;
      r[4 + reg] = quad(B[k][g], B[k + 1][g], B[k + 2][g], B[k + 3][g]);
    }
    for (unsigned i = 0; i < 4; ++i) r[6 + i] = (l == 0 && i == 0) ? 0x7ffffff0u : 0;  // C: near INT32_MAX at (0,0)
  }
  auto out = run_mma_regs("mma.sync.aligned.m16n8k32.row.col.satfinite.s32.s8.s8.s32 %D, %A, %B, %C", 4, 2, 4, 4, in);
  for (unsigned l = 0; l < 32; ++l)
    for (unsigned i = 0; i < 4; ++i) {
      unsigned row = l / 4 + 8 * (i / 2), col = 2 * (l % 4) + i % 2;
      int64_t ref = (l == 0 && i == 0) ? 0x7ffffff0 : 0;
      for (int k = 0; k < 32; ++k) ref += int64_t(A[row][k]) * B[k][col];
      ref = std::clamp<int64_t>(ref, INT32_MIN, INT32_MAX);
      EXPECT_EQ(int32_t(out[l * 32 + i]), ref) << "lane " << l << " c" << i;
    }
}

// .m16n8k8 f16 -> f16 accumulate: A a0a1 (g, 2t..), a2a3 (g+8, 2t..); B b0b1
// (rows 2t..2t+1, column g); C/D two f16x2: (g, 2t..2t+1), (g+8, 2t..).
// The exact sum (1 + 2^-11 + 2^-12 here) rounds once to f16: to 1 + 2^-10.
TEST(EmuTensor, MmaSyncF16AccumulatorRoundsOnce) {
  std::vector<uint32_t> in(32 * 32, 0);
  auto pair = [](double lo, double hi) { return uint32_t(f16(lo)) | uint32_t(f16(hi)) << 16; };
  // Row 0 of A = (1, 2^-11, 2^-12, 0...), column 0 of B = all ones; C = 0.
  for (unsigned l = 0; l < 32; ++l) {
    unsigned g = l / 4, t = l % 4;
    uint32_t* r = &in[l * 32];
    double a0 = g == 0 ? (t == 0 ? 1.0 : t == 1 ? std::ldexp(1.0, -12) : 0.0) : 0.0;
    double a1 = g == 0 && t == 0 ? std::ldexp(1.0, -11) : 0.0;
    r[0] = pair(a0, a1);
    r[2] = pair(g == 0 ? 1.0 : 0.0, g == 0 ? 1.0 : 0.0);  // B column 0 rows 2t, 2t+1 (only g == 0 is column 0)
  }
  auto out = run_mma_regs("mma.sync.aligned.m16n8k8.row.col.f16.f16.f16.f16 %D, %A, %B, %C", 2, 1, 2, 2, in);
  // Lane 0 holds D(0,0) in the low half of its first register.
  EXPECT_EQ(f16_to_f32(uint16_t(out[0])), 1.0f + std::ldexp(1.0f, -10));
  EXPECT_EQ(f16_to_f32(uint16_t(out[0] >> 16)), 0.0f);  // D(0,1): B column 1 is zero
}

// --- wmma through memory ---

struct WmmaCase {
  const char* atype;  // "f16", "bf16", "tf32", "s8"
  int m, n, k;
  bool a_col, b_col, d_col;
  int na, nb, nacc;   // register counts of a, b and the accumulators
};

// Element bits of a host value in the case's input type.
uint32_t encode(const char* t, double v) {
  std::string s = t;
  if (s == "f16") return f16(v);
  if (s == "bf16") return bf16(v);
  if (s == "tf32") return f32_bits(float(v));
  return uint32_t(uint8_t(int8_t(v)));
}
unsigned in_bytes(const char* t) {
  std::string s = t;
  return s == "tf32" ? 4 : s == "s8" ? 1 : 2;
}

// D = A x B + C with A, B, C, D in global memory in the case's layouts and a
// leading dimension 8 larger than the matrix (strides are honoured).
void run_wmma(const WmmaCase& c, const std::function<double(int, int)>& a, const std::function<double(int, int)>& b,
              const std::function<double(int, int)>& cm) {
  bool integer = std::string(c.atype) == "s8";
  const char* acc = integer ? "s32" : "f32";
  int lda = (c.a_col ? c.m : c.k) + 8, ldb = (c.b_col ? c.k : c.n) + 8, ldc = c.n + 8, ldd = (c.d_col ? c.m : c.n) + 8;
  unsigned eb = in_bytes(c.atype);
  std::vector<uint8_t> A(size_t(lda) * 32 * eb), B(size_t(ldb) * 32 * eb);
  std::vector<uint32_t> C(size_t(ldc) * c.m);
  for (int i = 0; i < c.m; ++i)
    for (int k = 0; k < c.k; ++k) {
      uint32_t bits = encode(c.atype, a(i, k));
      std::memcpy(&A[(c.a_col ? size_t(k) * lda + i : size_t(i) * lda + k) * eb], &bits, eb);
    }
  for (int k = 0; k < c.k; ++k)
    for (int j = 0; j < c.n; ++j) {
      uint32_t bits = encode(c.atype, b(k, j));
      std::memcpy(&B[(c.b_col ? size_t(j) * ldb + k : size_t(k) * ldb + j) * eb], &bits, eb);
    }
  for (int i = 0; i < c.m; ++i)
    for (int j = 0; j < c.n; ++j)
      C[size_t(i) * ldc + j] = integer ? uint32_t(int32_t(cm(i, j))) : f32_bits(float(cm(i, j)));
  std::string shape = ".m" + std::to_string(c.m) + "n" + std::to_string(c.n) + "k" + std::to_string(c.k);
  std::string al = c.a_col ? ".col" : ".row", bl = c.b_col ? ".col" : ".row", dl = c.d_col ? ".col" : ".row";
  std::string types = integer ? ".s32.s8.s8.s32" : std::string(c.atype) == "f16" ? ".f32.f32"
                                                                                 : std::string(".f32.") + c.atype + "." + c.atype + ".f32";
  std::string body = "ld.param.u64 %rd1, [a];\nld.param.u64 %rd2, [b];\nld.param.u64 %rd3, [c];\nld.param.u64 %rd4, [d];\n";
  body += "wmma.load.a.sync.aligned" + al + shape + ".global." + c.atype + " " + reg_list(1, c.na) + ", [%rd1], " +
          std::to_string(lda) + ";\n";
  body += "wmma.load.b.sync.aligned" + bl + shape + ".global." + c.atype + " " + reg_list(20, c.nb) + ", [%rd2], " +
          std::to_string(ldb) + ";\n";
  body += "wmma.load.c.sync.aligned.row" + shape + ".global." + acc + " " + reg_list(40, c.nacc) + ", [%rd3], " +
          std::to_string(ldc) + ";\n";
  body += "wmma.mma.sync.aligned" + al + bl + shape + types + " " + reg_list(50, c.nacc) + ", " + reg_list(1, c.na) +
          ", " + reg_list(20, c.nb) + ", " + reg_list(40, c.nacc) + ";\n";
  body += "wmma.store.d.sync.aligned" + dl + shape + ".global." + acc + " [%rd4], " + reg_list(50, c.nacc) + ", " +
          std::to_string(ldd) + ";\n";
  Harness h;
  h.load(kernel_ptx("k", ".param .u64 a, .param .u64 b, .param .u64 c, .param .u64 d", body));
  Addr da = h.buffer(A), db = h.buffer(B), dcm = h.buffer(C);
  Addr dd = h.buffer(std::vector<uint32_t>(size_t(ldd) * 32, 0xffffffffu));
  LaunchResult r = h.launch("k", Dim3{1, 1, 1}, Dim3{32, 1, 1}, da, db, dcm, dd);
  ASSERT_TRUE(r.ok) << r.error;
  auto D = h.read<uint32_t>(dd, size_t(ldd) * 32);
  for (int i = 0; i < c.m; ++i)
    for (int j = 0; j < c.n; ++j) {
      double ref = cm(i, j);
      for (int k = 0; k < c.k; ++k) ref += a(i, k) * b(k, j);
      uint32_t got = D[c.d_col ? size_t(j) * ldd + i : size_t(i) * ldd + j];
      if (integer) EXPECT_EQ(int32_t(got), int64_t(ref)) << shape << " (" << i << ", " << j << ")";
      else EXPECT_EQ(bits_f32(got), float(ref)) << shape << al << bl << dl << " (" << i << ", " << j << ")";
    }
  // The padding between rows (columns) of D is left alone.
  size_t pad = c.d_col ? size_t(0) * ldd + c.m : size_t(0) * ldd + c.n;
  EXPECT_EQ(D[pad], 0xffffffffu);
}

TEST(EmuTensor, WmmaIdentityTimesRampGivesRamp) {
  auto eye = [](int i, int k) { return i == k ? 1.0 : 0.0; };
  auto ramp = [](int k, int j) { return double(k * 16 + j); };
  auto zero = [](int, int) { return 0.0; };
  run_wmma({"f16", 16, 16, 16, false, true, false, 8, 8, 8}, eye, ramp, zero);
}

TEST(EmuTensor, WmmaEveryLayoutMatchesHostReference) {
  double A[32][32], B[32][32], C[32][32];
  fill_abc(A, B, C, 5);
  auto a = [&](int i, int k) { return A[i][k]; };
  auto b = [&](int k, int j) { return B[k][j]; };
  auto cm = [&](int i, int j) { return C[i][j]; };
  for (int mask = 0; mask < 8; ++mask)
    run_wmma({"f16", 16, 16, 16, bool(mask & 1), bool(mask & 2), bool(mask & 4), 8, 8, 8}, a, b, cm);
  run_wmma({"f16", 32, 8, 16, false, true, false, 8, 8, 8}, a, b, cm);
  run_wmma({"f16", 8, 32, 16, true, false, true, 8, 8, 8}, a, b, cm);
  run_wmma({"bf16", 16, 16, 16, false, true, false, 4, 4, 8}, a, b, cm);
  run_wmma({"tf32", 16, 16, 8, false, true, true, 4, 4, 8}, a, b, cm);
}

TEST(EmuTensor, WmmaS8MatchesHostReference) {
  std::mt19937 rng(9);
  int A[16][16], B[16][16];
  for (auto& r : A) for (int& v : r) v = int(rng() % 256) - 128;
  for (auto& r : B) for (int& v : r) v = int(rng() % 256) - 128;
  run_wmma({"s8", 16, 16, 16, false, true, false, 2, 2, 8}, [&](int i, int k) { return double(A[i][k]); },
           [&](int k, int j) { return double(B[k][j]); }, [](int i, int j) { return double(i - j); });
}

// --- ldmatrix / stmatrix ---

// Four 8x8 b16 matrices in shared memory, element (q, r, c) = q*64 + r*8 + c.
// Lane 8q + r gives row r of matrix q; lane l receives (row l/4, columns
// 2(l%4), +1) of each matrix, transposed with .trans.
// Lane l's 16-byte row of `smem` (l * 16) in %r2; `out` in %rd1.
const std::string kRowAddress = R"(
    ld.param.u64 %rd1, [out];
    mov.u32 %r0, %tid.x;
    mov.u32 %r30, smem;
    shl.b32 %r1, %r0, 4;
    add.u32 %r2, %r30, %r1;
)";

std::vector<uint32_t> run_ldmatrix(const std::string& form, int nregs) {
  std::string body = kRowAddress + R"(
    shl.b32 %r3, %r0, 3;
    add.u32 %r4, %r3, 1;  add.u32 %r5, %r3, 2;  add.u32 %r6, %r3, 3;
    add.u32 %r7, %r3, 4;  add.u32 %r8, %r3, 5;  add.u32 %r9, %r3, 6;  add.u32 %r10, %r3, 7;
    cvt.u16.u32 %rs1, %r3; cvt.u16.u32 %rs2, %r4; cvt.u16.u32 %rs3, %r5; cvt.u16.u32 %rs4, %r6;
    cvt.u16.u32 %rs5, %r7; cvt.u16.u32 %rs6, %r8; cvt.u16.u32 %rs7, %r9; cvt.u16.u32 %rs8, %r10;
    st.shared.v4.u16 [%r2], {%rs1, %rs2, %rs3, %rs4};
    st.shared.v4.u16 [%r2+8], {%rs5, %rs6, %rs7, %rs8};
    bar.sync 0;
)";
  body += form + " " + reg_list(40, nregs) + ", [%r2];\n";
  body += "mul.wide.u32 %rd2, %r0, 16;\nadd.s64 %rd3, %rd1, %rd2;\n";
  for (int i = 0; i < nregs; ++i)
    body += "st.global.b32 [%rd3+" + std::to_string(4 * i) + "], %r" + std::to_string(40 + i) + ";\n";
  Harness h;
  h.load(kernel_ptx("k", ".param .u64 out", body, ".shared .align 16 .b8 smem[512];"));
  Addr o = h.buffer(std::vector<uint32_t>(32 * 4, 0));
  LaunchResult r = h.launch("k", Dim3{1, 1, 1}, Dim3{32, 1, 1}, o);
  EXPECT_TRUE(r.ok) << r.error;
  return h.read<uint32_t>(o, 32 * 4);
}

TEST(EmuTensor, LdmatrixX4AndTrans) {
  auto plain = run_ldmatrix("ldmatrix.sync.aligned.m8n8.x4.shared.b16", 4);
  auto trans = run_ldmatrix("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16", 4);
  for (unsigned l = 0; l < 32; ++l)
    for (unsigned q = 0; q < 4; ++q) {
      unsigned r = l / 4, c = 2 * (l % 4);
      uint32_t want = (q * 64 + r * 8 + c) | (q * 64 + r * 8 + c + 1) << 16;
      EXPECT_EQ(plain[l * 4 + q], want) << "lane " << l << " matrix " << q;
      uint32_t want_t = (q * 64 + c * 8 + r) | (q * 64 + (c + 1) * 8 + r) << 16;
      EXPECT_EQ(trans[l * 4 + q], want_t) << "lane " << l << " matrix " << q << " .trans";
    }
}

TEST(EmuTensor, LdmatrixX1UsesLanes0To7Addresses) {
  auto one = run_ldmatrix("ldmatrix.sync.aligned.m8n8.x1.shared.b16", 1);
  for (unsigned l = 0; l < 32; ++l) {
    unsigned r = l / 4, c = 2 * (l % 4);
    EXPECT_EQ(one[l * 4], (r * 8 + c) | (r * 8 + c + 1) << 16) << "lane " << l;
  }
}

// stmatrix then ldmatrix, each .trans, returns the registers unchanged.
TEST(EmuTensor, StmatrixRoundTrip) {
  std::string body = kRowAddress + R"(
    mad.lo.u32 %r10, %r0, 4, 0x10000;
    add.u32 %r11, %r10, 1;
    stmatrix.sync.aligned.m8n8.x2.trans.shared.b16 [%r2], {%r10, %r11};
    bar.sync 0;
    ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%r20, %r21}, [%r2];
    mul.wide.u32 %rd2, %r0, 8;
    add.s64 %rd3, %rd1, %rd2;
    st.global.v2.b32 [%rd3], {%r20, %r21};
  )";
  Harness h;
  h.load(kernel_ptx("k", ".param .u64 out", body, ".shared .align 16 .b8 smem[512];"));
  Addr o = h.buffer(std::vector<uint32_t>(64, 0));
  LaunchResult r = h.launch("k", Dim3{1, 1, 1}, Dim3{32, 1, 1}, o);
  ASSERT_TRUE(r.ok) << r.error;
  auto v = h.read<uint32_t>(o, 64);
  for (unsigned l = 0; l < 32; ++l) {
    EXPECT_EQ(v[2 * l], 4 * l + 0x10000) << l;
    EXPECT_EQ(v[2 * l + 1], 4 * l + 0x10001) << l;
  }
}

// Forms outside the supported set fail at decode, naming the instruction.
TEST(EmuTensor, UnsupportedFormsNameTheInstruction) {
  auto decode_error = [](const std::string& inst) {
    Harness h;
    h.load(kernel_ptx("k", "", inst + ";\nret;"));
    LaunchResult r;
    try {
      r = h.launch("k", Dim3{1, 1, 1}, Dim3{32, 1, 1});
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return r.ok ? std::string("accepted") : r.error;
  };
  std::string e = decode_error("mma.sync.aligned.m8n8k16.row.col.s32.s8.s8.s32 {%r1,%r2}, {%r3}, {%r4}, {%r5,%r6}");
  EXPECT_NE(e.find("unsupported mma.sync shape .m8n8k16"), std::string::npos) << e;
  EXPECT_NE(e.find("mma.sync.aligned.m8n8k16"), std::string::npos) << e;
  e = decode_error("mma.sync.aligned.m16n8k8.col.col.f32.f16.f16.f32 {%f1,%f2,%f3,%f4}, {%r1,%r2}, {%r3}, "
                   "{%f5,%f6,%f7,%f8}");
  EXPECT_NE(e.find("supports the .row.col layouts only"), std::string::npos) << e;
  e = decode_error("ldmatrix.sync.aligned.m8n8.x3.shared.b16 {%r1,%r2,%r3}, [%r4]");
  EXPECT_NE(e.find("x1, .x2 or .x4"), std::string::npos) << e;
  e = decode_error("wmma.load.a.sync.aligned.row.m16n16k8.global.f16 {%r1,%r2,%r3,%r4,%r5,%r6,%r7,%r8}, [%rd1], 16");
  EXPECT_NE(e.find("unsupported wmma shape .m16n16k8"), std::string::npos) << e;
}

// The work a SASS tensor name carries, in units of 64 f16-rate multiply-adds.
TEST(TensorWork, FromSassNames) {
  EXPECT_EQ(frontend::tensor_work_of("HMMA.884.F32.F32.STEP0"), 4);   // 8*8*4 = 256
  // warpsim's name for Volta's f16 mma.m8n8k4: four 8x8x4 products per warp.
  EXPECT_EQ(frontend::tensor_work_of("HMMA.884.F32.F16.F16.F32.QUADPAIR"), 16);
  EXPECT_EQ(frontend::tensor_work_of("HMMA.16816.F32"), 32);          // 2048
  EXPECT_EQ(frontend::tensor_work_of("HMMA.161616.F32.F16"), 64);     // wmma m16n16k16: 4096
  EXPECT_EQ(frontend::tensor_work_of("HMMA.1688.F32.TF32"), 32);      // 1024 at half rate
  EXPECT_EQ(frontend::tensor_work_of("IMMA.16832.S8.S8"), 32);        // 4096 at twice the rate
  EXPECT_EQ(frontend::tensor_work_of("HMMA"), 0);                     // no shape: the unit's ii
  EXPECT_EQ(frontend::tensor_work_of("FFMA.161616"), 0);              // not a tensor opcode
  unsigned m, n, k;
  ASSERT_TRUE(frontend::parse_mma_shape("83216", m, n, k));
  EXPECT_EQ(m * 10000 + n * 100 + k, 83216u);
  EXPECT_FALSE(frontend::parse_mma_shape("1234", m, n, k));
}

}  // namespace
}  // namespace ws::exec::test
