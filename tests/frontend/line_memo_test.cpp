// LineMemo: a trace line seen before is stored as it was the first time,
// without parsing; only its exact text matches, and errors still surface.
#include "frontend/trace/line_memo.h"

#include "frontend/trace_test_util.h"

namespace ws::frontend {
namespace {

namespace fs = std::filesystem;

TEST(LineMemo, FindsOnlyTheExactText) {
  LineMemo m;
  m.remember("0010 ffffffff 1 R4 IADD3 1 R4 0 ", StoredInst{7, 0xffffffffu, 0});
  const StoredInst* s = m.find("0010 ffffffff 1 R4 IADD3 1 R4 0 ");
  ASSERT_TRUE(s);
  EXPECT_EQ(s->proto, 7u);
  EXPECT_EQ(m.find("0010 ffffffff 1 R4 IADD3 1 R4 0"), nullptr);   // one byte shorter
  EXPECT_EQ(m.find("0010 fffffff7 1 R4 IADD3 1 R4 0 "), nullptr);  // another mask
  EXPECT_EQ(m.find(""), nullptr);
}

TEST(LineMemo, StopsRememberingAtItsLimit) {
  LineMemo m;
  for (size_t i = 0; i <= LineMemo::kMaxEntries; ++i) m.remember("line " + std::to_string(i), StoredInst{});
  EXPECT_EQ(m.size(), LineMemo::kMaxEntries);
  EXPECT_TRUE(m.find("line 0"));
  EXPECT_FALSE(m.find("line " + std::to_string(LineMemo::kMaxEntries)));
}

TEST(LineMemo, HashSpreadsShortAndLongLines) {
  // Lines differing in one byte anywhere (inside or past the first 8-byte
  // word, or in the tail) hash apart.
  std::string base = "0050 ffffffff 1 R6 LDG.E.SYS 1 R4 4 1 0x7f1000000000 4 ";
  uint64_t h = LineMemo::hash(base);
  for (size_t i = 0; i < base.size(); ++i) {
    std::string t = base;
    t[i] ^= 1;
    EXPECT_NE(LineMemo::hash(t), h) << i;
  }
  EXPECT_NE(LineMemo::hash(base + " "), h);
}

const char* kHeader =
    "-kernel name = k\n-kernel id = 1\n-grid dim = (2,1,1)\n-block dim = (64,1,1)\n-shmem = 0\n-nregs = 8\n"
    "-binary version = 70\n-cuda stream id = 0\n-shmem base_addr = 0x00007f0000000000\n"
    "-local mem base_addr = 0x00007e0000000000\n-nvbit version = 1.5.5\n-accelsim tracer version = 4\n"
    "-enable lineinfo = 0\n\n#traces format = ...\n\n";

std::unique_ptr<ir::KernelSource> open_kernel(const std::string& name, const std::string& body) {
  fs::path d = test::temp_dir(name);
  test::write_file(d / "kernel-1.traceg", kHeader + body);
  return open_trace_kernel((d / "kernel-1.traceg").string());
}

// Every instance of a repeated line reads back like the first: same opcode
// facts and registers, its own mask; memory lines keep their own addresses.
TEST(LineMemo, RepeatedLinesReadBackAsParsed) {
  const std::string warp_body =
      "insts = 5\n"
      "0010 ffffffff 1 R4 IADD3 2 R4 R5 0 \n"
      "0020 ffffffff 1 R6 LDG.E 1 R4 4 1 0x1000 4\n"
      "0010 ffffffff 1 R4 IADD3 2 R4 R5 0 \n"
      "0010 0000ffff 1 R4 IADD3 2 R4 R5 0 \n"
      "0020 ffffffff 1 R6 LDG.E 1 R4 4 1 0x2000 4\n";
  auto k = open_kernel("repeat", "#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\n" + warp_body + "warp = 1\n" +
                                     warp_body + "#END_TB\n");
  auto cta = k->next_cta();
  ASSERT_TRUE(cta);
  for (uint32_t w = 0; w < 2; ++w) {
    SCOPED_TRACE(w);
    std::vector<ir::WarpInst> got;
    std::vector<Addr> lane3;
    while (const ir::WarpInst* i = cta->next(w)) {
      got.push_back(*i);
      lane3.push_back(i->is_memory() ? i->lane_addr(3) : 0);
    }
    ASSERT_EQ(got.size(), 5u);
    for (size_t n : {0, 2, 3}) {
      EXPECT_EQ(got[n].pc, 0x10u);
      EXPECT_EQ(got[n].kind, ir::OpKind::Alu);
      ASSERT_EQ(got[n].n_dst, 1);
      EXPECT_EQ(got[n].dst[0], 4);
      ASSERT_EQ(got[n].n_src, 2);
      EXPECT_EQ(got[n].src[1], 5);
    }
    EXPECT_EQ(got[2].active_mask, 0xffffffffu);
    EXPECT_EQ(got[3].active_mask, 0x0000ffffu);
    EXPECT_EQ(lane3[1], 0x100cu);
    EXPECT_EQ(lane3[4], 0x200cu);
  }
}

// A line that differs from a remembered one only by trailing text is parsed,
// and its error names its own line.
TEST(LineMemo, NearMissLineIsStillChecked) {
  auto k = open_kernel("nearmiss",
                       "#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 2\n"
                       "0010 ffffffff 0 EXIT 0 0\n0010 ffffffff 0 EXIT 0 0 junk\n#END_TB\n");
  std::string m = test::error_of([&] { k->next_cta(); });
  EXPECT_NE(m.find("kernel-1.traceg:22"), std::string::npos) << m;
  EXPECT_NE(m.find("junk"), std::string::npos) << m;
}

}  // namespace
}  // namespace ws::frontend
