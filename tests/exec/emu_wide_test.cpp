// 128- and 256-bit data: .b128 registers (mov.b128 pack/unpack, ld/st.b128,
// atom.exch/cas.b128 as sm_90 PTX has them) and sm_100's .v8.b32 / .v4.b64
// accesses. Each expected value follows from the PTX ISA's definition.
#include "exec/emu_test_util.h"
#include "frontend/trace/trace_parse.h"

namespace ws::exec::test {
namespace {

const std::string kWideRegs = ".reg .b128 %q<8>;\n";

struct Recorder : WarpObserver {
  std::vector<WarpStep> steps;
  void on_step(const WarpStep& s) override { steps.push_back(s); }
};

// out[i] = {~hi, lo + 1} of in[i] = {lo, hi}: an unpack, a pack with the
// halves swapped, and a copy between .b128 registers on the way.
TEST(EmuWide, B128LoadsStoresAndMovesKeepBothHalves) {
  Harness h;
  h.load(kernel_ptx("k", ".param .u64 in, .param .u64 out", kWideRegs + R"(
    ld.param.u64 %rd1, [in];
    ld.param.u64 %rd2, [out];
    mov.u32 %r1, %tid.x;
    mul.wide.u32 %rd3, %r1, 16;
    add.s64 %rd4, %rd1, %rd3;
    add.s64 %rd5, %rd2, %rd3;
    ld.global.b128 %q1, [%rd4];
    mov.b128 {%rd6, %rd7}, %q1;
    add.s64 %rd6, %rd6, 1;
    not.b64 %rd7, %rd7;
    mov.b128 %q2, {%rd7, %rd6};
    mov.b128 %q3, %q2;
    st.global.b128 [%rd5], %q3;
  )"));
  std::vector<uint64_t> in(64);
  for (uint64_t i = 0; i < 32; ++i) in[2 * i] = 0x1000 + i, in[2 * i + 1] = 0xabcd0000'00000000ull + i;
  Addr a = h.buffer(in), out = h.buffer(std::vector<uint64_t>(64, 0));
  LaunchResult r = h.launch("k", Dim3{1, 1, 1}, Dim3{32, 1, 1}, a, out);
  ASSERT_TRUE(r.ok) << r.error;
  auto v = h.read<uint64_t>(out, 64);
  for (size_t i = 0; i < 32; ++i) {
    EXPECT_EQ(v[2 * i], ~in[2 * i + 1]) << i;
    EXPECT_EQ(v[2 * i + 1], in[2 * i] + 1) << i;
  }
}

// Lanes apply in lane order: each exchange returns the previous lane's pair
// (lane 0 the initial one) and lane 31's stays; of 32 CAS expecting the
// initial value only lane 0 succeeds. A CAS whose low half matches but high
// half does not leaves memory alone (all 16 bytes are compared).
TEST(EmuWide, B128AtomicsExchangeAndCompareAllSixteenBytes) {
  Harness h;
  h.load(kernel_ptx("k", ".param .u64 mem, .param .u64 out", kWideRegs + R"(
    ld.param.u64 %rd1, [mem];
    ld.param.u64 %rd2, [out];
    mov.u32 %r1, %tid.x;
    cvt.u64.u32 %rd3, %r1;
    mul.lo.s64 %rd4, %rd3, 3;
    mov.b128 %q1, {%rd3, %rd4};
    atom.global.exch.b128 %q2, [%rd1], %q1;
    mov.b128 {%rd5, %rd6}, %q2;
    mul.wide.u32 %rd7, %r1, 32;
    add.s64 %rd8, %rd2, %rd7;
    st.global.v2.u64 [%rd8], {%rd5, %rd6};
    mov.u64 %rd9, 5;
    mov.u64 %rd10, 6;
    mov.b128 %q3, {%rd9, %rd10};
    add.s64 %rd11, %rd3, 100;
    mov.b128 %q4, {%rd11, %rd3};
    atom.cas.b128 %q5, [%rd1+16], %q3, %q4;
    mov.b128 {%rd12, %rd13}, %q5;
    st.global.v2.u64 [%rd8+16], {%rd12, %rd13};
    mov.u64 %rd14, 9;
    mov.b128 %q6, {%rd9, %rd14};
    atom.global.cas.b128 %q7, [%rd1+32], %q6, %q4;
  )"));
  Addr mem = h.buffer(std::vector<uint64_t>{11, 12, 5, 6, 5, 6});
  Addr out = h.buffer(std::vector<uint64_t>(128, 0));
  LaunchResult r = h.launch("k", Dim3{1, 1, 1}, Dim3{32, 1, 1}, mem, out);
  ASSERT_TRUE(r.ok) << r.error;
  auto m = h.read<uint64_t>(mem, 6);
  auto o = h.read<uint64_t>(out, 128);
  EXPECT_EQ(m[0], 31u);
  EXPECT_EQ(m[1], 93u);
  EXPECT_EQ(o[0], 11u);
  EXPECT_EQ(o[1], 12u);
  for (uint64_t l = 1; l < 32; ++l) {
    EXPECT_EQ(o[4 * l], l - 1) << l;
    EXPECT_EQ(o[4 * l + 1], 3 * (l - 1)) << l;
  }
  EXPECT_EQ(m[2], 100u);  // lane 0's {100, 0}
  EXPECT_EQ(m[3], 0u);
  for (uint64_t l = 0; l < 32; ++l) {
    EXPECT_EQ(o[4 * l + 2], l == 0 ? 5u : 100u) << l;
    EXPECT_EQ(o[4 * l + 3], l == 0 ? 6u : 0u) << l;
  }
  EXPECT_EQ(m[4], 5u);  // {5, 9} expected, {5, 6} there: unchanged
  EXPECT_EQ(m[5], 6u);
}

// .v8.b32 and .v4.f64 move 32 bytes per lane, each element in its place; the
// step reports 32 bytes (timed as a 256-bit access: LDG.E.256 in a trace).
TEST(EmuWide, V8AndV4x64AccessesMove32BytesPerLane) {
  Harness h;
  h.load(kernel_ptx("k", ".param .u64 in, .param .u64 out", R"(
    ld.param.u64 %rd1, [in];
    ld.param.u64 %rd2, [out];
    mov.u32 %r0, %tid.x;
    mul.wide.u32 %rd3, %r0, 32;
    add.s64 %rd4, %rd1, %rd3;
    add.s64 %rd5, %rd2, %rd3;
    ld.global.v8.f32 {%f1, %f2, %f3, %f4, %f5, %f6, %f7, %f8}, [%rd4];
    st.global.v8.f32 [%rd5], {%f8, %f7, %f6, %f5, %f4, %f3, %f2, %f1};
    ld.global.v4.f64 {%fd1, %fd2, %fd3, %fd4}, [%rd4];
    add.s64 %rd6, %rd5, 1024;
    st.global.v4.f64 [%rd6], {%fd4, %fd3, %fd2, %fd1};
  )"));
  std::vector<float> in(256);
  for (size_t i = 0; i < in.size(); ++i) in[i] = static_cast<float>(i) + 0.5f;
  Addr a = h.buffer(in), out = h.buffer(std::vector<float>(512, 0));
  Launch l = h.make_launch("k", Dim3{1, 1, 1}, Dim3{32, 1, 1});
  std::memcpy(l.params.data(), &a, 8);
  std::memcpy(l.params.data() + 8, &out, 8);
  Recorder rec;
  LaunchResult r = h.emu.run_cta(l, Dim3{0, 0, 0}, &rec);
  ASSERT_TRUE(r.ok) << r.error;
  auto v = h.read<float>(out, 512);
  for (size_t t = 0; t < 32; ++t)
    for (size_t e = 0; e < 8; ++e) {
      EXPECT_EQ(v[8 * t + e], in[8 * t + 7 - e]) << t << "," << e;
      // doubles reversed: 8-byte element e comes from element 3 - e
      size_t f = 256 + 8 * t + (3 - e / 2) * 2 + e % 2;
      EXPECT_EQ(v[f], in[8 * t + e]) << t << "," << e;
    }
  int wide = 0;
  for (const WarpStep& s : rec.steps) {
    if (s.space != ptx::StateSpace::Global) continue;
    EXPECT_EQ(s.access_bytes, 32u);
    ++wide;
  }
  EXPECT_EQ(wide, 4);
  EXPECT_EQ(frontend::access_bytes_of("LDG.E.256"), 32u);
  EXPECT_EQ(frontend::access_bytes_of("STG.E.128"), 16u);
}

// A 256-bit access must be 32-byte aligned (the vector's size), a .b128 one 16.
TEST(EmuWide, WideAccessesNeedTheirFullAlignment) {
  Harness h;
  h.load(kernel_ptx("k", ".param .u64 in", kWideRegs + R"(
    ld.param.u64 %rd1, [in];
    ld.global.b128 %q1, [%rd1+16];
    ld.global.v8.b32 {%r1, %r2, %r3, %r4, %r5, %r6, %r7, %r8}, [%rd1+16];
  )"));
  Addr a = h.buffer(std::vector<uint64_t>(16, 0));
  LaunchResult r = h.launch("k", Dim3{1, 1, 1}, Dim3{1, 1, 1}, a);
  ASSERT_FALSE(r.ok);
  EXPECT_NE(r.error.find("misaligned address"), std::string::npos) << r.error;
  EXPECT_NE(r.error.find("32 bytes"), std::string::npos) << r.error;
}

// Forms the PTX ISA does not have are refused at decode, naming the instruction.
TEST(EmuWide, FormsOutsideThePtxIsaFailAtDecode) {
  const char* bad[] = {"ld.global.v8.u16 {%rs1, %rs2, %rs3, %rs4, %rs5, %rs6, %rs7, %rs8}, [%rd1];",
                       "ld.global.v2.b128 {%q1, %q2}, [%rd1];", "atom.global.add.b128 %q1, [%rd1], %q2;",
                       "ld.global.b128 %rd2, [%rd1];"};
  for (const char* inst : bad) {
    Harness h;
    h.load(kernel_ptx("k", "", kWideRegs + inst), "wide.ptx");
    try {
      h.launch("k", Dim3{1, 1, 1}, Dim3{1, 1, 1});
      ADD_FAILURE() << "expected a decode error for " << inst;
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("wide.ptx:"), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace ws::exec::test
