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

TEST(LineMemo, RebasedEntryTakesTheNewBase) {
  LineMemo m;
  std::string a = "0020 ffffffff 1 R6 LDG.E 1 R4 4 1 0x1000 4 ";
  auto tok = LineMemo::base_token(a);
  ASSERT_TRUE(tok);
  m.remember_rebased(a, uint32_t(tok->first), uint32_t(tok->second), 0x1000, StoredInst{3, 0xffffffffu, 0x1000});
  auto s = m.find_rebased("0020 ffffffff 1 R6 LDG.E 1 R4 4 1 0xabc0 4 ");
  ASSERT_TRUE(s);
  EXPECT_EQ(s->proto, 3u);
  EXPECT_EQ(s->where, 0xabc0u);
  EXPECT_FALSE(m.find_rebased("0020 ffffffff 1 R6 LDG.E 1 R4 4 1 0xabc0 8 "));  // another stride
  EXPECT_FALSE(m.find_rebased("0020 ffffffff 1 R7 LDG.E 1 R4 4 1 0xabc0 4 "));  // another register
  EXPECT_FALSE(m.find("0020 ffffffff 1 R6 LDG.E 1 R4 4 1 0x1000 4 "));  // not an exact-text entry
  // A span that is not the last hex token is not remembered.
  m.remember_rebased("0020 ffffffff 1 R6 LDG.E 1 R4 4 1 0x1000 0x4 ", uint32_t(tok->first), uint32_t(tok->second),
                     0x1000, StoredInst{});
  EXPECT_EQ(m.size(), 1u);
}

TEST(LineMemo, BaseTokenIsTheLastHexToken) {
  auto t = LineMemo::base_token("0050 ffffffff 1 R6 LDG.E 1 R4 4 1 0x7f1000000000 4 ");
  ASSERT_TRUE(t);
  EXPECT_EQ(t->first, 34u);
  EXPECT_EQ(t->second, 14u);
  t = LineMemo::base_token("0050 ffffffff 1 R6 LDG.E 1 R4 4 0 0x10 0x20");
  ASSERT_TRUE(t);
  EXPECT_EQ(t->first, 39u);  // the last one
  EXPECT_FALSE(LineMemo::base_token("0010 ffffffff 0 EXIT 0 0"));
  EXPECT_FALSE(LineMemo::base_token("0010 ffffffff 0 EXIT 0 10x5"));  // not a token start
}

// Lines that differ from a remembered base-and-stride line only in the base
// take their own base (partial masks too); a generic access is classified by
// its own address; an unusually spelled base (20 digits) reads as its value.
TEST(LineMemo, RebasedLinesKeepTheirOwnAddressesAndSpaces) {
  auto k = open_kernel(
      "rebase",
      "#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 7\n"
      "0020 0000fff0 1 R6 LDG.E 1 R4 4 1 0x1000 8\n"
      "0020 0000fff0 1 R6 LDG.E 1 R4 4 1 0x2000 8\n"
      "0020 0000fff0 1 R6 LDG.E 1 R4 4 1 0x00000000000000003000 8\n"
      "0020 0000fff0 1 R6 LDG.E 1 R4 4 1 0x4000 -8\n"
      "0030 ffffffff 1 R6 LD.E 1 R4 4 1 0x00007f0000000010 4\n"
      "0030 ffffffff 1 R6 LD.E 1 R4 4 1 0x0000000000005000 4\n"
      "0030 ffffffff 1 R6 LD.E 1 R4 4 1 0x00007e0000000040 4\n"
      "#END_TB\n");
  auto cta = k->next_cta();
  ASSERT_TRUE(cta);
  std::vector<ir::WarpInst> got;
  while (const ir::WarpInst* i = cta->next(0)) got.push_back(*i);
  ASSERT_EQ(got.size(), 7u);
  Addr bases[4] = {0x1000, 0x2000, 0x3000, 0x4000};
  for (int n = 0; n < 4; ++n) {
    SCOPED_TRACE(n);
    int64_t stride = n == 3 ? -8 : 8;
    EXPECT_EQ(got[n].active_mask, 0x0000fff0u);
    EXPECT_EQ(got[n].lane_addr(4), bases[n]);
    EXPECT_EQ(got[n].lane_addr(15), bases[n] + static_cast<Addr>(11 * stride));
    EXPECT_EQ(got[n].space, ir::MemSpace::Global);
  }
  EXPECT_EQ(got[4].space, ir::MemSpace::Shared);
  EXPECT_EQ(got[5].space, ir::MemSpace::Global);
  EXPECT_EQ(got[6].space, ir::MemSpace::Local);
  EXPECT_EQ(got[5].lane_addr(31), 0x5000u + 31 * 4);
}

// A rebased lookup only stands in for lines the parser would accept: a bad
// base token is reported by the parser, on its own line.
TEST(LineMemo, BadBaseAfterARememberedLineIsStillAnError) {
  auto k = open_kernel("badbase",
                       "#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 2\n"
                       "0020 ffffffff 1 R6 LDG.E 1 R4 4 1 0x1000 4\n0020 ffffffff 1 R6 LDG.E 1 R4 4 1 0x10g0 4\n"
                       "#END_TB\n");
  std::string m = test::error_of([&] { k->next_cta(); });
  EXPECT_NE(m.find("kernel-1.traceg:22"), std::string::npos) << m;
  EXPECT_NE(m.find("field 'address'"), std::string::npos) << m;
}

}  // namespace
}  // namespace ws::frontend
