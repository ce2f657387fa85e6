// Instruction semantics on edge cases, each value reasoned from the PTX ISA.
#include <cmath>

#include "exec/emu_test_util.h"
#include "exec/half.h"

namespace ws::exec::test {
namespace {

// Runs `body` in one thread; the body stores results with `st.global.b64 [%rd0+8*k]`.
std::vector<uint64_t> run1(const std::string& body, size_t n = 16, uint32_t threads = 1) {
  Harness h;
  h.load(kernel_ptx("k", ".param .u64 out", "ld.param.u64 %rd0, [out];\n" + body));
  Addr out = h.buffer(std::vector<uint64_t>(n * threads, 0xdeadbeefdeadbeefull));
  LaunchResult r = h.launch("k", Dim3{1, 1, 1}, Dim3{threads, 1, 1}, out);
  EXPECT_TRUE(r.ok) << r.error;
  return h.read<uint64_t>(out, n * threads);
}

float u2f(uint64_t u) { uint32_t b = uint32_t(u); float f; std::memcpy(&f, &b, 4); return f; }
double u2d(uint64_t u) { double d; std::memcpy(&d, &u, 8); return d; }

TEST(EmuOps, IntegerEdgeCases) {
  auto v = run1(R"(
    mov.u32 %r1, 0x80000000;
    mov.u32 %r2, -1;
    mul.hi.s32 %r3, %r1, %r2;          st.global.b32 [%rd0], %r3;
    mul.hi.u32 %r3, %r2, %r2;          st.global.b32 [%rd0+8], %r3;
    mul.wide.s32 %rd1, %r2, 7;         st.global.b64 [%rd0+16], %rd1;
    mul.wide.u32 %rd1, %r2, 7;         st.global.b64 [%rd0+24], %rd1;
    shl.b32 %r3, %r2, 33;              st.global.b32 [%rd0+32], %r3;
    shr.s32 %r3, %r1, 40;              st.global.b32 [%rd0+40], %r3;
    shr.u32 %r3, %r1, 31;              st.global.b32 [%rd0+48], %r3;
    div.s32 %r3, %r1, %r2;             st.global.b32 [%rd0+56], %r3;
    div.u32 %r3, 5, 0;                 st.global.b32 [%rd0+64], %r3;
    rem.s32 %r3, -7, 3;                st.global.b32 [%rd0+72], %r3;
    add.sat.s32 %r3, 0x7fffffff, 5;    st.global.b32 [%rd0+80], %r3;
    bfe.s32 %r3, 0x0000f000, 12, 4;    st.global.b32 [%rd0+88], %r3;
    bfi.b32 %r3, 0xff, 0, 8, 4;        st.global.b32 [%rd0+96], %r3;
    prmt.b32 %r3, 0x11223344, 0x55667788, 0x0123; st.global.b32 [%rd0+104], %r3;
    bfind.u32 %r3, 0;                  st.global.b32 [%rd0+112], %r3;
    mad.hi.u64 %rd2, -1, -1, 5;        st.global.b64 [%rd0+120], %rd2;
  )");
  EXPECT_EQ(uint32_t(v[0]), 0u);                 // (-2^31 * -1) = 2^31: high word 0
  EXPECT_EQ(uint32_t(v[1]), 0xfffffffeu);        // (2^32-1)^2 >> 32
  EXPECT_EQ(v[2], uint64_t(-7));                 // signed widening
  EXPECT_EQ(v[3], 0xffffffffull * 7);            // unsigned widening
  EXPECT_EQ(uint32_t(v[4]), 0u);                 // shift beyond the width clamps
  EXPECT_EQ(uint32_t(v[5]), 0xffffffffu);        // arithmetic shift fills with the sign
  EXPECT_EQ(uint32_t(v[6]), 1u);
  EXPECT_EQ(uint32_t(v[7]), 0x80000000u);        // INT_MIN / -1 defined as INT_MIN
  EXPECT_EQ(uint32_t(v[8]), 0xffffffffu);        // x / 0 defined as all ones
  EXPECT_EQ(int32_t(v[9]), -1);                  // remainder takes the dividend's sign
  EXPECT_EQ(uint32_t(v[10]), 0x7fffffffu);
  EXPECT_EQ(uint32_t(v[11]), 0xffffffffu);       // 4-bit field 0xf sign-extended
  EXPECT_EQ(uint32_t(v[12]), 0xf00u);
  EXPECT_EQ(uint32_t(v[13]), 0x44332211u);       // selector nibbles 3,2,1,0 reverse the bytes of a
  EXPECT_EQ(uint32_t(v[14]), 0xffffffffu);
  EXPECT_EQ(v[15], uint64_t(0xfffffffffffffffeull + 5));
}

TEST(EmuOps, CarryChainAdds128Bits) {
  auto v = run1(R"(
    mov.u32 %r1, 0xffffffff;
    add.cc.u32 %r2, %r1, 1;
    addc.cc.u32 %r3, %r1, 0;
    addc.u32 %r4, 0, 0;
    st.global.b32 [%rd0], %r2; st.global.b32 [%rd0+8], %r3; st.global.b32 [%rd0+16], %r4;
    sub.cc.u32 %r5, 0, 1;
    subc.u32 %r6, 5, 0;
    st.global.b32 [%rd0+24], %r5; st.global.b32 [%rd0+32], %r6;
  )");
  EXPECT_EQ(uint32_t(v[0]), 0u);
  EXPECT_EQ(uint32_t(v[1]), 0u);
  EXPECT_EQ(uint32_t(v[2]), 1u);
  EXPECT_EQ(uint32_t(v[3]), 0xffffffffu);
  EXPECT_EQ(uint32_t(v[4]), 4u);  // the borrow propagates
}

// Byte and half-word dot products (__dp4a, __dp2a_lo/hi): signed bytes of
// 0xff are -1, unsigned 255.
TEST(EmuOps, DotProductsOfBytesAndHalves) {
  auto v = run1(R"(
    dp4a.s32.s32 %r1, 0x01ff0302, 0x0402ff05, 10;     st.global.b32 [%rd0], %r1;
    dp4a.u32.u32 %r1, 0x01ff0302, 0x0402ff05, 10;     st.global.b32 [%rd0+8], %r1;
    dp4a.s32.u32 %r1, 0x000000ff, 0x00000002, 0;      st.global.b32 [%rd0+16], %r1;
    dp2a.lo.s32.s32 %r1, 0xfffe0003, 0x0000ff04, 1;   st.global.b32 [%rd0+24], %r1;
    dp2a.hi.u32.u32 %r1, 0x00020003, 0x05060000, 1;   st.global.b32 [%rd0+32], %r1;
  )");
  // 10 + 2*5 + 3*(-1) + (-1)*2 + 1*4
  EXPECT_EQ(int32_t(v[0]), 19);
  // 10 + 2*5 + 3*255 + 255*2 + 1*4
  EXPECT_EQ(uint32_t(v[1]), 1299u);
  EXPECT_EQ(int32_t(v[2]), -2);  // a signed (-1), b unsigned (2)
  // 1 + 3*4 + (-2)*(-1): b's low byte pair, signed
  EXPECT_EQ(int32_t(v[3]), 15);
  // 1 + 3*6 + 2*5: b's high byte pair (bytes 2 and 3)
  EXPECT_EQ(uint32_t(v[4]), 29u);
}

// A 64 x 64 -> 128-bit product in 32-bit words, as libdevice's double
// trigonometric argument reduction writes it: mad.lo.cc starts the chain,
// madc.hi(.cc) carries it on.
TEST(EmuOps, MultiplyAddCarryChainsMultiplyWords) {
  auto v = run1(R"(
    mov.u32 %r1, 0xffffffff;
    mad.lo.cc.u32 %r2, %r1, %r1, %r1;
    madc.hi.cc.u32 %r3, %r1, %r1, 0;
    addc.u32 %r4, 0, 0;
    st.global.b32 [%rd0], %r2; st.global.b32 [%rd0+8], %r3; st.global.b32 [%rd0+16], %r4;
    mad.lo.cc.u32 %r5, 2, 3, 4;
    madc.lo.u32 %r6, 1, 1, 0xffffffff;
    st.global.b32 [%rd0+24], %r5; st.global.b32 [%rd0+32], %r6;
    mov.u64 %rd2, 0xffffffffffffffff;
    mad.hi.cc.u64 %rd3, %rd2, %rd2, 2;
    madc.lo.u64 %rd4, 0, 0, 0;
    st.global.b64 [%rd0+40], %rd3; st.global.b64 [%rd0+48], %rd4;
  )");
  // (2^32-1)^2 + (2^32-1) = 2^64 - 2^32: the low word (1 + 0xffffffff)
  // wraps to 0 and carries 1 into the high word (0xfffffffe), which then
  // carries nothing.
  EXPECT_EQ(uint32_t(v[0]), 0u);
  EXPECT_EQ(uint32_t(v[1]), 0xffffffffu);
  EXPECT_EQ(uint32_t(v[2]), 0u);
  EXPECT_EQ(uint32_t(v[3]), 10u);  // 2 * 3 + 4, no carry
  EXPECT_EQ(uint32_t(v[4]), 0u);   // 1 * 1 + 0xffffffff wraps (madc.lo without .cc)
  // (2^64-1)^2 >> 64 = 2^64 - 2; + 2 carries out: 0 and a carry of 1.
  EXPECT_EQ(v[5], 0u);
  EXPECT_EQ(v[6], 1u);
}

TEST(EmuOps, ConversionsRoundAndSaturate) {
  auto v = run1(R"(
    cvt.rni.s32.f32 %r1, 0f40200000;   st.global.b32 [%rd0], %r1;
    cvt.rni.s32.f32 %r1, 0f40600000;   st.global.b32 [%rd0+8], %r1;
    cvt.rmi.s32.f32 %r1, 0fBFC00000;   st.global.b32 [%rd0+16], %r1;
    cvt.rpi.s32.f32 %r1, 0f3FC00000;   st.global.b32 [%rd0+24], %r1;
    cvt.rzi.s32.f32 %r1, 0f7F800000;   st.global.b32 [%rd0+32], %r1;
    cvt.rzi.u32.f32 %r1, 0fC0000000;   st.global.b32 [%rd0+40], %r1;
    cvt.rzi.s32.f32 %r1, 0f7FC00000;   st.global.b32 [%rd0+48], %r1;
    cvt.sat.u8.s32 %r1, 300;           st.global.b32 [%rd0+56], %r1;
    cvt.s32.s8 %r1, 0xf0;              st.global.b32 [%rd0+64], %r1;
    cvt.u16.u32 %rs1, 0x12345;         cvt.u32.u16 %r1, %rs1; st.global.b32 [%rd0+72], %r1;
    cvt.rz.f32.f64 %f1, 0d3FF0000000000001; st.global.f32 [%rd0+80], %f1;
    cvt.rp.f32.f64 %f1, 0d3FF0000000000001; st.global.f32 [%rd0+88], %f1;
    cvt.rm.f32.s32 %f1, 16777217;      st.global.f32 [%rd0+96], %f1;
    cvt.rp.f32.s32 %f1, 16777217;      st.global.f32 [%rd0+104], %f1;
    cvt.sat.f32.f32 %f1, 0f40000000;   st.global.f32 [%rd0+112], %f1;
    cvt.rni.f32.f32 %f1, 0f40200000;   st.global.f32 [%rd0+120], %f1;
  )");
  EXPECT_EQ(int32_t(v[0]), 2);     // 2.5 -> even
  EXPECT_EQ(int32_t(v[1]), 4);     // 3.5 -> even
  EXPECT_EQ(int32_t(v[2]), -2);
  EXPECT_EQ(int32_t(v[3]), 2);
  EXPECT_EQ(int32_t(v[4]), INT32_MAX);  // float -> int saturates
  EXPECT_EQ(uint32_t(v[5]), 0u);
  EXPECT_EQ(uint32_t(v[6]), 0u);        // NaN -> 0
  EXPECT_EQ(uint32_t(v[7]), 255u);
  EXPECT_EQ(int32_t(v[8]), -16);        // sign extension from 8 bits
  EXPECT_EQ(uint32_t(v[9]), 0x2345u);
  EXPECT_EQ(u2f(v[10]), 1.0f);
  EXPECT_EQ(u2f(v[11]), std::nextafter(1.0f, 2.0f));
  EXPECT_EQ(u2f(v[12]), 16777216.0f);
  EXPECT_EQ(u2f(v[13]), 16777218.0f);
  EXPECT_EQ(u2f(v[14]), 1.0f);
  EXPECT_EQ(u2f(v[15]), 2.0f);
}

TEST(EmuOps, FloatRoundingModesAndSpecialCases) {
  auto v = run1(R"(
    add.rz.f32 %f1, 0f3F800000, 0f33800000;   st.global.f32 [%rd0], %f1;
    add.rp.f32 %f1, 0f3F800000, 0f33800000;   st.global.f32 [%rd0+8], %f1;
    add.rn.f32 %f1, 0f3F800000, 0f33800000;   st.global.f32 [%rd0+16], %f1;
    mul.rm.f32 %f1, 0fBF800001, 0f3F800001;   st.global.f32 [%rd0+24], %f1;
    min.f32 %f1, 0f7FC00000, 0f40000000;      st.global.f32 [%rd0+32], %f1;
    max.f32 %f1, 0f80000000, 0f00000000;      st.global.f32 [%rd0+40], %f1;
    add.sat.f32 %f1, 0f3F000000, 0f3F400000;  st.global.f32 [%rd0+48], %f1;
    mul.ftz.f32 %f1, 0f00800000, 0f3F000000;  st.global.f32 [%rd0+56], %f1;
    div.rn.f64 %fd1, 0d3FF0000000000000, 0d4008000000000000; st.global.f64 [%rd0+64], %fd1;
    copysign.f32 %f1, 0fBF800000, 0f40400000; st.global.f32 [%rd0+72], %f1;
    sqrt.rn.f32 %f1, 0fBF800000;              st.global.f32 [%rd0+80], %f1;
    fma.rn.f32 %f1, 0f3F800001, 0f3F800001, 0fBF800002; st.global.f32 [%rd0+88], %f1;
  )");
  EXPECT_EQ(u2f(v[0]), 1.0f);                              // 1 + 2^-24 truncated
  EXPECT_EQ(u2f(v[1]), std::nextafter(1.0f, 2.0f));        // rounded up
  EXPECT_EQ(u2f(v[2]), 1.0f);                              // tie to even
  EXPECT_EQ(u2f(v[3]), -(1.0f + 3 * std::ldexp(1.0f, -23)));  // -(1 + 2^-22 + 2^-46) toward -inf
  EXPECT_EQ(u2f(v[4]), 2.0f);                              // NaN operand ignored
  EXPECT_FALSE(std::signbit(u2f(v[5])));                   // max(-0, +0) = +0
  EXPECT_EQ(u2f(v[6]), 1.0f);
  EXPECT_EQ(u2f(v[7]), 0.0f);                              // subnormal result flushed
  EXPECT_EQ(u2d(v[8]), 1.0 / 3.0);
  EXPECT_EQ(u2f(v[9]), -3.0f);
  EXPECT_TRUE(std::isnan(u2f(v[10])));
  EXPECT_EQ(u2f(v[11]), std::ldexp(1.0f, -46));            // fused: the product is not rounded
}

TEST(EmuOps, SetpUnorderedAndPredicateCombining) {
  auto v = run1(R"(
    mov.f32 %f1, 0f7FC00000;
    setp.lt.f32 %p1, %f1, 0f3F800000;   selp.u32 %r1, 1, 0, %p1; st.global.b32 [%rd0], %r1;
    setp.ltu.f32 %p1, %f1, 0f3F800000;  selp.u32 %r1, 1, 0, %p1; st.global.b32 [%rd0+8], %r1;
    setp.ne.f32 %p1, %f1, %f1;          selp.u32 %r1, 1, 0, %p1; st.global.b32 [%rd0+16], %r1;
    setp.neu.f32 %p1, %f1, %f1;         selp.u32 %r1, 1, 0, %p1; st.global.b32 [%rd0+24], %r1;
    setp.nan.f32 %p1, %f1, 0f00000000;  selp.u32 %r1, 1, 0, %p1; st.global.b32 [%rd0+32], %r1;
    setp.lt.s32 %p2, -1, 1;             selp.u32 %r1, 1, 0, %p2; st.global.b32 [%rd0+40], %r1;
    setp.lo.u32 %p2, -1, 1;             selp.u32 %r1, 1, 0, %p2; st.global.b32 [%rd0+48], %r1;
    setp.gt.and.s32 %p3|%p4, 5, 3, %p2; selp.u32 %r1, 1, 0, %p3; selp.u32 %r2, 1, 0, %p4;
    st.global.b32 [%rd0+56], %r1; st.global.b32 [%rd0+64], %r2;
    setp.gt.or.s32 %p3|%p4, 5, 3, !%p2; selp.u32 %r1, 1, 0, %p4; st.global.b32 [%rd0+72], %r1;
    set.gt.u32.f32 %r1, 0f40000000, 0f3F800000; st.global.b32 [%rd0+80], %r1;
  )");
  EXPECT_EQ(v[0] & 0xffffffff, 0u);
  EXPECT_EQ(v[1] & 0xffffffff, 1u);
  EXPECT_EQ(v[2] & 0xffffffff, 0u);
  EXPECT_EQ(v[3] & 0xffffffff, 1u);
  EXPECT_EQ(v[4] & 0xffffffff, 1u);
  EXPECT_EQ(v[5] & 0xffffffff, 1u);
  EXPECT_EQ(v[6] & 0xffffffff, 0u);
  EXPECT_EQ(v[7] & 0xffffffff, 0u);  // true AND false
  EXPECT_EQ(v[8] & 0xffffffff, 0u);  // !true AND false
  EXPECT_EQ(v[9] & 0xffffffff, 1u);  // !true OR !false
  EXPECT_EQ(v[10] & 0xffffffff, 0xffffffffu);
}

TEST(EmuOps, HalfConversions) {
  using emu::Rounding;
  EXPECT_EQ(emu::f64_to_f16(65504.0, Rounding::Rn), 0x7bff);
  EXPECT_EQ(emu::f64_to_f16(65520.0, Rounding::Rn), 0x7c00);   // halfway past max rounds to inf
  EXPECT_EQ(emu::f64_to_f16(65520.0, Rounding::Rz), 0x7bff);
  EXPECT_EQ(emu::f64_to_f16(std::ldexp(1.0, -24), Rounding::Rn), 0x0001);  // smallest subnormal
  EXPECT_EQ(emu::f64_to_f16(std::ldexp(1.0, -25), Rounding::Rn), 0x0000);  // tie to even: 0
  EXPECT_EQ(emu::f64_to_f16(std::ldexp(3.0, -26), Rounding::Rn), 0x0001);
  EXPECT_EQ(emu::f64_to_f16(-2.0, Rounding::Rn), 0xc000);
  EXPECT_EQ(emu::f64_to_f16(NAN, Rounding::Rn), 0x7fff);
  EXPECT_EQ(emu::f16_to_f32(0x0001), std::ldexp(1.0f, -24));
  EXPECT_EQ(emu::f16_to_f32(0x7bff), 65504.0f);
  EXPECT_TRUE(std::isnan(emu::f16_to_f32(0x7e00)));
  EXPECT_EQ(emu::f64_to_bf16(1.00390625, Rounding::Rn), 0x3f80);  // 1 + 2^-8: tie to even
  EXPECT_EQ(emu::bf16_to_f32(0x3f81), 1.0078125f);

  auto v = run1(R"(
    cvt.rn.f16.f32 %rs1, 0f477FE000;  cvt.u32.u16 %r1, %rs1; st.global.b32 [%rd0], %r1;
    cvt.f32.f16 %f1, %rs1;            st.global.f32 [%rd0+8], %f1;
    mov.b16 %rs2, 0x3C00;
    add.f16 %rs3, %rs2, %rs2;         cvt.u32.u16 %r1, %rs3; st.global.b32 [%rd0+16], %r1;
    mov.b32 %r2, 0x40003C00;
    mul.f16x2 %r3, %r2, %r2;          st.global.b32 [%rd0+24], %r3;
    cvt.rn.f16x2.f32 %r4, 0f40400000, 0f3F800000; st.global.b32 [%rd0+32], %r4;
    neg.bf16x2 %r5, %r2;              st.global.b32 [%rd0+40], %r5;
  )");
  EXPECT_EQ(v[0] & 0xffff, 0x7bffu);  // 65504
  EXPECT_EQ(u2f(v[1]), 65504.0f);
  EXPECT_EQ(v[2] & 0xffff, 0x4000u);  // 1 + 1 = 2
  EXPECT_EQ(v[3] & 0xffffffff, 0x44003c00u);  // {1*1, 2*2}
  EXPECT_EQ(v[4] & 0xffffffff, 0x42003c00u);  // high <- 3.0, low <- 1.0
  EXPECT_EQ(v[5] & 0xffffffff, 0xc000bc00u);
}

// Per lane: down-shuffle by 3 with clamp 31, bfly 5, idx from lane (31 - l), and the
// valid predicate; a ballot and vote.any/all over lane parity.
TEST(EmuOps, ShufflesAndVotes) {
  auto v = run1(R"(
    mov.u32 %r1, %laneid;
    mul.lo.u32 %r2, %r1, 10;
    shfl.sync.down.b32 %r3|%p1, %r2, 3, 31, -1;
    shfl.sync.bfly.b32 %r4, %r2, 5, 31, -1;
    sub.u32 %r9, 31, %r1;
    shfl.sync.idx.b32 %r5, %r2, %r9, 31, -1;
    shfl.sync.up.b32 %r6|%p2, %r2, 1, 0, -1;
    and.b32 %r7, %r1, 1;
    setp.eq.u32 %p3, %r7, 1;
    vote.sync.ballot.b32 %r8, %p3, -1;
    vote.sync.any.pred %p4, %p3, -1;
    vote.sync.all.pred %p5, %p3, -1;
    selp.u32 %r10, 1, 0, %p1;
    selp.u32 %r11, 2, 0, %p4;
    selp.u32 %r12, 4, 0, %p5;
    selp.u32 %r13, 8, 0, %p2;
    or.b32 %r10, %r10, %r11; or.b32 %r10, %r10, %r12; or.b32 %r10, %r10, %r13;
    mul.wide.u32 %rd1, %r1, 48;
    add.s64 %rd2, %rd0, %rd1;
    st.global.v4.u32 [%rd2], {%r3, %r4, %r5, %r6};
    st.global.v2.u32 [%rd2+16], {%r8, %r10};
  )", 6, 32);
  for (uint32_t l = 0; l < 32; ++l) {
    const uint64_t* e = &v[l * 6];
    uint32_t w[12];
    std::memcpy(w, e, sizeof w);
    EXPECT_EQ(w[0], (l + 3 <= 31 ? l + 3 : l) * 10) << l;
    EXPECT_EQ(w[1], (l ^ 5) * 10) << l;
    EXPECT_EQ(w[2], (31 - l) * 10) << l;
    EXPECT_EQ(w[3], (l >= 1 ? l - 1 : l) * 10) << l;
    EXPECT_EQ(w[4], 0xaaaaaaaau);
    EXPECT_EQ(w[5], (l + 3 <= 31 ? 1u : 0u) | 2u | (l >= 1 ? 8u : 0u)) << l;
  }
}

// Lanes 0-15 name membermask 0x0000ffff and lanes 16-31 0xffff0000 in the same
// instruction (a thread_block_tile<16>): each half reduces, votes and matches
// over its own 16 lanes only. Values: lane l holds l + 1, so the halves sum to
// 136 and 392; the ballot's predicate (l % 16 < 8) holds in both halves' low 8
// lanes; any (l == 3) and all (l < 16) are true in the low half only;
// match.any on l / 4 groups four lanes, match.all on l / 16 agrees per half;
// elect picks lane 0 and lane 16.
TEST(EmuOps, WarpOpsHonourPerLaneMemberMasks) {
  auto v = run1(R"(
    mov.u32 %r1, %laneid;
    setp.lt.u32 %p9, %r1, 16;
    selp.u32 %r20, 0x0000ffff, 0xffff0000, %p9;
    add.u32 %r2, %r1, 1;
    redux.sync.add.u32 %r3, %r2, %r20;
    redux.sync.max.u32 %r4, %r2, %r20;
    and.b32 %r5, %r1, 15;
    setp.lt.u32 %p1, %r5, 8;
    vote.sync.ballot.b32 %r6, %p1, %r20;
    setp.eq.u32 %p6, %r1, 3;
    vote.sync.any.pred %p2, %p6, %r20;
    vote.sync.all.pred %p4, %p9, %r20;
    shr.u32 %r7, %r1, 2;
    match.any.sync.b32 %r8, %r7, %r20;
    shr.u32 %r9, %r1, 4;
    match.all.sync.b32 %r10|%p5, %r9, %r20;
    elect.sync %r14|%p7, %r20;
    selp.u32 %r15, 8, 0, %p7;
    or.b32 %r14, %r14, %r15;
    selp.u32 %r11, 1, 0, %p2;
    selp.u32 %r12, 2, 0, %p4;
    selp.u32 %r13, 4, 0, %p5;
    or.b32 %r11, %r11, %r12; or.b32 %r11, %r11, %r13;
    mul.wide.u32 %rd1, %r1, 48;
    add.s64 %rd2, %rd0, %rd1;
    st.global.v4.u32 [%rd2], {%r3, %r4, %r6, %r8};
    st.global.v2.u32 [%rd2+16], {%r10, %r11};
    st.global.u32 [%rd2+24], %r14;
  )", 6, 32);
  for (uint32_t l = 0; l < 32; ++l) {
    uint32_t w[12];
    std::memcpy(w, &v[l * 6], sizeof w);
    bool low = l < 16;
    uint32_t half = low ? 0x0000ffffu : 0xffff0000u;
    EXPECT_EQ(w[0], low ? 136u : 392u) << l;           // 1+...+16, 17+...+32
    EXPECT_EQ(w[1], low ? 16u : 32u) << l;
    EXPECT_EQ(w[2], low ? 0x000000ffu : 0x00ff0000u) << l;
    EXPECT_EQ(w[3], 0xfu << (l / 4 * 4)) << l;
    EXPECT_EQ(w[4], half) << l;                         // every lane of a half agrees on l / 16
    // any (l == 3) and all (l < 16) hold in the low half only; match.all in both
    EXPECT_EQ(w[5], (low ? 3u : 0u) | 4u) << l;
    // elect: lane 0 leads the low half, lane 16 the high one (bit 3: "I am it")
    EXPECT_EQ(w[6], (low ? 0u : 16u) | (l % 16 == 0 ? 8u : 0u)) << l;
  }
}

// Every fence scope and semantics nvcc emits, and griddepcontrol, decode and
// leave the program's stores in place (they order memory; here every store is
// visible at once, so they have nothing to do).
TEST(EmuOps, FencesAndGridDependencyControlAreAccepted) {
  auto v = run1(R"(
    mov.u32 %r1, 7;
    st.global.b32 [%rd0], %r1;
    membar.cta; membar.gl; membar.sys;
    fence.sc.cta; fence.sc.gpu; fence.sc.sys; fence.acq_rel.cta; fence.acq_rel.gpu; fence.acq_rel.sys;
    griddepcontrol.launch_dependents; griddepcontrol.wait;
    ld.global.b32 %r2, [%rd0];
    add.u32 %r2, %r2, 1;
    st.global.b32 [%rd0+8], %r2;
  )");
  EXPECT_EQ(uint32_t(v[0]), 7u);
  EXPECT_EQ(uint32_t(v[1]), 8u);
}

TEST(EmuOps, Mul24AndMad24UseThe24BitProduct) {
  auto v = run1(R"(
    mul24.lo.s32 %r3, 0x00800000, 2;            st.global.b32 [%rd0], %r3;
    mul24.lo.u32 %r3, 0xff800000, 2;            st.global.b32 [%rd0+8], %r3;
    mul24.hi.u32 %r3, 0xffffff, 0xffffff;       st.global.b32 [%rd0+16], %r3;
    mul24.hi.s32 %r3, 0xffffff, 0xffffff;       st.global.b32 [%rd0+24], %r3;
    mul24.hi.s32 %r3, 0x800000, 0x7fffff;       st.global.b32 [%rd0+32], %r3;
    mad24.lo.s32 %r3, 0xffffff, 5, 100;         st.global.b32 [%rd0+40], %r3;
    mad24.hi.sat.s32 %r3, 0x7fffff, 0x7fffff, 0x7fffffff; st.global.b32 [%rd0+48], %r3;
    mad24.hi.u32 %r3, 0xffffff, 0xffffff, 1;    st.global.b32 [%rd0+56], %r3;
  )");
  EXPECT_EQ(uint32_t(v[0]), 0xff000000u);  // 0x800000 is -2^23 as a signed 24-bit value
  EXPECT_EQ(uint32_t(v[1]), 0x01000000u);  // unsigned: the top byte of a is ignored
  EXPECT_EQ(uint32_t(v[2]), 0xfffffe00u);  // (2^24-1)^2 = 0xfffffe000001, bits 47..16
  EXPECT_EQ(uint32_t(v[3]), 0u);           // (-1)(-1) = 1
  EXPECT_EQ(uint32_t(v[4]), 0xc0000080u);  // -2^23(2^23-1) = 0xc00000800000 in 48 bits
  EXPECT_EQ(uint32_t(v[5]), 95u);          // -1*5 + 100
  EXPECT_EQ(uint32_t(v[6]), 0x7fffffffu);  // 0x3fffff00 + INT_MAX saturates
  EXPECT_EQ(uint32_t(v[7]), 0xfffffe01u);
}

TEST(EmuOps, PrmtModesSelectByTheLowTwoBitsOfC) {
  // {b, a} bytes 7..0 = 77 66 55 44 | 33 22 11 00
  auto v = run1(R"(
    mov.b32 %r1, 0x33221100;
    mov.b32 %r2, 0x77665544;
    prmt.b32.f4e %r3, %r1, %r2, 1;   st.global.b32 [%rd0], %r3;
    prmt.b32.f4e %r3, %r1, %r2, 7;   st.global.b32 [%rd0+8], %r3;
    prmt.b32.b4e %r3, %r1, %r2, 0;   st.global.b32 [%rd0+16], %r3;
    prmt.b32.rc8 %r3, %r1, %r2, 2;   st.global.b32 [%rd0+24], %r3;
    prmt.b32.ecl %r3, %r1, %r2, 1;   st.global.b32 [%rd0+32], %r3;
    prmt.b32.ecr %r3, %r1, %r2, 2;   st.global.b32 [%rd0+40], %r3;
    prmt.b32.rc16 %r3, %r1, %r2, 1;  st.global.b32 [%rd0+48], %r3;
    prmt.b32.b4e %r3, %r1, %r2, 3;   st.global.b32 [%rd0+56], %r3;
  )");
  EXPECT_EQ(uint32_t(v[0]), 0x44332211u);  // bytes 4 3 2 1
  EXPECT_EQ(uint32_t(v[1]), 0x66554433u);  // c = 7 uses only 3: bytes 6 5 4 3
  EXPECT_EQ(uint32_t(v[2]), 0x55667700u);  // bytes 5 6 7 0
  EXPECT_EQ(uint32_t(v[3]), 0x22222222u);
  EXPECT_EQ(uint32_t(v[4]), 0x33221111u);  // bytes 3 2 1 1
  EXPECT_EQ(uint32_t(v[5]), 0x22221100u);  // bytes 2 2 1 0
  EXPECT_EQ(uint32_t(v[6]), 0x33223322u);  // bytes 3 2 3 2
  EXPECT_EQ(uint32_t(v[7]), 0x00112233u);  // bytes 0 1 2 3
}

TEST(EmuOps, MinMaxNaNAndReluAndTf32) {
  auto v = run1(R"(
    mov.b32 %f1, 0f7FC00000;
    min.NaN.f32 %f2, 1.0, %f1;         st.global.b32 [%rd0], %f2;
    min.f32 %f2, 1.0, %f1;             st.global.b32 [%rd0+8], %f2;
    max.NaN.f32 %f2, 1.0, 2.0;         st.global.b32 [%rd0+16], %f2;
    mov.b32 %r1, 0x7e003c00;
    max.NaN.f16x2 %r2, %r1, 0x40004000; st.global.b32 [%rd0+24], %r2;
    cvt.rn.relu.f16.f32 %rs1, 0fC0200000;  st.global.b16 [%rd0+32], %rs1;
    cvt.rn.relu.f16.f32 %rs1, 0f3FC00000;  st.global.b16 [%rd0+40], %rs1;
    cvt.rn.relu.f16x2.f32 %r2, 0fBF800000, 0f40400000; st.global.b32 [%rd0+48], %r2;
    cvt.rn.relu.bf16.f32 %rs1, %f1;        st.global.b16 [%rd0+56], %rs1;
    mov.b32 %f3, 0f3F801000;
    cvt.rna.tf32.f32 %r3, %f3;             st.global.b32 [%rd0+64], %r3;
    cvt.rn.tf32.f32 %r3, %f3;              st.global.b32 [%rd0+72], %r3;
    cvt.rna.tf32.f32 %r3, 0f3F800FFF;      st.global.b32 [%rd0+80], %r3;
    cvt.rna.tf32.f32 %r3, %f1;             st.global.b32 [%rd0+88], %r3;
    cvt.rna.tf32.f32 %r3, 0f7F7FFFFF;      st.global.b32 [%rd0+96], %r3;
    cvt.rn.satfinite.tf32.f32 %r3, 0f7F7FFFFF; st.global.b32 [%rd0+104], %r3;
  )");
  EXPECT_EQ(uint32_t(v[0]), 0x7fffffffu);  // .NaN: canonical NaN
  EXPECT_EQ(u2f(v[1]), 1.0f);              // plain min ignores the NaN
  EXPECT_EQ(u2f(v[2]), 2.0f);
  EXPECT_EQ(uint32_t(v[3]), 0x7fff4000u);  // high half NaN, low half max(1, 2)
  EXPECT_EQ(uint16_t(v[4]), 0x0000u);      // relu(-2.5) = +0
  EXPECT_EQ(uint16_t(v[5]), 0x3e00u);      // 1.5
  EXPECT_EQ(uint32_t(v[6]), 0x00004200u);  // {relu(-1) -> high, 3 -> low}
  EXPECT_EQ(uint16_t(v[7]), 0x7fffu);      // NaN stays NaN
  EXPECT_EQ(uint32_t(v[8]), 0x3f802000u);  // 1 + 2^-11 is a tie: .rna rounds away to 1 + 2^-10
  EXPECT_EQ(uint32_t(v[9]), 0x3f800000u);  // .rn rounds the tie to even
  EXPECT_EQ(uint32_t(v[10]), 0x3f800000u); // below the tie
  EXPECT_EQ(uint32_t(v[11]), 0x7fffffffu);
  EXPECT_EQ(uint32_t(v[12]), 0x7f800000u); // FLT_MAX rounds past the largest tf32
  EXPECT_EQ(uint32_t(v[13]), 0x7f7fe000u); // .satfinite: the largest tf32
}

TEST(EmuOps, SetpOnHalfPairsWritesOnePredicatePerHalf) {
  auto v = run1(R"(
    mov.b32 %r1, 0x40003c00;           // {hi 2.0, lo 1.0}
    mov.b32 %r2, 0x3c003c00;           // {1.0, 1.0}
    setp.gt.f16x2 %p1|%p2, %r1, %r2;
    setp.eq.u32 %p5, 1, 1;
    setp.eq.and.f16x2 %p3|%p4, %r1, %r2, %p5;
    setp.lt.or.bf16x2 %p6|%p7, 0x3f800000, 0x40004000, !%p5;
    selp.u32 %r3, 1, 0, %p1; selp.u32 %r4, 2, 0, %p2; or.b32 %r3, %r3, %r4;
    selp.u32 %r4, 4, 0, %p3; or.b32 %r3, %r3, %r4;
    selp.u32 %r4, 8, 0, %p4; or.b32 %r3, %r3, %r4;
    selp.u32 %r4, 16, 0, %p6; or.b32 %r3, %r3, %r4;
    selp.u32 %r4, 32, 0, %p7; or.b32 %r3, %r3, %r4;
    st.global.b32 [%rd0], %r3;
  )");
  // gt: lo 1>1 no, hi 2>1 yes; eq.and p5: lo yes, hi no;
  // bf16 {hi 1.0, lo 0} < {2, 2}: both yes.
  EXPECT_EQ(uint32_t(v[0]), 2u | 4u | 16u | 32u);
}

TEST(EmuOps, HalfAtomicAddAndFloatAtomicMinMax) {
  Harness h;
  h.load(kernel_ptx("k", ".param .u64 out", R"(
    ld.param.u64 %rd0, [out];
    mov.b16 %rs1, 0x3400;                                  // 0.25
    atom.global.add.noftz.f16 %rs2, [%rd0], %rs1;
    atom.global.add.noftz.bf16x2 %r1, [%rd0+4], 0x3f803f80;  // {1, 1}
    mov.u32 %r2, %tid.x;
    setp.ne.u32 %p1, %r2, 0;
    @%p1 bra DONE;
    st.global.b16 [%rd0+2], %rs2;
    atom.global.min.f32 %f1, [%rd0+8], 0f40E00000;         // 7: min(5, 7) = 5
    atom.global.min.f32 %f1, [%rd0+8], 0f40000000;         // 2
    atom.global.max.f32 %f2, [%rd0+8], 0f7FC00000;         // NaN operand: stays 2
    st.global.b32 [%rd0+12], %f1;
DONE:
    ret;
  )"));
  std::vector<uint16_t> init = {0x3c00, 0, 0, 0, 0, 0x40a0, 0, 0};  // f16 1.0; bf16x2 {0,0}; f32 5.0
  Addr out = h.buffer(init);
  LaunchResult r = h.launch("k", Dim3{1, 1, 1}, Dim3{4, 1, 1}, out);
  ASSERT_TRUE(r.ok) << r.error;
  auto m = h.read<uint16_t>(out, 8);
  EXPECT_EQ(m[0], 0x4000u);  // 1 + 4 x 0.25 = 2.0
  EXPECT_EQ(m[1], 0x3c00u);  // lane 0 saw the initial 1.0
  EXPECT_EQ(m[2], 0x4080u);  // bf16x2: four lanes add {1, 1}: {4.0, 4.0}
  EXPECT_EQ(m[3], 0x4080u);
  float f;
  std::memcpy(&f, &m[4], 4);
  EXPECT_EQ(f, 2.0f);
  std::memcpy(&f, &m[6], 4);
  EXPECT_EQ(f, 5.0f);  // the value before the second min
}

}  // namespace
}  // namespace ws::exec::test

namespace ws::exec::test {
namespace {

// fns (PTX ISA's examples first): 0xaaaaaaaa has bits 1, 3, 5, ... set.
TEST(EmuOps, FnsFindsTheNthSetBit) {
  auto v = run1(R"(
    fns.b32 %r1, 0xaaaaaaaa, 3, 1;    st.global.b32 [%rd0], %r1;
    fns.b32 %r1, 0xaaaaaaaa, 3, -1;   st.global.b32 [%rd0+8], %r1;
    fns.b32 %r1, 0xaaaaaaaa, 2, 1;    st.global.b32 [%rd0+16], %r1;
    fns.b32 %r1, 0xaaaaaaaa, 2, -1;   st.global.b32 [%rd0+24], %r1;
    fns.b32 %r1, 0xaaaaaaaa, 0, 3;    st.global.b32 [%rd0+32], %r1;
    fns.b32 %r1, 0xaaaaaaaa, 2, 0;    st.global.b32 [%rd0+40], %r1;
    fns.b32 %r1, 0xaaaaaaaa, 3, 0;    st.global.b32 [%rd0+48], %r1;
    fns.b32 %r1, 0x80000001, 31, -2;  st.global.b32 [%rd0+56], %r1;
    fns.b32 %r1, 0x80000001, 1, 2;    st.global.b32 [%rd0+64], %r1;
  )");
  EXPECT_EQ(uint32_t(v[0]), 3u);
  EXPECT_EQ(uint32_t(v[1]), 3u);
  EXPECT_EQ(uint32_t(v[2]), 3u);
  EXPECT_EQ(uint32_t(v[3]), 1u);
  EXPECT_EQ(uint32_t(v[4]), 5u);            // the third of bits 1, 3, 5
  EXPECT_EQ(uint32_t(v[5]), 0xffffffffu);   // offset 0: bit 2 is clear
  EXPECT_EQ(uint32_t(v[6]), 3u);
  EXPECT_EQ(uint32_t(v[7]), 0u);            // downward from 31: bits 31, then 0
  EXPECT_EQ(uint32_t(v[8]), 0xffffffffu);   // only one set bit at or above 1
}

// shf: {b, a} = 0x01234567'89abcdef shifted as one 64-bit value; .wrap takes
// the amount mod 32, .clamp caps it at 32. nvcc emits shf.l.wrap for rotates.
TEST(EmuOps, FunnelShiftsWrapOrClampTheAmount) {
  auto v = run1(R"(
    mov.u32 %r1, 0x89abcdef;
    mov.u32 %r2, 0x01234567;
    shf.l.wrap.b32 %r3, %r1, %r2, 8;    st.global.b32 [%rd0], %r3;
    shf.r.wrap.b32 %r3, %r1, %r2, 8;    st.global.b32 [%rd0+8], %r3;
    shf.l.wrap.b32 %r3, %r1, %r2, 40;   st.global.b32 [%rd0+16], %r3;
    shf.l.clamp.b32 %r3, %r1, %r2, 40;  st.global.b32 [%rd0+24], %r3;
    shf.r.clamp.b32 %r3, %r1, %r2, 40;  st.global.b32 [%rd0+32], %r3;
    shf.r.wrap.b32 %r3, %r1, %r2, 0;    st.global.b32 [%rd0+40], %r3;
    shf.l.wrap.b32 %r3, %r1, %r1, 4;    st.global.b32 [%rd0+48], %r3;
  )");
  EXPECT_EQ(uint32_t(v[0]), 0x23456789u);  // high word of {b, a} << 8
  EXPECT_EQ(uint32_t(v[1]), 0x6789abcdu);  // low word of {b, a} >> 8
  EXPECT_EQ(uint32_t(v[2]), 0x23456789u);  // 40 wraps to 8
  EXPECT_EQ(uint32_t(v[3]), 0x89abcdefu);  // clamped to 32: all of a
  EXPECT_EQ(uint32_t(v[4]), 0x01234567u);  // clamped to 32: all of b
  EXPECT_EQ(uint32_t(v[5]), 0x89abcdefu);
  EXPECT_EQ(uint32_t(v[6]), 0x9abcdef8u);  // a rotated left by 4
}

// bmsk: b bits from bit a; a field past bit 31 is cut there; .clamp treats
// counts of 32 and more as "none left" (a) and "all the rest" (b), .wrap
// takes both mod 32 (CUB's radix sort emits bmsk.clamp).
TEST(EmuOps, BitMasksClampOrWrapTheirCounts) {
  auto v = run1(R"(
    bmsk.wrap.b32 %r1, 1, 2;     st.global.b32 [%rd0], %r1;
    bmsk.clamp.b32 %r1, 4, 40;   st.global.b32 [%rd0+8], %r1;
    bmsk.clamp.b32 %r1, 33, 2;   st.global.b32 [%rd0+16], %r1;
    bmsk.wrap.b32 %r1, 33, 2;    st.global.b32 [%rd0+24], %r1;
    bmsk.clamp.b32 %r1, 30, 4;   st.global.b32 [%rd0+32], %r1;
    bmsk.clamp.b32 %r1, 3, 0;    st.global.b32 [%rd0+40], %r1;
    bmsk.wrap.b32 %r1, 0, 31;    st.global.b32 [%rd0+48], %r1;
  )");
  EXPECT_EQ(uint32_t(v[0]), 0x00000006u);  // bits 1 and 2
  EXPECT_EQ(uint32_t(v[1]), 0xfffffff0u);  // width clamped: every bit from 4
  EXPECT_EQ(uint32_t(v[2]), 0u);           // position 33 clamped: nothing
  EXPECT_EQ(uint32_t(v[3]), 0x00000006u);  // position 33 wraps to 1
  EXPECT_EQ(uint32_t(v[4]), 0xc0000000u);  // bits 30..33 cut at 31
  EXPECT_EQ(uint32_t(v[5]), 0u);           // width 0
  EXPECT_EQ(uint32_t(v[6]), 0x7fffffffu);
}

}  // namespace
}  // namespace ws::exec::test
