// Memory: atomics, local and generic addressing, faults, errors, DeviceMemory, Program.
#include "exec/emu_test_util.h"
#include "exec/memory_windows.h"

namespace ws::exec::test {
namespace {

TEST(EmuMemory, AtomicsEveryOpAndHistogramConflicts) {
  Harness h;
  h.load(kernel_ptx("k", ".param .u64 out", R"(
    ld.param.u64 %rd0, [out];
    mov.u32 %r1, %tid.x;
    atom.global.add.u32 %r2, [%rd0], 1;
    atom.global.exch.b32 %r2, [%rd0+4], %r1;
    atom.global.cas.b32 %r2, [%rd0+8], 0, 77;
    atom.global.min.s32 %r2, [%rd0+12], %r1;
    atom.global.max.u32 %r2, [%rd0+16], %r1;
    atom.global.inc.u32 %r2, [%rd0+20], 9;
    atom.global.dec.u32 %r2, [%rd0+24], 100;
    atom.global.and.b32 %r2, [%rd0+28], 0xfffffffe;
    atom.global.or.b32 %r2, [%rd0+32], %r1;
    atom.global.xor.b32 %r2, [%rd0+36], 1;
    red.global.add.f32 [%rd0+40], 0f3F000000;
    atom.global.add.u64 %rd2, [%rd0+48], 3;
    red.global.add.f64 [%rd0+56], 0d3FF0000000000000;
    and.b32 %r3, %r1, 3;
    mov.u32 %r4, hist;
    shl.b32 %r5, %r3, 2;
    add.u32 %r6, %r4, %r5;
    atom.shared.add.u32 %r7, [%r6], 1;
    bar.sync 0;
    setp.ne.u32 %p1, %r1, 0;
    @%p1 bra DONE;
    ld.shared.v4.u32 {%r8, %r9, %r10, %r11}, [hist];
    st.global.v4.u32 [%rd0+64], {%r8, %r9, %r10, %r11};
  DONE:
    ret;
  )", ".shared .align 16 .b8 hist[16];"));
  std::vector<uint32_t> init(20, 0);
  init[3] = 1000;       // min
  init[6] = 5;          // dec from 5 with limit 100
  init[7] = 0xff;       // and
  Addr out = h.buffer(init);
  LaunchResult r = h.launch("k", Dim3{1, 1, 1}, Dim3{64, 1, 1}, out);
  ASSERT_TRUE(r.ok) << r.error;
  auto v = h.read<uint32_t>(out, 20);
  EXPECT_EQ(v[0], 64u);
  EXPECT_EQ(v[1], 63u);              // the last lane's exchange wins (lane order)
  EXPECT_EQ(v[2], 77u);              // only the first CAS sees 0
  EXPECT_EQ(v[3], 0u);
  EXPECT_EQ(v[4], 63u);
  EXPECT_EQ(v[5], 64u % 10);         // inc wraps to 0 after 9
  EXPECT_EQ(v[6], 100u - (64 - 6));  // 5,4,..,0 then wraps to 100 and keeps decrementing
  EXPECT_EQ(v[7], 0xfeu);
  EXPECT_EQ(v[8], 63u);
  EXPECT_EQ(v[9], 0u);               // 64 xors of 1
  float f;
  std::memcpy(&f, &v[10], 4);
  EXPECT_EQ(f, 32.0f);
  uint64_t u64;
  double d;
  std::memcpy(&u64, &v[12], 8);
  std::memcpy(&d, &v[14], 8);
  EXPECT_EQ(u64, 192u);
  EXPECT_EQ(d, 64.0);
  for (int b = 0; b < 4; ++b) EXPECT_EQ(v[16 + b], 16u) << b;
}

// nvcc's local-array pattern (depot, %SPL, cvta.local) inside a called function,
// plus a generic round trip of a shared address.
TEST(EmuMemory, LocalArraysInCallsAndGenericRoundTrips) {
  const std::string ptx = R"(
.version 8.0
.target sm_80
.address_size 64
.func (.param .b32 ret) fill(.param .b32 seed)
{
  .local .align 4 .b8 __local_depot0[64];
  .reg .b64 %SP, %SPL, %rd<8>;
  .reg .b32 %r<16>;
  .reg .pred %p<2>;
  mov.u64 %SPL, __local_depot0;
  cvta.local.u64 %SP, %SPL;
  ld.param.b32 %r1, [seed];
  mov.u32 %r2, 0;
L1:
  mul.wide.u32 %rd1, %r2, 4;
  add.s64 %rd2, %SP, %rd1;
  add.u32 %r3, %r1, %r2;
  st.u32 [%rd2], %r3;
  add.u32 %r2, %r2, 1;
  setp.lt.u32 %p1, %r2, 16;
  @%p1 bra L1;
  ld.local.u32 %r4, [%SPL+60];
  add.s64 %rd3, %SPL, 4;
  ld.local.u32 %r5, [%rd3];
  add.u32 %r6, %r4, %r5;
  st.param.b32 [ret], %r6;
  ret;
}
.visible .entry k(.param .u64 out)
{
  .shared .align 4 .b8 sh[128];
  .reg .b32 %r<16>;
  .reg .b64 %rd<16>;
  ld.param.u64 %rd0, [out];
  mov.u32 %r1, %tid.x;
  { .param .b32 p0; .param .b32 r0;
    st.param.b32 [p0], %r1;
    call.uni (r0), fill, (p0);
    ld.param.b32 %r2, [r0]; }
  mov.u64 %rd1, sh;
  cvta.shared.u64 %rd2, %rd1;
  mul.wide.u32 %rd3, %r1, 4;
  add.s64 %rd4, %rd2, %rd3;
  st.u32 [%rd4], %r2;
  cvta.to.shared.u64 %rd5, %rd4;
  ld.shared.u32 %r3, [%rd5];
  add.s64 %rd6, %rd0, %rd3;
  st.global.u32 [%rd6], %r3;
  ret;
}
)";
  Harness h;
  h.load(ptx);
  Addr out = h.buffer(std::vector<uint32_t>(32, 0));
  LaunchResult r = h.launch("k", Dim3{1, 1, 1}, Dim3{32, 1, 1}, out);
  ASSERT_TRUE(r.ok) << r.error;
  auto v = h.read<uint32_t>(out, 32);
  for (uint32_t t = 0; t < 32; ++t) EXPECT_EQ(v[t], (t + 15) + (t + 1)) << t;
}

TEST(EmuMemory, IllegalAddressStopsTheLaunchWithWhereAndWhat) {
  Harness h;
  h.load(kernel_ptx("k", ".param .u64 out", R"(
    ld.param.u64 %rd0, [out];
    mov.u32 %r1, %tid.x;
    mov.u32 %r2, %tid.y;
    mov.u32 %r3, %ctaid.x;
    shl.b32 %r2, %r2, 5;
    shl.b32 %r3, %r3, 6;
    add.u32 %r1, %r1, %r2;
    add.u32 %r1, %r1, %r3;
    mul.wide.u32 %rd1, %r1, 4;
    add.s64 %rd2, %rd0, %rd1;
    st.global.u32 [%rd2], %r1;
  )"), "oob.ptx");
  Addr out = h.buffer(std::vector<uint32_t>(40, 0));  // 160 bytes, rounded up to 256: 64 ints
  LaunchResult r = h.launch("k", Dim3{2, 1, 1}, Dim3{32, 2, 1}, out);
  ASSERT_FALSE(r.ok);
  char addr[32];
  std::snprintf(addr, sizeof addr, "0x%llx", static_cast<unsigned long long>(out + 256));
  EXPECT_EQ(r.error, std::string("kernel k: block (1,0,0) thread (0,0,0): PTX line 24 `st.global.u32 [%rd2], %r1`: ") +
                         "illegal address " + addr + " (global, 4 bytes)");
  EXPECT_EQ(h.read<uint32_t>(out, 40)[39], 39u);  // block 0 ran completely
}

TEST(EmuMemory, SharedOutOfWindowFaults) {
  Harness h;
  h.load(kernel_ptx("k", "", R"(
    .shared .align 4 .b8 s[64];
    st.shared.u32 [s+64], 1;
  )"));
  LaunchResult r = h.launch("k", Dim3{1, 1, 1}, Dim3{1, 1, 1});
  ASSERT_FALSE(r.ok);
  EXPECT_NE(r.error.find("illegal address 0x40 (shared, 4 bytes)"), std::string::npos) << r.error;
}

// The CTA's reserved shared memory (what cooperative groups' multi-warp tiles
// use on sm_80+): 1 KB after the kernel's own shared memory, 20 static bytes
// and 8 dynamic ones (which start 16-aligned, at 32), so from offset 48 (the
// next multiple of 16 after 40); region 1 starts 512 bytes in. It is real
// shared memory: a word stored through region 1's generic address reads back
// through ld.shared at the same offset.
TEST(EmuMemory, ReservedSharedMemoryFollowsTheKernelsOwn) {
  Harness h;
  h.dynamic_shmem = 8;
  h.load(kernel_ptx("k", ".param .u64 out", R"(
    .shared .align 4 .b8 s[20];
    ld.param.u64 %rd0, [out];
    mov.u32 %r1, %reserved_smem_offset_begin;  st.global.u32 [%rd0], %r1;
    mov.u32 %r2, %reserved_smem_offset_end;    st.global.u32 [%rd0+4], %r2;
    mov.u32 %r3, %reserved_smem_offset_cap;    st.global.u32 [%rd0+8], %r3;
    mov.u32 %r4, %reserved_smem_offset_0;      st.global.u32 [%rd0+12], %r4;
    mov.u32 %r5, %reserved_smem_offset_1;      st.global.u32 [%rd0+16], %r5;
    cvt.u64.u32 %rd1, %r5;
    cvta.shared.u64 %rd2, %rd1;
    st.u32 [%rd2+284], 77;
    ld.shared.u32 %r6, [%r5+284];              st.global.u32 [%rd0+20], %r6;
    mov.u32 %r7, %total_smem_size;             st.global.u32 [%rd0+24], %r7;
  )"));
  Addr out = h.buffer(std::vector<uint32_t>(7, 0));
  LaunchResult r = h.launch("k", Dim3{1, 1, 1}, Dim3{32, 1, 1}, out);
  ASSERT_TRUE(r.ok) << r.error;
  auto v = h.read<uint32_t>(out, 7);
  EXPECT_EQ(v[0], 48u);
  EXPECT_EQ(v[1], 48u + 1024);
  EXPECT_EQ(v[2], 1024u);
  EXPECT_EQ(v[3], 48u);
  EXPECT_EQ(v[4], 48u + 512);
  EXPECT_EQ(v[5], 77u);
  EXPECT_EQ(v[6], 48u + 1024);
}

// createpolicy gives an opaque 64-bit policy: equal requests equal
// policies, different priorities or fractions different ones; .cvt passes
// its operand through. .L2::cache_hint adds a last operand to ld, st, atom
// and cp.async (after its source size) and changes no result. Prefetches
// to either level (CUB's transform emits prefetch.global.L2) are no-ops.
TEST(EmuMemory, CachePoliciesAndHintedAccesses) {
  Harness h;
  h.load(kernel_ptx("k", ".param .u64 out", R"(
    ld.param.u64 %rd0, [out];
    createpolicy.fractional.L2::evict_last.b64 %rd1;
    createpolicy.fractional.L2::evict_last.b64 %rd2, 0f3F800000;
    createpolicy.fractional.L2::evict_first.b64 %rd3, 0f3F800000;
    createpolicy.fractional.L2::evict_last.b64 %rd4, 0f3F000000;
    createpolicy.range.global.L2::evict_last.L2::evict_first.b64 %rd5, [%rd0], 64, 128;
    createpolicy.cvt.L2.b64 %rd6, %rd4;
    setp.eq.u64 %p1, %rd1, %rd2;
    setp.ne.u64 %p2, %rd2, %rd3;
    setp.ne.u64 %p3, %rd2, %rd4;
    setp.ne.u64 %p4, %rd5, %rd2;
    setp.eq.u64 %p5, %rd6, %rd4;
    and.pred %p1, %p1, %p2;
    and.pred %p1, %p1, %p3;
    and.pred %p1, %p1, %p4;
    and.pred %p1, %p1, %p5;
    selp.u32 %r1, 1, 0, %p1;
    st.global.L2::cache_hint.u32 [%rd0], %r1, %rd1;
    st.global.u32 [%rd0+4], 41;
    ld.global.L2::cache_hint.u32 %r2, [%rd0+4], %rd3;
    add.u32 %r2, %r2, 1;
    st.global.u32 [%rd0+8], %r2;
    atom.global.add.L2::cache_hint.u32 %r3, [%rd0+8], 8, %rd4;
    red.global.add.L2::cache_hint.u32 [%rd0+8], 50, %rd4;
    mov.u32 %r4, buf;
    st.shared.u32 [%r4+4], 9;
    cp.async.ca.shared.global.L2::cache_hint [%r4], [%rd0+8], 4, %rd5;
    cp.async.ca.shared.global.L2::cache_hint [%r4+4], [%rd0+8], 4, 0, %rd5;
    cp.async.wait_all;
    ld.shared.v2.u32 {%r5, %r6}, [%r4];
    st.global.v2.u32 [%rd0+16], {%r5, %r6};
    prefetch.global.L2 [%rd0];
    prefetch.global.L1 [%rd0];
    prefetch.L2 [%rd0];
    prefetch.global.L2::evict_last [%rd0];
    prefetchu.L1 [%rd0];
)", ".shared .align 16 .b8 buf[16];"));
  Addr o = h.buffer(std::vector<uint32_t>(8, 7));
  LaunchResult r = h.launch("k", Dim3{1, 1, 1}, Dim3{1, 1, 1}, o);
  ASSERT_TRUE(r.ok) << r.error;
  auto v = h.read<uint32_t>(o, 8);
  EXPECT_EQ(v[0], 1u);   // every policy comparison held
  EXPECT_EQ(v[2], 100u); // 41 + 1, + 8 (atom), + 50 (red)
  EXPECT_EQ(v[4], 100u); // cp.async with a hint
  EXPECT_EQ(v[5], 0u);   // cp.async with source size 0 and a hint: zero fill
}

TEST(EmuMemory, UnsupportedInstructionsFailAtDecodeNamingFileAndLine) {
  Harness h;
  h.load(kernel_ptx("k", "", "mov.u32 %r1, 1;\nvmad.u32.u32.u32 %r1, %r1, %r1, %r1;"), "bad.ptx");
  try {
    h.launch("k", Dim3{1, 1, 1}, Dim3{1, 1, 1});
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("bad.ptx:14:"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("unsupported opcode 'vmad'"), std::string::npos) << e.what();
  }
  Harness h2;
  h2.load(kernel_ptx("k", "", "add.rz.approx.s32 %r1, %r1, 1;\nmul.lo.f32 %f1, %f1, %f1;"), "bad2.ptx");
  EXPECT_THROW(h2.launch("k", Dim3{1, 1, 1}, Dim3{1, 1, 1}), InputError);
}

TEST(ExecDeviceMemory, AllocationAlignmentReleaseFindAndCapacity) {
  DeviceMemory m;
  m.set_capacity(4096);
  Addr a = *m.allocate(10), b = *m.allocate(300);
  EXPECT_EQ(a % 256, 0u);
  EXPECT_EQ(b, a + 256);
  EXPECT_EQ(m.used(), 256u + 512u);
  EXPECT_EQ(m.find(b + 511, 1)->first, b);
  EXPECT_FALSE(m.find(b + 511, 2));
  EXPECT_FALSE(m.find(a - 1));
  uint32_t x = 0x12345678, y = 1;
  m.read(b + 100, &y, 4);
  EXPECT_EQ(y, 0u);  // never written: zero
  m.write(b + 100, &x, 4);
  m.read(b + 100, &y, 4);
  EXPECT_EQ(y, x);
  EXPECT_TRUE(m.release(b));
  EXPECT_FALSE(m.release(b));
  EXPECT_FALSE(m.find(b));
  EXPECT_FALSE(m.allocate(4096));  // 256 still used
  EXPECT_TRUE(m.allocate(3840));
  // A sparse read across a page boundary never touched.
  DeviceMemory big;
  Addr c = *big.allocate(3 * DeviceMemory::kPageBytes);
  std::vector<uint8_t> buf(DeviceMemory::kPageBytes + 8, 0xaa);
  big.fill(c + DeviceMemory::kPageBytes - 4, 7, 8);
  big.read(c + 4, buf.data(), buf.size());
  EXPECT_EQ(buf[DeviceMemory::kPageBytes - 8], 7);
  EXPECT_EQ(buf[DeviceMemory::kPageBytes - 9], 0);
  EXPECT_EQ(buf[0], 0);
}

// cudaHostRegister's mapping: device addresses alias the program's buffer
// across page boundaries; releasing the mapping leaves the buffer (and the
// bytes beside it) as they were; it is host memory, not the device's.
TEST(ExecDeviceMemory, MappedHostBufferIsAliasedInPlace) {
  DeviceMemory m;
  std::vector<uint32_t> buffer(3 * DeviceMemory::kPageBytes / 4, 0xdeadbeefu);
  uint32_t* host = buffer.data() + 1001;  // not page aligned
  const uint64_t bytes = 2 * DeviceMemory::kPageBytes;
  Addr d = *m.map_host(host, bytes);
  EXPECT_EQ(m.used(), 0u);
  EXPECT_TRUE(m.is_host(d + 8));
  EXPECT_EQ(*m.device_address(host + 7), d + 28);
  EXPECT_EQ(m.registered_host(d), host);
  EXPECT_TRUE(m.pinned(host + 3, bytes - 12));   // within the buffer
  EXPECT_FALSE(m.pinned(host + 3, bytes - 8));   // one byte past it
  EXPECT_FALSE(m.pinned(host - 1, 4));           // before it
  EXPECT_FALSE(m.find(d + bytes - 3, 4));  // one byte past the buffer
  std::vector<uint32_t> words(bytes / 4);
  for (size_t i = 0; i < words.size(); ++i) words[i] = uint32_t(i * 7);
  m.write(d, words.data(), bytes);
  for (size_t i = 0; i < words.size(); ++i) ASSERT_EQ(host[i], uint32_t(i * 7)) << i;
  host[20000] = 5;
  uint32_t got = 0;
  m.read(d + 4 * 20000, &got, 4);
  EXPECT_EQ(got, 5u);
  EXPECT_TRUE(m.release(d));
  EXPECT_FALSE(m.device_address(host));
  EXPECT_EQ(buffer[1000], 0xdeadbeefu);
  EXPECT_EQ(host[1], 7u);
  EXPECT_EQ(host[bytes / 4], 0xdeadbeefu);
  // A second mapping starts on a page of its own.
  Addr e = *m.map_host(host, 16);
  EXPECT_GT(e / DeviceMemory::kPageBytes, (d + bytes - 1) / DeviceMemory::kPageBytes);
  // Page-locked allocations are host memory too; managed memory is not.
  Addr pinned = *m.allocate_unified(100, false), managed = *m.allocate_unified(100);
  EXPECT_TRUE(m.is_host(pinned));
  EXPECT_FALSE(m.is_host(managed));
  EXPECT_EQ(*m.device_address(reinterpret_cast<void*>(pinned)), pinned);
  EXPECT_EQ(m.used(), DeviceMemory::kPageBytes);
}

TEST(ExecProgram, ConstantsAndGlobalsGetAddressesAndInitialBytes) {
  Harness h;
  h.load(R"(
.version 8.0
.target sm_80
.address_size 64
.const .align 4 .b32 table[3] = {7, -1, 300};
.global .align 8 .u64 ptr = generic(table)+4;
.global .align 4 .f32 zeros[100];
.visible .entry k() { ret; }
)");
  auto t = h.program.symbol("table");
  auto p = h.program.symbol("ptr");
  ASSERT_TRUE(t && p);
  EXPECT_EQ(t->second, 12u);
  EXPECT_EQ(t->first % 256, 0u);
  auto bytes = h.read<int32_t>(t->first, 3);
  EXPECT_EQ(bytes, (std::vector<int32_t>{7, -1, 300}));
  EXPECT_EQ(h.read<uint64_t>(p->first, 1)[0], t->first + 4);
  EXPECT_EQ(h.program.module_of("k"), h.module);
  EXPECT_EQ(h.program.module_of("nope"), nullptr);
  EXPECT_EQ(h.program.symbol("zeros")->second, 400u);
}

}  // namespace
}  // namespace ws::exec::test
