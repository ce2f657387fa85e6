#include "frontend/fatbin/fatbin.h"

#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <iterator>

#include "common/error.h"

namespace ws::fatbin {
namespace {

std::vector<uint8_t> fixture(const std::string& name) {
  std::string path = std::string(WARPSIM_SOURCE_DIR) + "/tests/frontend/data/fatbin/" + name;
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in) << path;
  return {std::istreambuf_iterator<char>(in), {}};
}

// The registered container follows nvcc's device-link container.
std::span<const uint8_t> registered(const std::vector<uint8_t>& section) {
  uint64_t first = 16 + [&] { uint64_t v; std::memcpy(&v, section.data() + 8, 8); return v; }();
  return std::span<const uint8_t>(section).subspan(first);
}

std::string only_ptx(const std::string& file) {
  auto bytes = fixture(file);
  auto entries = parse_container(registered(bytes), file);
  EXPECT_EQ(entries.size(), 1u);
  EXPECT_EQ(entries[0].kind, EntryKind::Ptx);
  EXPECT_EQ(entries[0].arch, 80u);
  EXPECT_EQ(entries[0].ptx_major, 9);
  return entry_text(entries[0], file);
}

TEST(Fatbin, PlainLz4AndZstdGiveTheSamePtx) {
  std::string plain = only_ptx("none.bin");
  EXPECT_NE(plain.find(".entry _Z4axpbPfPKffi"), std::string::npos);
  EXPECT_NE(plain.find(".const .align 4 .b8 coeff[16]"), std::string::npos);
  EXPECT_EQ(plain.back(), '\n');
  EXPECT_EQ(only_ptx("speed.bin"), plain);
  EXPECT_EQ(only_ptx("default.bin"), plain);
}

TEST(Fatbin, CompressionIsReadFromTheFlags) {
  auto lz4 = fixture("speed.bin"), zstd = fixture("default.bin"), none = fixture("none.bin");
  EXPECT_EQ(parse_container(registered(lz4), "lz4")[0].compression, Compression::Lz4);
  EXPECT_EQ(parse_container(registered(zstd), "zstd")[0].compression, Compression::Zstd);
  EXPECT_EQ(parse_container(registered(none), "none")[0].compression, Compression::None);
}

TEST(Fatbin, LargerEntryHeadersAreSkippedByTheirStoredSize) {
  auto bytes = fixture("debug.bin");
  auto entries = parse_container(registered(bytes), "debug");
  ASSERT_EQ(entries.size(), 1u);
  EXPECT_EQ(entries[0].offset + 0x80, static_cast<uint64_t>(entries[0].payload.data() - registered(bytes).data()));
  EXPECT_NE(entry_text(entries[0], "debug").find(".entry _Z4axpbPfPKffi"), std::string::npos);
}

TEST(Fatbin, SeveralArchitecturesAndPtxSelection) {
  auto bytes = fixture("multi.bin");
  auto entries = parse_container(registered(bytes), "multi");
  ASSERT_EQ(entries.size(), 4u);
  std::vector<uint32_t> ptx_archs;
  for (const Entry& e : entries)
    if (e.kind == EntryKind::Ptx) ptx_archs.push_back(e.arch);
  EXPECT_EQ(ptx_archs, (std::vector<uint32_t>{75, 86, 90}));
  EXPECT_EQ(entries[3].kind, EntryKind::Elf);
  EXPECT_EQ(entries[3].arch, 90u);
  EXPECT_EQ(entries[select_ptx(entries, 70)].arch, 75u);   // none <= 70: the lowest
  EXPECT_EQ(entries[select_ptx(entries, 80)].arch, 75u);
  EXPECT_EQ(entries[select_ptx(entries, 86)].arch, 86u);
  EXPECT_EQ(entries[select_ptx(entries, 120)].arch, 90u);
  for (int i = 0; i < 3; ++i) EXPECT_NE(entry_text(entries[i], "multi").find(".entry"), std::string::npos);
  EXPECT_EQ(select_ptx({entries[3]}, 90), -1);
}

TEST(Fatbin, WrapperPointsAtTheContainer) {
  auto bytes = fixture("speed.bin");
  auto container = registered(bytes);
  struct {
    uint32_t magic, version;
    const void* data;
    void* unused;
  } wrapper{kWrapperMagic, 1, container.data(), nullptr};
  auto span = container_of_wrapper(&wrapper, "w");
  EXPECT_EQ(span.data(), container.data());
  EXPECT_EQ(span.size(), container.size());
  wrapper.magic = 0x12345678;
  EXPECT_THROW(container_of_wrapper(&wrapper, "w"), InputError);
}

TEST(Fatbin, MalformedContainersAreRejectedClearly) {
  auto bytes = fixture("speed.bin");
  std::vector<uint8_t> c(registered(bytes).begin(), registered(bytes).end());
  auto expect_error = [](std::vector<uint8_t> b, const std::string& needle) {
    try {
      auto entries = parse_container(b, "fatbin #1");
      for (const Entry& e : entries) entry_text(e, "fatbin #1");
      ADD_FAILURE() << "no error, expected " << needle;
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("fatbin #1"), std::string::npos) << e.what();
    }
  };
  auto bad_magic = c;
  bad_magic[0] ^= 0xff;
  expect_error(bad_magic, "bad fatbin magic");
  expect_error({c.begin(), c.begin() + 8}, "truncated");
  expect_error({c.begin(), c.end() - 64}, "exceed");
  auto bad_kind = c;
  bad_kind[16] = 7;
  expect_error(bad_kind, "unknown entry kind 7");
  auto huge_entry = c;
  huge_entry[16 + 8 + 3] = 0x10;  // entry payload size far past the end
  expect_error(huge_entry, "run past the container");
  auto corrupt = c;
  for (size_t i = 16 + 0x50; i < 16 + 0x50 + 40; ++i) corrupt[i] = 0xff;
  expect_error(corrupt, "LZ4 decompression failed");
  auto wrong_size = c;
  wrong_size[16 + 0x38] += 1;  // uncompressed size off by one
  expect_error(wrong_size, "expected");
}

}  // namespace
}  // namespace ws::fatbin

