// Floating-point results against the PTX ISA's rounding rules and error
// bounds (issue 16 part 6): directed rounding of div/sqrt/fma, the single
// rounding of fma, .approx special cases and ranges, .ftz on inputs and
// results, and integer-to-float conversion without double rounding. Each
// expected value is worked out in the comment beside it.
#include <cmath>
#include <cstring>

#include "exec/emu_test_util.h"

namespace ws::exec::test {
namespace {

std::vector<uint32_t> run_f32(const std::string& body, size_t n) {
  Harness h;
  h.load(kernel_ptx("k", ".param .u64 out", "ld.param.u64 %rd0, [out];\n" + body));
  Addr out = h.buffer(std::vector<uint32_t>(n, 0xdeadbeefu));
  LaunchResult r = h.launch("k", Dim3{1, 1, 1}, Dim3{1, 1, 1}, out);
  EXPECT_TRUE(r.ok) << r.error;
  return h.read<uint32_t>(out, n);
}

float bits_to_f(uint32_t b) {
  float f;
  std::memcpy(&f, &b, 4);
  return f;
}

// 1/3 = 0.3333333333...: 0x3eaaaaab (0.33333334) is above it by 9.9e-9,
// 0x3eaaaaaa (0.33333331) below by 2.0e-8. sqrt(2) = 1.41421356237...:
// 0x3fb504f3 (1.41421354) is below by 2.4e-8, 0x3fb504f4 above by 9.5e-8.
TEST(EmuRounding, DirectedRoundingOfDivAndSqrt) {
  auto v = run_f32(R"(
    div.rn.f32 %f1, 0f3F800000, 0f40400000;  st.global.b32 [%rd0], %f1;
    div.rz.f32 %f1, 0f3F800000, 0f40400000;  st.global.b32 [%rd0+4], %f1;
    div.rm.f32 %f1, 0f3F800000, 0f40400000;  st.global.b32 [%rd0+8], %f1;
    div.rp.f32 %f1, 0f3F800000, 0f40400000;  st.global.b32 [%rd0+12], %f1;
    div.rz.f32 %f1, 0fBF800000, 0f40400000;  st.global.b32 [%rd0+16], %f1;
    div.rm.f32 %f1, 0fBF800000, 0f40400000;  st.global.b32 [%rd0+20], %f1;
    sqrt.rn.f32 %f1, 0f40000000;             st.global.b32 [%rd0+24], %f1;
    sqrt.rz.f32 %f1, 0f40000000;             st.global.b32 [%rd0+28], %f1;
    sqrt.rm.f32 %f1, 0f40000000;             st.global.b32 [%rd0+32], %f1;
    sqrt.rp.f32 %f1, 0f40000000;             st.global.b32 [%rd0+36], %f1;
    sqrt.rn.f32 %f1, 0f80000000;             st.global.b32 [%rd0+40], %f1;
    sqrt.rn.f32 %f1, 0fBF800000;             st.global.b32 [%rd0+44], %f1;
  )", 12);
  EXPECT_EQ(v[0], 0x3eaaaaabu);
  EXPECT_EQ(v[1], 0x3eaaaaaau);
  EXPECT_EQ(v[2], 0x3eaaaaaau);
  EXPECT_EQ(v[3], 0x3eaaaaabu);
  EXPECT_EQ(v[4], 0xbeaaaaaau);  // toward zero: the smaller magnitude
  EXPECT_EQ(v[5], 0xbeaaaaabu);  // toward -inf: the larger magnitude
  EXPECT_EQ(v[6], 0x3fb504f3u);
  EXPECT_EQ(v[7], 0x3fb504f3u);
  EXPECT_EQ(v[8], 0x3fb504f3u);
  EXPECT_EQ(v[9], 0x3fb504f4u);
  EXPECT_EQ(v[10], 0x80000000u);  // sqrt(-0) = -0 (IEEE 754)
  EXPECT_TRUE(std::isnan(bits_to_f(v[11])));
}

// a = b = 1 + 2^-12, c = -(1 + 2^-11): a*b = 1 + 2^-11 + 2^-24 exactly.
// fma rounds once: 2^-24. mul rounds a*b first: 2^-24 is half an ulp of 1,
// a tie that goes to the even 1 + 2^-11, and the add then gives 0.
TEST(EmuRounding, FmaRoundsOnce) {
  auto v = run_f32(R"(
    fma.rn.f32 %f1, 0f3F800800, 0f3F800800, 0fBF801000;  st.global.b32 [%rd0], %f1;
    mad.rn.f32 %f1, 0f3F800800, 0f3F800800, 0fBF801000;  st.global.b32 [%rd0+4], %f1;
    mul.rn.f32 %f2, 0f3F800800, 0f3F800800;
    add.rn.f32 %f1, %f2, 0fBF801000;                     st.global.b32 [%rd0+8], %f1;
  )", 3);
  EXPECT_EQ(v[0], 0x33800000u);  // 2^-24
  EXPECT_EQ(v[1], 0x33800000u);  // mad.f32 is fma (sm_20 and later)
  EXPECT_EQ(v[2], 0u);
}

// div.approx.f32 is a * (1/b) with an approximate reciprocal: at most 2 ulp
// off for |b| in [2^-126, 2^126]; for 2^126 < |b| < 2^128 the PTX ISA says
// the result is 0 (NaN when a is infinite). div.full and div.rn cover the
// full range.
TEST(EmuRounding, DivApproxRange) {
  auto v = run_f32(R"(
    div.approx.f32 %f1, 0f3F800000, 0f40400000;  st.global.b32 [%rd0], %f1;
    div.approx.f32 %f1, 0f3F800000, 0f7F000000;  st.global.b32 [%rd0+4], %f1;
    div.approx.f32 %f1, 0fC0400000, 0f7F000000;  st.global.b32 [%rd0+8], %f1;
    div.approx.f32 %f1, 0f7F800000, 0f7F000000;  st.global.b32 [%rd0+12], %f1;
    div.approx.f32 %f1, 0f3F800000, 0fFF800000;  st.global.b32 [%rd0+16], %f1;
    div.approx.f32 %f1, 0f40000000, 0f40800000;  st.global.b32 [%rd0+20], %f1;
    div.full.f32 %f1, 0f3F800000, 0f7F000000;    st.global.b32 [%rd0+24], %f1;
    div.rn.f32 %f1, 0f3F800000, 0f7F000000;      st.global.b32 [%rd0+28], %f1;
    div.approx.ftz.f32 %f1, 0f3F800000, 0f7E800000;  st.global.b32 [%rd0+32], %f1;
  )", 9);
  EXPECT_LE(std::abs(int64_t(v[0]) - 0x3eaaaaab), 2);  // 1/3 within 2 ulp
  EXPECT_EQ(v[1], 0u);           // 1 / 2^127: 0, not 2^-127
  EXPECT_EQ(v[2], 0x80000000u);  // -3 / 2^127: -0
  EXPECT_TRUE(std::isnan(bits_to_f(v[3])));
  EXPECT_EQ(v[4], 0x80000000u);  // 1 / -inf = -0
  EXPECT_EQ(v[5], 0x3f000000u);  // 2 / 4 = 0.5, exact
  EXPECT_EQ(v[6], 0x00400000u);  // 2^-127, a subnormal
  EXPECT_EQ(v[7], 0x00400000u);
  EXPECT_EQ(v[8], 0x00800000u);  // |b| = 2^126 is inside the range: 2^-126
}

// rsqrt.approx.f32: relative error at most 2^-22.9 (PTX ISA); rsqrt(+-0) =
// +-inf, rsqrt(+inf) = +0, negative inputs NaN.
TEST(EmuRounding, RsqrtApproxWithinBound) {
  const float xs[] = {3.0f, 0.7f, 1e-30f, 5e30f, 123.456f, 2.0f, 1.0f / 3.0f, 65537.0f};
  std::string body;
  for (size_t i = 0; i < std::size(xs); ++i) {
    uint32_t b;
    std::memcpy(&b, &xs[i], 4);
    char line[128];
    std::snprintf(line, sizeof line, "rsqrt.approx.f32 %%f1, 0f%08X; st.global.b32 [%%rd0+%zu], %%f1;\n", b, 4 * i);
    body += line;
  }
  body += R"(
    rsqrt.approx.f32 %f1, 0f00000000;  st.global.b32 [%rd0+32], %f1;
    rsqrt.approx.f32 %f1, 0f80000000;  st.global.b32 [%rd0+36], %f1;
    rsqrt.approx.f32 %f1, 0f7F800000;  st.global.b32 [%rd0+40], %f1;
    rsqrt.approx.f32 %f1, 0fBF800000;  st.global.b32 [%rd0+44], %f1;
  )";
  auto v = run_f32(body, 12);
  for (size_t i = 0; i < std::size(xs); ++i) {
    long double want = 1.0L / std::sqrt(static_cast<long double>(xs[i]));
    long double rel = std::fabs((bits_to_f(v[i]) - want) / want);
    EXPECT_LE(rel, std::exp2(-22.9L)) << xs[i];
  }
  EXPECT_EQ(v[8], 0x7f800000u);
  EXPECT_EQ(v[9], 0xff800000u);
  EXPECT_EQ(v[10], 0u);
  EXPECT_TRUE(std::isnan(bits_to_f(v[11])));
}

// .ftz flushes subnormal inputs and results to zero of the same sign;
// without it subnormals are kept (2^-130 = 0x00080000, 2^-127 = 0x00400000).
TEST(EmuRounding, ApproxSpecialValuesAndFtz) {
  auto v = run_f32(R"(
    ex2.approx.f32 %f1, 0fFF800000;        st.global.b32 [%rd0], %f1;
    ex2.approx.f32 %f1, 0f7F800000;        st.global.b32 [%rd0+4], %f1;
    ex2.approx.f32 %f1, 0fC3020000;        st.global.b32 [%rd0+8], %f1;
    ex2.approx.ftz.f32 %f1, 0fC3020000;    st.global.b32 [%rd0+12], %f1;
    lg2.approx.f32 %f1, 0f00000000;        st.global.b32 [%rd0+16], %f1;
    lg2.approx.f32 %f1, 0fBF800000;        st.global.b32 [%rd0+20], %f1;
    lg2.approx.f32 %f1, 0f00080000;        st.global.b32 [%rd0+24], %f1;
    lg2.approx.ftz.f32 %f1, 0f00080000;    st.global.b32 [%rd0+28], %f1;
    sin.approx.f32 %f1, 0f7F800000;        st.global.b32 [%rd0+32], %f1;
    sin.approx.f32 %f1, 0f80000000;        st.global.b32 [%rd0+36], %f1;
    cos.approx.f32 %f1, 0f00000000;        st.global.b32 [%rd0+40], %f1;
    rcp.rn.f32 %f1, 0f7F000000;            st.global.b32 [%rd0+44], %f1;
    rcp.rn.ftz.f32 %f1, 0f7F000000;        st.global.b32 [%rd0+48], %f1;
    rcp.approx.ftz.f32 %f1, 0f80080000;    st.global.b32 [%rd0+52], %f1;
    add.ftz.f32 %f1, 0f00080000, 0f00000000;  st.global.b32 [%rd0+56], %f1;
    add.f32 %f1, 0f00080000, 0f00000000;   st.global.b32 [%rd0+60], %f1;
  )", 16);
  EXPECT_EQ(v[0], 0u);           // 2^-inf = +0
  EXPECT_EQ(v[1], 0x7f800000u);
  EXPECT_EQ(v[2], 0x00080000u);  // 2^-130, subnormal, kept
  EXPECT_EQ(v[3], 0u);           // flushed
  EXPECT_EQ(v[4], 0xff800000u);  // log2(+0) = -inf
  EXPECT_TRUE(std::isnan(bits_to_f(v[5])));
  EXPECT_EQ(v[6], 0xc3020000u);  // log2(2^-130) = -130
  EXPECT_EQ(v[7], 0xff800000u);  // input flushed to +0
  EXPECT_TRUE(std::isnan(bits_to_f(v[8])));
  EXPECT_EQ(v[9], 0x80000000u);  // sin(-0) = -0
  EXPECT_EQ(v[10], 0x3f800000u);
  EXPECT_EQ(v[11], 0x00400000u);  // 1/2^127 = 2^-127
  EXPECT_EQ(v[12], 0u);           // ... flushed
  EXPECT_EQ(v[13], 0xff800000u);  // -2^-130 flushed to -0: -inf
  EXPECT_EQ(v[14], 0u);
  EXPECT_EQ(v[15], 0x00080000u);
}

// 2^60 + 2^36 + 1 lies just above the midpoint between the floats 2^60 and
// 2^60 + 2^37: cvt.rn must give 2^60 + 2^37 (0x5d800001). Going through a
// double first would drop the +1 and make a tie that rounds to the even 2^60.
TEST(EmuRounding, IntToFloatRoundsOnce) {
  auto v = run_f32(R"(
    mov.u64 %rd1, 1152921573326323713;
    cvt.rn.f32.s64 %f1, %rd1;   st.global.b32 [%rd0], %f1;
    cvt.rn.f32.u64 %f1, %rd1;   st.global.b32 [%rd0+4], %f1;
    cvt.rz.f32.s64 %f1, %rd1;   st.global.b32 [%rd0+8], %f1;
    neg.s64 %rd2, %rd1;
    cvt.rm.f32.s64 %f1, %rd2;   st.global.b32 [%rd0+12], %f1;
  )", 4);
  EXPECT_EQ(v[0], 0x5d800001u);
  EXPECT_EQ(v[1], 0x5d800001u);
  EXPECT_EQ(v[2], 0x5d800000u);
  EXPECT_EQ(v[3], 0xdd800001u);  // toward -inf: the larger magnitude
}

}  // namespace
}  // namespace ws::exec::test
