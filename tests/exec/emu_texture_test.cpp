// Texture sampling math (addressing, 9-bit filter weights, formats) with
// hand-computed values, and `tex` through the emulator.
#include <bit>

#include "exec/emu_test_util.h"
#include "exec/texture.h"

namespace ws::exec::test {
namespace {

float as_float(uint32_t bits) { return std::bit_cast<float>(bits); }

// A 1D float texture [10, 20, 30, 40] in device memory.
struct Texture1D {
  DeviceMemory mem;
  TextureObject t;
  explicit Texture1D(AddressMode mode, FilterMode filter, bool normalized) {
    float texels[4] = {10, 20, 30, 40};
    Addr a = *mem.allocate(sizeof texels);
    mem.write(a, texels, sizeof texels);
    t.resource.base = a;
    t.resource.width = 4;
    t.sampler.address[0] = mode;
    t.sampler.filter = filter;
    t.sampler.normalized_coords = normalized;
  }
  float at(float x) {
    float c[3] = {x, 0, 0};
    return as_float(sample(t, mem, c).v[0]);
  }
};

TEST(Texture, AddressModesMapIndices) {
  EXPECT_EQ(texel_index(-1, 4, AddressMode::Clamp), 0);
  EXPECT_EQ(texel_index(9, 4, AddressMode::Clamp), 3);
  EXPECT_EQ(texel_index(-1, 4, AddressMode::Wrap), 3);
  EXPECT_EQ(texel_index(9, 4, AddressMode::Wrap), 1);
  // Mirror repeats 0 1 2 3 3 2 1 0 with period 8: 4 -> 3, -1 -> 0, 9 -> 1, 6 -> 1.
  EXPECT_EQ(texel_index(4, 4, AddressMode::Mirror), 3);
  EXPECT_EQ(texel_index(-1, 4, AddressMode::Mirror), 0);
  EXPECT_EQ(texel_index(9, 4, AddressMode::Mirror), 1);
  EXPECT_EQ(texel_index(6, 4, AddressMode::Mirror), 1);
  EXPECT_EQ(texel_index(4, 4, AddressMode::Border), -1);
  EXPECT_EQ(texel_index(2, 4, AddressMode::Border), 2);
}

TEST(Texture, FilterWeightsHaveEightFractionalBits) {
  EXPECT_EQ(filter_weight(0.5f), 0.5f);
  EXPECT_EQ(filter_weight(1.0f / 3), 85.0f / 256);  // 85.33 rounds to 85
  EXPECT_EQ(filter_weight(0.999f), 1.0f);            // 255.7 rounds up to 256/256
  EXPECT_EQ(filter_weight(0.001f), 0.0f);
}

TEST(Texture, PointSamplingTakesTheFloor) {
  Texture1D tex(AddressMode::Clamp, FilterMode::Point, false);
  EXPECT_EQ(tex.at(2.7f), 30);
  EXPECT_EQ(tex.at(-3), 10);   // clamped
  EXPECT_EQ(tex.at(99), 40);
}

TEST(Texture, LinearFilteringBlendsAroundTheTexelCentre) {
  Texture1D tex(AddressMode::Clamp, FilterMode::Linear, false);
  EXPECT_EQ(tex.at(1.0f), 15);   // xB = 0.5 between T[0] and T[1]
  EXPECT_EQ(tex.at(2.5f), 30);   // a texel centre is the texel
  EXPECT_EQ(tex.at(0.0f), 10);   // T[-1] clamps to T[0]
  // xB = 1/3: weight 85/256, not 1/3.
  EXPECT_FLOAT_EQ(tex.at(0.5f + 1.0f / 3), 10 + 10 * 85.0f / 256);
}

TEST(Texture, BorderWrapAndMirror) {
  Texture1D border(AddressMode::Border, FilterMode::Linear, false);
  border.t.sampler.border[0] = 0;
  EXPECT_EQ(border.at(0.0f), 5);  // half the border (0), half T[0]
  Texture1D wrap(AddressMode::Wrap, FilterMode::Point, true);
  EXPECT_EQ(wrap.at(1.1f), 10);   // u = 4.4: texel 4 wraps to 0
  EXPECT_EQ(wrap.at(-0.1f), 40);  // u = -0.4: texel -1 wraps to 3
  Texture1D mirror(AddressMode::Mirror, FilterMode::Point, true);
  EXPECT_EQ(mirror.at(1.1f), 40);  // texel 4 mirrors to 3
  EXPECT_EQ(mirror.at(-0.1f), 10);
  Texture1D wrap_linear(AddressMode::Wrap, FilterMode::Linear, true);
  EXPECT_EQ(wrap_linear.at(0.0f), 25);  // T[3] and T[0] half each
  Texture1D unnormalized(AddressMode::Wrap, FilterMode::Point, false);
  EXPECT_EQ(unnormalized.at(5.5f), 40);  // wrap needs normalized coordinates: clamps
}

TEST(Texture, BilinearAndFormats) {
  DeviceMemory mem;
  float texels[4] = {0, 1, 2, 3};  // rows {0, 1} and {2, 3}, pitch 8
  TextureObject t;
  t.resource.base = *mem.allocate(16);
  mem.write(t.resource.base, texels, 16);
  t.resource.dims = 2, t.resource.width = 2, t.resource.height = 2, t.resource.pitch = 8;
  t.sampler.filter = FilterMode::Linear;
  float mid[3] = {1, 1, 0};
  TexelResult r = sample(t, mem, mid);
  EXPECT_EQ(as_float(r.v[0]), 1.5f);
  EXPECT_EQ(r.first_texel, t.resource.base);
  float corner[3] = {1.5f, 1.5f, 0};  // centre of texel (1, 1)
  r = sample(t, mem, corner);
  EXPECT_EQ(as_float(r.v[0]), 3.0f);

  // 8-bit channels read as normalized floats: unsigned / 255, signed / 127 clamped at -1.
  TextureObject u8;
  u8.resource.base = *mem.allocate(4);
  uint8_t bytes[4] = {255, 51, 0x80, 0x81};
  mem.write(u8.resource.base, bytes, 4);
  u8.resource.width = 1;
  u8.resource.format = TexelFormat{ChannelKind::Unsigned, 4, 1};
  u8.sampler.normalized_read = true;
  float zero[3] = {0, 0, 0};
  r = sample(u8, mem, zero);
  EXPECT_EQ(as_float(r.v[0]), 1.0f);
  EXPECT_FLOAT_EQ(as_float(r.v[1]), 0.2f);
  u8.resource.format.kind = ChannelKind::Signed;
  r = sample(u8, mem, zero);
  EXPECT_EQ(as_float(r.v[2]), -1.0f);  // -128 / 127 clamps
  EXPECT_EQ(as_float(r.v[3]), -1.0f);  // -127 / 127
  // Element reads of signed 8-bit channels sign-extend.
  u8.sampler.normalized_read = false;
  r = sample(u8, mem, zero);
  EXPECT_EQ(r.v[0], 0xffffffffu);
  EXPECT_EQ(r.v[2], static_cast<uint32_t>(-128));
}

TEST(Texture, IntegerFetchOutsideALinearBufferReadsZero) {
  DeviceMemory mem;
  int32_t data[2] = {-5, 7};
  TextureObject t;
  t.resource.base = *mem.allocate(8);
  mem.write(t.resource.base, data, 8);
  t.resource.width = 2, t.resource.linear = true;
  t.resource.format = TexelFormat{ChannelKind::Signed, 1, 4};
  int32_t in[3] = {1, 0, 0}, out[3] = {2, 0, 0}, neg[3] = {-1, 0, 0};
  EXPECT_EQ(fetch(t, mem, in).v[0], 7u);
  EXPECT_EQ(fetch(t, mem, out).v[0], 0u);
  EXPECT_EQ(fetch(t, mem, neg).v[0], 0u);
  TextureTable table;
  uint64_t h = table.create(t);
  EXPECT_EQ(h, 1u);
  EXPECT_NE(table.find(h), nullptr);
  EXPECT_TRUE(table.destroy(h));
  EXPECT_EQ(table.find(h), nullptr);
  EXPECT_EQ(table.create(t), 2u);  // handles are never reused
}

const char* kTexKernel = R"(
    ld.param.u64 %rd1, [tex];
    ld.param.u64 %rd2, [out];
    mov.u32 %r1, %tid.x;
    cvt.rn.f32.u32 %f1, %r1;
    mov.f32 %f2, 0f3F000000;
    tex.2d.v4.f32.f32 {%f3, %f4, %f5, %f6}, [%rd1, {%f1, %f2}];
    tex.1d.v4.s32.s32 {%r2, %r3, %r4, %r5}, [%rd1, {%r1}];
    mul.wide.u32 %rd3, %r1, 8;
    add.u64 %rd4, %rd2, %rd3;
    st.global.f32 [%rd4], %f3;
    st.global.f32 [%rd4+4], %f6;
)";

TEST(EmuTexture, TexInstructionSamplesThroughTheTable) {
  Harness h;
  TextureTable table;
  h.emu.set_textures(&table);
  std::vector<float> texels = {0, 1, 2, 3, 4, 5, 6, 7};  // 4 x 2, pitch 16
  TextureObject t;
  t.resource.base = h.buffer(texels);
  t.resource.dims = 2, t.resource.width = 4, t.resource.height = 2, t.resource.pitch = 16;
  t.sampler.filter = FilterMode::Linear;
  uint64_t handle = table.create(t);
  Addr out = h.buffer(std::vector<float>(8, -1));
  h.load(kernel_ptx("k", ".param .u64 tex, .param .u64 out", kTexKernel));
  LaunchResult r = h.launch("k", Dim3{1, 1, 1}, Dim3{4, 1, 1}, handle, out);
  ASSERT_TRUE(r.ok) << r.error;
  auto v = h.read<float>(out, 8);
  // y = 0.5 is row 0's centre; x = i lies halfway between texels i-1 and i (clamped at 0).
  EXPECT_EQ(v[0], 0.0f);
  EXPECT_EQ(v[2], 0.5f);
  EXPECT_EQ(v[4], 1.5f);
  EXPECT_EQ(v[6], 2.5f);
  EXPECT_EQ(v[1], 0.0f);  // missing channels read 0

  LaunchResult bad = h.launch("k", Dim3{1, 1, 1}, Dim3{4, 1, 1}, uint64_t{99}, out);
  EXPECT_FALSE(bad.ok);
  EXPECT_NE(bad.error.find("invalid texture object 99"), std::string::npos) << bad.error;
}

}  // namespace
}  // namespace ws::exec::test
