// Real nvcc output (tests/data/ptx, compute_80) run end to end, checked
// against the same computation done on the host.
#include <cmath>

#include "exec/emu_test_util.h"
#include "exec/half.h"

namespace ws::exec::test {
namespace {

TEST(EmuFixture, CallsWithParamsReturnValuesAndLoops) {
  Harness h;
  h.load(read_fixture("calls.ptx"), "calls.ptx");
  const int n = 100;
  std::vector<float> a(n), b(n);
  for (int i = 0; i < n; ++i) a[i] = float(i), b[i] = float(100 - i);
  Addr da = h.buffer(a), db = h.buffer(b), out = h.buffer(std::vector<float>(n)), steps = h.buffer(std::vector<int>(2 * n));
  LaunchResult r = h.launch("_Z11call_kernelPKfS0_PfPii", Dim3{2, 1, 1}, Dim3{64, 1, 1}, da, db, out, steps, n);
  ASSERT_TRUE(r.ok) << r.error;
  auto o = h.read<float>(out, n);
  auto s = h.read<int>(steps, 2 * n);
  for (int i = 0; i < n; ++i) {
    EXPECT_FLOAT_EQ(o[i], a[i] + (b[i] - a[i]) * 0.25f) << i;
    int v = i + 1, k = 0;
    while (v != 1 && k < 1000) v = (v & 1) ? 3 * v + 1 : v / 2, ++k;
    EXPECT_EQ(s[2 * i], k) << i;
    EXPECT_EQ(s[2 * i + 1], i);
  }
}

TEST(EmuFixture, SharedReductionWithConstantsAndFloatAtomics) {
  Harness h;
  h.load(read_fixture("memory.ptx"), "memory.ptx");
  const int n = 1000;
  std::vector<float> in(n);
  double expect = 0;
  for (int i = 0; i < n; ++i) in[i] = float(i % 7), expect += in[i] * (i & 1 ? 0.5 : 1.0);
  Addr din = h.buffer(in), out = h.buffer(std::vector<float>(1, 0.0f));
  LaunchResult r = h.launch("_Z13reduce_sharedPKfPfi", Dim3{4, 1, 1}, Dim3{256, 1, 1}, din, out, n);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_FLOAT_EQ(h.read<float>(out, 1)[0], float(expect));
}

TEST(EmuFixture, DynamicSharedGlobalsWithInitialisersAndIntegerAtomics) {
  Harness h;
  h.load(read_fixture("memory.ptx"), "memory.ptx");
  const int n = 40, threads = 64;
  h.dynamic_shmem = threads * 4;
  Addr out = h.buffer(std::vector<int>(n + 3, 0));
  LaunchResult r = h.launch("_Z14dynamic_sharedPii", Dim3{1, 1, 1}, Dim3{threads, 1, 1}, out, n);
  ASSERT_TRUE(r.ok) << r.error;
  auto o = h.read<int>(out, n + 3);
  const int lookup[5] = {1, 2, 3, 500, -7};
  const double weights[3] = {0.25, 1.5, -2.0};
  for (int t = 0; t < n; ++t) {
    int u = (t + 1) % threads;
    EXPECT_EQ(o[t], int(float(lookup[u % 5]) * float(weights[u % 3]))) << t;
  }
  EXPECT_EQ(o[n], n - 1);             // atomicMax
  EXPECT_EQ(o[n + 1], 1);             // atomicCAS(0 -> t): lane 0 writes 0, lane 1 then succeeds
  EXPECT_EQ(o[n + 2], n - 1);         // atomicExch: lanes apply in order
  int counter = 0;
  auto sym = h.program.symbol("counter");
  ASSERT_TRUE(sym);
  h.mem.read(sym->first, &counter, 4);
  EXPECT_EQ(counter, 42 + n);         // through the initialised pointer counter_ptr
}

TEST(EmuFixture, WarpShufflesVotesAndInlineAsm) {
  Harness h;
  h.load(read_fixture("warp.ptx"), "warp.ptx");
  std::vector<int> in(64);
  for (int i = 0; i < 64; ++i) in[i] = i % 5;
  Addr din = h.buffer(in), out = h.buffer(std::vector<int>(2)), clocks = h.buffer(std::vector<int64_t>(2));
  LaunchResult r = h.launch("_Z8warp_opsPKiPiPx", Dim3{2, 1, 1}, Dim3{32, 1, 1}, din, out, clocks);
  ASSERT_TRUE(r.ok) << r.error;
  auto o = h.read<int>(out, 2);
  auto c = h.read<int64_t>(clocks, 2);
  for (int blk = 0; blk < 2; ++blk) {
    // Host model of the warp: down-shuffle tree (clamped at lane 31), bfly, up, idx 0.
    int v[32], x[32], y[32], z[32];
    for (int l = 0; l < 32; ++l) v[l] = in[blk * 32 + l];
    for (int off = 16; off > 0; off /= 2) {
      int nv[32];
      for (int l = 0; l < 32; ++l) nv[l] = v[l] + (l + off < 32 ? v[l + off] : v[l]);
      std::copy(nv, nv + 32, v);
    }
    for (int l = 0; l < 32; ++l) x[l] = v[l ^ 1];
    for (int l = 0; l < 32; ++l) y[l] = l >= 2 ? x[l - 2] : x[l];
    for (int l = 0; l < 32; ++l) z[l] = y[0];
    unsigned ballot = 0;
    bool all = true, any = false;
    for (int l = 0; l < 32; ++l) ballot |= unsigned(z[l] > 0) << l, all = all && z[l] != 3, any = any || z[l] == 5;
    int expect = v[0] + int(0 + ballot) + all + any + __builtin_popcount(ballot);
    EXPECT_EQ(o[blk], expect) << blk;
    EXPECT_GT(c[blk], 0);
  }
}

TEST(EmuFixture, DoubleAndHalfPrecision) {
  Harness h;
  h.load(read_fixture("precision.ptx"), "precision.ptx");
  const int n = 50;
  std::vector<double> x(n), y(n);
  for (int i = 0; i < n; ++i) x[i] = i * 0.75, y[i] = 1.0 / (i + 1);
  Addr dx = h.buffer(x), dy = h.buffer(y);
  LaunchResult r = h.launch("_Z12saxpy_doubledPKdPdi", Dim3{1, 1, 1}, Dim3{64, 1, 1}, 3.0, dx, dy, n);
  ASSERT_TRUE(r.ok) << r.error;
  auto yo = h.read<double>(dy, n);
  for (int i = 0; i < n; ++i) EXPECT_DOUBLE_EQ(yo[i], std::fma(3.0, x[i], y[i]) + std::sqrt(x[i]) + 1.5) << i;

  using emu::f16_to_f32;
  using emu::f64_to_f16;
  std::vector<uint16_t> a(n), b(n);
  for (int i = 0; i < n; ++i) a[i] = f64_to_f16(i * 0.5, emu::Rounding::Rn), b[i] = f64_to_f16(-i * 0.25, emu::Rounding::Rn);
  Addr da = h.buffer(a), db = h.buffer(b), dc = h.buffer(std::vector<uint16_t>(n)), dc2 = h.buffer(std::vector<uint32_t>(n));
  r = h.launch("_Z8half_opsPK6__halfS1_PS_P7__half2i", Dim3{1, 1, 1}, Dim3{64, 1, 1}, da, db, dc, dc2, n);
  ASSERT_TRUE(r.ok) << r.error;
  auto c = h.read<uint16_t>(dc, n);
  auto c2 = h.read<uint32_t>(dc2, n);
  for (int i = 0; i < n; ++i) {
    double av = f16_to_f32(a[i]), bv = f16_to_f32(b[i]);
    uint16_t prod = f64_to_f16(bv * 0.5, emu::Rounding::Rn);
    EXPECT_EQ(c[i], f64_to_f16(av + f16_to_f32(prod), emu::Rounding::Rn)) << i;
    uint32_t lo = f64_to_f16(av * av + 1.0, emu::Rounding::Rn), hi = f64_to_f16(bv * bv + 1.0, emu::Rounding::Rn);
    EXPECT_EQ(c2[i], lo | hi << 16) << i;
  }
}

TEST(EmuFixture, KernelParameterLayoutsAndGrids) {
  Harness h;
  h.load(read_fixture("params.ptx"), "params.ptx");
  struct Particle {
    float pos[3];
    double mass;
    int id;
  } p{{1.5f, 2.5f, 3.0f}, 10.25, 7};
  Addr out = h.buffer(std::vector<int>(2));
  LaunchResult r = h.launch("_Z11many_paramscsixfdhPi8Particleb", Dim3{1, 1, 1}, Dim3{1, 1, 1}, int8_t(-3),
                            int16_t(300), int32_t(-70000), int64_t(1) << 33 | 5, 2.75f, -1.5, uint8_t(200), out, p, true);
  ASSERT_TRUE(r.ok) << r.error;
  auto o = h.read<int>(out, 2);
  EXPECT_EQ(o[0], -3 + 300 - 70000 + 5 + 2 + -1 + 200);
  EXPECT_EQ(o[1], 7 + int(1.5f + 2.5f + 3.0f + 10.25));

  const int nx = 9, ny = 5, nz = 3;
  std::vector<float> data(nx * ny * nz);
  for (size_t i = 0; i < data.size(); ++i) data[i] = float(i);
  Addr dd = h.buffer(data);
  r = h.launch("_Z6grid3dPfiii", Dim3{2, 2, 2}, Dim3{8, 4, 2}, dd, nx, ny, nz);
  ASSERT_TRUE(r.ok) << r.error;
  auto d = h.read<float>(dd, data.size());
  for (size_t i = 0; i < data.size(); ++i) EXPECT_EQ(d[i], 2.0f * float(i)) << i;

  const int w = 37, ht = 21;
  std::vector<int> in(w * ht);
  for (int i = 0; i < w * ht; ++i) in[i] = i * 3;
  Addr din = h.buffer(in), dout = h.buffer(std::vector<int>(w * ht));
  r = h.launch("_Z6grid2dPKiPiii", Dim3{3, 2, 1}, Dim3{16, 16, 1}, din, dout, w, ht);
  ASSERT_TRUE(r.ok) << r.error;
  auto t = h.read<int>(dout, w * ht);
  for (int row = 0; row < ht; ++row)
    for (int col = 0; col < w; ++col) ASSERT_EQ(t[col * ht + row], in[row * w + col]);
}

TEST(EmuFixture, IndirectCallsRecursionAndPrintf) {
  Harness h;
  std::string printed;
  h.emu.set_print_sink([&](std::string_view s) { printed += s; });
  h.load(read_fixture("indirect.ptx"), "indirect.ptx");
  std::vector<int> a(33);
  for (int i = 0; i < 33; ++i) a[i] = (i * 7) % 11;
  Addr da = h.buffer(a), dout = h.buffer(std::vector<int>(32, 0));
  auto fib = [](int n) {
    int x = 0, y = 1;
    for (int i = 0; i < n; ++i) std::swap(x, y), y += x;
    return x;
  };
  for (int which : {0, 1}) {
    LaunchResult r = h.launch("_Z5applyPKiPii", Dim3{2, 1, 1}, Dim3{32, 1, 1}, da, dout, which);
    ASSERT_TRUE(r.ok) << r.error;
    auto out = h.read<int>(dout, 32);
    for (int t = 0; t < 32; ++t) {
      int f = which ? std::max(a[t], a[t + 1]) : a[t] + a[t + 1];
      EXPECT_EQ(out[t], f + fib(t & 7)) << which << " " << t;
    }
  }
  int first0 = a[0] + a[1], first1 = std::max(a[0], a[1]);
  EXPECT_EQ(printed, "block 0 done, first=" + std::to_string(first0) + "\nblock 1 done, first=" +
                         std::to_string(first0) + "\nblock 0 done, first=" + std::to_string(first1) +
                         "\nblock 1 done, first=" + std::to_string(first1) + "\n");
}

}  // namespace
}  // namespace ws::exec::test
