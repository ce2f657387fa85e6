// Device printf: the formatter on hand-packed buffers, the vprintf built-in on
// hand-written PTX, and nvcc's own printf calls (tests/data/ptx/printf.cu).
#include <cstdio>

#include "exec/device_printf.h"
#include "exec/emu_test_util.h"

namespace ws::exec::test {
namespace {

// Arguments packed by the caller; strings at fake addresses 1, 2, ...
struct BufferSource : PrintfSource {
  std::vector<uint8_t> buf;
  std::vector<std::string> strings;
  template <class T>
  BufferSource& arg(T v) {
    size_t at = (buf.size() + sizeof(T) - 1) / sizeof(T) * sizeof(T);
    buf.resize(at + sizeof(T));
    std::memcpy(buf.data() + at, &v, sizeof(T));
    return *this;
  }
  BufferSource& str(const std::string& s) {
    strings.push_back(s);
    return arg(uint64_t(strings.size()));
  }
  bool argument(uint64_t offset, unsigned bytes, uint64_t& value) override {
    if (offset + bytes > buf.size()) return false;
    value = 0;
    std::memcpy(&value, buf.data() + offset, bytes);
    return true;
  }
  bool string(uint64_t addr, std::string& out) override {
    if (addr == 0 || addr > strings.size()) return false;
    out = strings[addr - 1];
    return true;
  }
};

std::string format(const std::string& fmt, BufferSource& src, int* args = nullptr) {
  std::string out;
  PrintfResult r = format_device_printf(fmt, src, out);
  EXPECT_TRUE(r.ok) << fmt;
  if (args) *args = r.arguments;
  return out;
}

TEST(EmuPrintf, FormatsEachConversionFromTheAlignedBuffer) {
  BufferSource s;
  // int, then a double at offset 8 (padding after the int), then long long, unsigned, char.
  s.arg(int32_t(-5)).arg(2.5).arg(int64_t(-1234567890123)).arg(uint32_t(0xbeef)).arg(int32_t('z'));
  int n = 0;
  EXPECT_EQ(format("%d|%6.2f|%lld|%#x|%c|%%", s, &n), "-5|  2.50|-1234567890123|0xbeef|z|%");
  EXPECT_EQ(n, 5);
}

TEST(EmuPrintf, StarWidthsStringsAndLengths) {
  BufferSource s;
  s.arg(int32_t(-6)).arg(int32_t(42)).arg(int32_t(3)).arg(3.14159).str("abc").arg(int32_t(0x12345));
  s.arg(uint64_t(0xffffffffffull)).arg(uint64_t(0));
  // A negative * width means left-justified; %hx truncates to 16 bits; a null %s prints (null).
  EXPECT_EQ(format("[%*d][%.*f][%5s][%hx][%lx][%s]", s), "[42    ][3.142][  abc][2345][ffffffffff][(null)]");
}

TEST(EmuPrintf, FloatConversionsTakeDoubles) {
  BufferSource s;
  s.arg(1.0).arg(1e-5).arg(100000.0).arg(-0.0).arg(0.5);
  EXPECT_EQ(format("%a %g %e %f %G", s), "0x1p+0 1e-05 1.000000e+05 -0.000000 0.5");
}

TEST(EmuPrintf, MissingArgumentsAndStrayPercent) {
  BufferSource none;
  std::string out;
  EXPECT_FALSE(format_device_printf("x=%d", none, out).ok);  // the buffer ends: unreadable
  BufferSource s;
  EXPECT_EQ(format("50%% and %", s), "50% and %");  // a lone % at the end prints as written
}

TEST(EmuPrintf, VprintfPrintsEveryExecutingLaneInOrderAndReturnsTheArgumentCount) {
  Harness h;
  std::string out;
  h.emu.set_print_sink([&](std::string_view s) { out += s; });
  const std::string module = R"(
.extern .func (.param .b32 func_retval0) vprintf(.param .b64 vprintf_param_0, .param .b64 vprintf_param_1);
.global .align 1 .b8 fmt[12] = {119, 37, 100, 32, 108, 37, 100, 32, 37, 120, 10, 0};
)";  // "w%d l%d %x\n"
  h.load(kernel_ptx("k", ".param .u64 out", R"(
    .local .align 8 .b8 buf[16];
    .reg .b64 %SP;
    ld.param.u64 %rd0, [out];
    mov.u32 %r1, %tid.x;
    shr.u32 %r2, %r1, 5;
    and.b32 %r3, %r1, 31;
    setp.eq.u32 %p1, %r3, 1;          // odd-numbered lanes skip: divergence around the call
    and.b32 %r9, %r1, 1;
    setp.eq.u32 %p2, %r9, 1;
    @%p2 bra SKIP;
    mov.u64 %rd1, buf;
    cvta.local.u64 %SP, %rd1;
    st.local.v2.u32 [buf], {%r2, %r3};
    mul.lo.u32 %r4, %r1, 17;
    st.local.u32 [buf+8], %r4;
    mov.u64 %rd2, fmt;
    cvta.global.u64 %rd3, %rd2;
    {
    .param .b64 param0;
    st.param.b64 [param0], %rd3;
    .param .b64 param1;
    st.param.b64 [param1], %SP;
    .param .b32 retval0;
    call.uni (retval0), vprintf, (param0, param1);
    ld.param.b32 %r5, [retval0];
    }
    mul.wide.u32 %rd4, %r1, 4;
    add.u64 %rd5, %rd0, %rd4;
    st.global.u32 [%rd5], %r5;
SKIP:
    ret;
  )", module));
  Addr ret = h.buffer(std::vector<int32_t>(40, -7));
  LaunchResult r = h.launch("k", Dim3{1, 1, 1}, Dim3{40, 1, 1}, ret);
  ASSERT_TRUE(r.ok) << r.error;
  std::string want;
  char line[64];
  for (unsigned t = 0; t < 40; t += 2) {
    std::snprintf(line, sizeof line, "w%u l%u %x\n", t / 32, t % 32, t * 17);
    want += line;
  }
  EXPECT_EQ(out, want);  // warp 0's lanes in order, then warp 1's
  auto got = h.read<int32_t>(ret, 40);
  for (unsigned t = 0; t < 40; ++t) EXPECT_EQ(got[t], t % 2 ? -7 : 3) << t;
}

TEST(EmuPrintf, BadFormatPointerFaultsNamingTheLine) {
  Harness h;
  h.emu.set_print_sink([](std::string_view) {});
  h.load(kernel_ptx("k", ".param .u64 out", R"(
    mov.u64 %rd3, 0x1000;
    {
    .param .b64 param0;
    st.param.b64 [param0], %rd3;
    .param .b64 param1;
    st.param.b64 [param1], %rd3;
    call.uni vprintf, (param0, param1);
    }
  )", ".extern .func (.param .b32 func_retval0) vprintf(.param .b64 a, .param .b64 b);"));
  LaunchResult r = h.launch("k", Dim3{1, 1, 1}, Dim3{1, 1, 1}, uint64_t(0));
  ASSERT_FALSE(r.ok);
  EXPECT_NE(r.error.find("call.uni vprintf"), std::string::npos) << r.error;
  EXPECT_NE(r.error.find("illegal address 0x1000"), std::string::npos) << r.error;
}

TEST(EmuPrintf, NvccFixturePrintsLikeTheHostPrintf) {
  Harness h;
  std::string out;
  h.emu.set_print_sink([&](std::string_view s) { out += s; });
  h.load(read_fixture("printf.ptx"), "printf.ptx");
  Addr a = h.buffer(std::vector<int32_t>{10, 20, 30});
  LaunchResult r = h.launch("_Z4showPKifdx", Dim3{1, 1, 1}, Dim3{3, 1, 1}, a, 1.5f, 2.25, int64_t(1234567890123));
  ASSERT_TRUE(r.ok) << r.error;
  char ptr[64];
  std::snprintf(ptr, sizeof ptr, "p=%p null=%p\n", reinterpret_cast<void*>(a), static_cast<void*>(nullptr));
  std::string want =
      "t=0 a=10 u=20 x=a X=109 o=10 c=A s=0\n"
      "t=1 a=20 u=40 x=14 X=113 o=11 c=B s=-1\n"
      "t=2 a=30 u=60 x=1e X=11D o=12 c=C s=-2\n"
      "f=1.500000 e=2.250e+00 g=3 a=0x1p+0 |    2.25|0     |+7|00042\n"
      "ld=1234567890123 lld=-1234567890123 lu=1234567890123 llu=1234567890123 lx=11f71fb04cb str=abc hi "
      "width=     5 prec=3.14 % done\n" +
      std::string(ptr) + "no args\nprintf returned 0\n";
  EXPECT_EQ(out, want);
}

// assert(i < limit): lanes 0..limit-1 pass; each failing lane of the warp
// prints CUDA's line and the launch stops as a failed assertion (not a bad
// access) before the second block runs.
TEST(EmuPrintf, DeviceAssertPrintsAndStopsTheLaunch) {
  Harness h;
  std::string out;
  h.emu.set_print_sink([&](std::string_view s) { out += s; });
  h.load(read_fixture("assert.ptx"), "assert.ptx");
  Addr a = h.buffer(std::vector<int32_t>(32, -1));
  LaunchResult ok = h.launch("_Z11check_belowPii", Dim3{1, 1, 1}, Dim3{32, 1, 1}, a, 40);
  ASSERT_TRUE(ok.ok) << ok.error;
  EXPECT_EQ(out, "");
  LaunchResult bad = h.launch("_Z11check_belowPii", Dim3{2, 1, 1}, Dim3{32, 1, 1}, a, 20);
  EXPECT_FALSE(bad.ok);
  EXPECT_EQ(bad.failure, LaunchFailure::Assertion);
  EXPECT_NE(bad.error.find("assertion `i < limit` failed (assert.cu:7)"), std::string::npos) << bad.error;
  std::string want;
  for (int t = 20; t < 32; ++t)
    want += "assert.cu:7: void check_below(int *, int): block: [0,0,0], thread: [" + std::to_string(t) +
            ",0,0] Assertion `i < limit` failed.\n";
  EXPECT_EQ(out, want);
}

}  // namespace
}  // namespace ws::exec::test
