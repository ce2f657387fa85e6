// Whole-file reading: folders, lists, .xz streaming and file-level errors.
#include <cstdlib>

#include "frontend/trace_test_util.h"
#include "frontend/trace/synth.h"
#include "frontend/trace/trace_writer.h"

namespace ws::frontend {
namespace {

namespace fs = std::filesystem;

const char* kHeader =
    "-kernel name = k\n-kernel id = 1\n-grid dim = (2,1,1)\n-block dim = (64,1,1)\n-shmem = 0\n-nregs = 8\n"
    "-binary version = 70\n-cuda stream id = 0\n-shmem base_addr = 0x00007f0000000000\n"
    "-local mem base_addr = 0x00007e0000000000\n-nvbit version = 1.5.5\n-accelsim tracer version = 4\n"
    "-enable lineinfo = 0\n\n#traces format = ...\n\n";

// Lines 1-16 are the header; the body's first line is line 17.
std::string tb(int x, const char* extra = "") {
  return "#BEGIN_TB\nthread block = " + std::to_string(x) +
         ",0,0\nwarp = 0\ninsts = 2\n0000 ffffffff 1 R1 LDG.E 1 R2 4 1 0x1000 4\n\n0010 ffffffff 0 EXIT 0 0\n"
         "warp = 1\ninsts = 1\n0000 ffffffff 0 EXIT 0 0\n" + extra + "#END_TB\n";
}

fs::path make_trace(const std::string& name, const std::string& body, const std::string& list_extra = "") {
  fs::path d = test::temp_dir(name);
  test::write_file(d / "kernel-1.traceg", kHeader + body);
  test::write_file(d / "kernelslist.g", "MemcpyHtoD,0x00007f1000000000,4096\n" + list_extra + "kernel-1.traceg\n");
  return d;
}

TEST(TraceReader, ReadsCtasWarpsAndCommands) {
  fs::path d = make_trace("ok", tb(0) + "\n" + tb(1), "# a comment line\n");
  auto wl = open_trace_workload(d.string());
  EXPECT_EQ(wl->kernel_count(), 1u);
  auto c = wl->next();
  ASSERT_TRUE(c && std::holds_alternative<ir::MemcpyHtoD>(*c));
  EXPECT_EQ(std::get<ir::MemcpyHtoD>(*c).dst, 0x7f1000000000u);
  EXPECT_EQ(std::get<ir::MemcpyHtoD>(*c).bytes, 4096u);
  auto k = std::get<std::unique_ptr<ir::KernelSource>>(std::move(*wl->next()));
  auto cta = k->next_cta();
  ASSERT_TRUE(cta);
  EXPECT_EQ(cta->num_warps(), 2u);
  const ir::WarpInst* i = cta->next(0);
  ASSERT_TRUE(i);
  EXPECT_EQ(i->lane_addr(2), 0x1008u);
  EXPECT_EQ(cta->next(0)->kind, ir::OpKind::Exit);
  EXPECT_EQ(cta->next(0), nullptr);
  auto cta2 = k->next_cta();
  ASSERT_TRUE(cta2);
  EXPECT_EQ(cta2->cta_id(), (Dim3{1, 0, 0}));
  EXPECT_EQ(cta->next(1)->kind, ir::OpKind::Exit);  // the first CTA's data outlives reading the next
  EXPECT_EQ(k->next_cta(), nullptr);
  EXPECT_FALSE(wl->next());
}

void expect_read_error(const fs::path& d, const std::string& where, const char* field) {
  std::string m = test::error_of([&] {
    auto wl = open_trace_workload(d.string());
    test::count_workload(*wl);
  });
  EXPECT_NE(m.find(where + (where.back() == ':' ? "" : ":")), std::string::npos) << m;
  EXPECT_NE(m.find(std::string("field '") + field + "'"), std::string::npos) << m;
}

TEST(TraceReader, TruncatedInsideThreadBlock) {
  std::string body = tb(0);
  body = body.substr(0, body.find("warp = 1"));
  expect_read_error(make_trace("trunc", body), "kernel-1.traceg:", "thread block");
}

TEST(TraceReader, FewerInstructionLinesThanCount) {
  std::string body = tb(0) + tb(1);
  body.replace(body.find("insts = 2"), 9, "insts = 3");
  expect_read_error(make_trace("short", body), "kernel-1.traceg:24", "insts");
}

TEST(TraceReader, EndOfFileInsideWarpBlock) {
  std::string body = tb(0);
  body = body.substr(0, body.find("\n0010"));
  expect_read_error(make_trace("eofwarp", body), "kernel-1.traceg:", "insts");
}

TEST(TraceReader, MissingThreadBlocks) {
  expect_read_error(make_trace("fewtb", tb(0)), "kernel-1.traceg:", "thread block");
}

TEST(TraceReader, BadInstructionLineNamesItsLine) {
  std::string body = tb(0) + tb(1);
  body.replace(body.find("0010 ffffffff"), 13, "0010 fffffffg");
  expect_read_error(make_trace("badmask", body), "kernel-1.traceg:23", "mask");
}

TEST(TraceReader, WarpOutOfRange) {
  std::string body = tb(0);
  body.replace(body.find("warp = 1"), 8, "warp = 2");
  expect_read_error(make_trace("warp", body), "kernel-1.traceg:24", "warp");
}

// Issue 17 item 13: records that contradict the header were accepted.
TEST(TraceReader, ThreadBlockOutsideTheGrid) {
  expect_read_error(make_trace("tbgrid", tb(0) + tb(2)), "kernel-1.traceg:29", "thread block");
}

TEST(TraceReader, ThreadBlockListedTwice) {
  expect_read_error(make_trace("tbtwice", tb(0) + tb(0)), "kernel-1.traceg:29", "thread block");
}

TEST(TraceReader, WarpListedTwice) {
  // Lines 24-26 hold warp 1; its second listing is line 27.
  std::string body = tb(0, "warp = 1\ninsts = 1\n0000 ffffffff 0 EXIT 0 0\n") + tb(1);
  expect_read_error(make_trace("warptwice", body), "kernel-1.traceg:27", "warp");
}

// A 48-thread block: warp 1 has lanes 0-15 only.
std::string header_with_block(const char* block) {
  std::string h = kHeader;
  h.replace(h.find("(64,1,1)"), 8, block);
  return h;
}

TEST(TraceReader, ActiveLanesBeyondTheBlockThreads) {
  fs::path d = make_trace("lanes", tb(0) + tb(1));
  test::write_file(d / "kernel-1.traceg", header_with_block("(48,1,1)") + tb(0) + tb(1));
  expect_read_error(d, "kernel-1.traceg:26", "mask");  // warp 1's EXIT with mask ffffffff
  // The same line as a full warp's (remembered, not parsed again) is checked too.
  std::string body = tb(0);
  body.replace(body.find("0000 ffffffff 0 EXIT"), 4, "0010");
  test::write_file(d / "kernel-1.traceg", header_with_block("(48,1,1)") + body + tb(1));
  expect_read_error(d, "kernel-1.traceg:26", "mask");
  // Lanes 0-15 only: accepted.
  std::string ok = tb(0) + tb(1);
  for (size_t at = ok.find("0000 ffffffff 0 EXIT"); at != std::string::npos; at = ok.find("0000 ffffffff 0 EXIT"))
    ok.replace(at + 5, 8, "0000ffff");
  test::write_file(d / "kernel-1.traceg", header_with_block("(48,1,1)") + ok);
  EXPECT_EQ(test::count_workload(*open_trace_workload(d.string())), 6u);
}

TEST(TraceReader, BlockAndGridOverCudaLimits) {
  fs::path d = make_trace("limits", tb(0));
  for (const char* block : {"(2048,1,1)", "(1,1,65)", "(64,32,1)"}) {
    test::write_file(d / "kernel-1.traceg", header_with_block(block) + tb(0));
    expect_read_error(d, "kernel-1.traceg:4", "block dim");
  }
  std::string h = kHeader;
  h.replace(h.find("(2,1,1)"), 7, "(2,65536,1)");
  test::write_file(d / "kernel-1.traceg", h + tb(0));
  expect_read_error(d, "kernel-1.traceg:3", "grid dim");
}

TEST(TraceReader, UnknownTracerVersion) {
  fs::path d = make_trace("tracer99", tb(0));
  for (const char* v : {"99", "2", "6"}) {
    std::string h = kHeader;
    h.replace(h.find("tracer version = 4"), 18, std::string("tracer version = ") + v);
    test::write_file(d / "kernel-1.traceg", h + tb(0) + tb(1));
    expect_read_error(d, "kernel-1.traceg:12", "accelsim tracer version");
  }
}

// Issue 17 item 8: a copy the GPU cannot hold spun for hours warming the L2.
TEST(TraceReader, CopyLargerThanTheGpuMemory) {
  fs::path d = make_trace("hugecopy", tb(0) + tb(1));
  const uint64_t gib32 = uint64_t{32} << 30;
  for (const char* bytes : {"1099511627776", "18446744073709551615"}) {
    test::write_file(d / "kernelslist.g", std::string("MemcpyHtoD,0x1000,400\nMemcpyHtoD,0x0,") + bytes +
                                              "\nkernel-1.traceg\n");
    std::string m = test::error_of([&] { open_trace_workload(d.string(), gib32); });
    EXPECT_NE(m.find("kernelslist.g:2: field 'memcpy'"), std::string::npos) << m;
    EXPECT_NE(m.find("gpu.memory_gb"), std::string::npos) << m;
  }
  // Past the end of the address space, whatever the memory size.
  test::write_file(d / "kernelslist.g", "MemcpyHtoD,0xffffffffffffff00,512\nkernel-1.traceg\n");
  std::string m = test::error_of([&] { open_trace_workload(d.string()); });
  EXPECT_NE(m.find("kernelslist.g:1: field 'memcpy'"), std::string::npos) << m;
  // A copy of exactly the memory size is fine.
  test::write_file(d / "kernelslist.g", "MemcpyHtoD,0x0,34359738368\nkernel-1.traceg\n");
  EXPECT_NO_THROW(open_trace_workload(d.string(), gib32));
}

TEST(TraceReader, BadHeader) {
  fs::path d = make_trace("hdr", tb(0));
  std::string h = kHeader;
  h.replace(h.find("(64,1,1)"), 8, "(64,1)");
  test::write_file(d / "kernel-1.traceg", h + tb(0));
  expect_read_error(d, "kernel-1.traceg:4", "block dim");
}

TEST(TraceReader, MissingKernelFileAndList) {
  fs::path d = make_trace("missing", tb(0), "kernel-7.traceg\n");
  std::string m = test::error_of([&] { open_trace_workload(d.string()); });
  EXPECT_NE(m.find("kernelslist.g:2: field 'kernel'"), std::string::npos) << m;
  EXPECT_NE(m.find("kernel-7.traceg"), std::string::npos) << m;
  m = test::error_of([&] { open_trace_workload((d / "nope").string()); });
  EXPECT_NE(m.find("nope"), std::string::npos) << m;
  test::write_file(d / "kernelslist.g", "MemcpyHtoD,0xzz,12\n");
  m = test::error_of([&] { open_trace_workload(d.string()); });
  EXPECT_NE(m.find("kernelslist.g:1: field 'memcpy'"), std::string::npos) << m;
}

TEST(TraceReader, UnknownBinaryVersionNamesTheTableFile) {
  fs::path d = make_trace("sm42", tb(0));
  std::string h = kHeader;
  h.replace(h.find("version = 70"), 12, "version = 42");
  test::write_file(d / "kernel-1.traceg", h + tb(0));
  std::string m = test::error_of([&] { test::count_workload(*open_trace_workload(d.string())); });
  EXPECT_NE(m.find("sm_42.toml"), std::string::npos) << m;
}

TEST(TraceReader, StreamsXzCompressedKernels) {
  if (std::system("xz --version > /dev/null 2>&1") != 0) GTEST_SKIP() << "xz tool not found";
  fs::path d = make_trace("xz", tb(0) + tb(1));
  ASSERT_EQ(std::system(("xz -z " + (d / "kernel-1.traceg").string()).c_str()), 0);
  test::write_file(d / "kernelslist.g", "kernel-1.traceg.xz\n");
  EXPECT_EQ(test::count_workload(*open_trace_workload(d.string())), 6u);
  // A truncated .xz is an error, not a silent short read.
  std::string xz = d / "kernel-1.traceg.xz";
  fs::resize_file(xz, fs::file_size(xz) - 20);
  std::string m = test::error_of([&] { test::count_workload(*open_trace_workload(d.string())); });
  EXPECT_NE(m.find("kernel-1.traceg.xz"), std::string::npos) << m;
}

TEST(TraceReader, LargeXzStreamsAcrossBufferBoundaries) {
  if (std::system("xz --version > /dev/null 2>&1") != 0) GTEST_SKIP() << "xz tool not found";
  SynthSpec s{.kind = "stream", .ctas = 16, .threads_per_cta = 256, .iterations = 200};
  fs::path d = test::temp_dir("xzbig");
  write_synthetic(s, d.string());
  ASSERT_EQ(std::system(("xz -z -T1 " + (d / "kernel-1.traceg").string()).c_str()), 0);
  test::write_file(d / "kernelslist.g", "kernel-1.traceg.xz\n");
  EXPECT_EQ(test::count_workload(*open_trace_workload(d.string())), synth_instruction_count(s));
}

}  // namespace
}  // namespace ws::frontend