// The extracted PTX goes straight into the parser, and the kernel's
// parameter list drives the launch's parameter buffer.
#include "exec/runtime/kernel_params.h"
#include "frontend/ptx/parser.h"

namespace ws::fatbin {
namespace {

TEST(Fatbin, ExtractedPtxParsesAndLaysOutKernelParameters) {
  auto bytes = fixture("default.bin");
  auto entries = parse_container(registered(bytes), "default.bin");
  ptx::Module m = ptx::parse_module(entry_text(entries[0], "default.bin"), "default.bin");
  const ptx::Function* k = m.find_function("_Z4axpbPfPKffi");  // axpb(float* y, const float* x, float a, int n)
  ASSERT_NE(k, nullptr);
  ASSERT_EQ(k->params.size(), 4u);
  EXPECT_EQ(k->params[1].offset, 8u);
  EXPECT_EQ(k->params[2].offset, 16u);
  EXPECT_EQ(k->params[3].offset, 20u);
  ASSERT_NE(m.find_global("coeff"), nullptr);
  ASSERT_NE(m.find_global("hits"), nullptr);
  uint64_t y = 0x1000, x = 0x2000;
  float a = 1.5f;
  int n = 77;
  void* args[] = {&y, &x, &a, &n};
  std::vector<uint8_t> buf = runtime::pack_kernel_params(*k, args);
  ASSERT_EQ(buf.size(), 24u);
  float got_a;
  int got_n;
  std::memcpy(&got_a, buf.data() + 16, 4);
  std::memcpy(&got_n, buf.data() + 20, 4);
  EXPECT_EQ(got_a, 1.5f);
  EXPECT_EQ(got_n, 77);
}

}  // namespace
}  // namespace ws::fatbin
