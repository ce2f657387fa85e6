// Instruction and header line parsers on hand-written snippets.
#include "frontend/trace_test_util.h"
#include "frontend/trace/trace_parse.h"

namespace ws::frontend {
namespace {

ParsedInst parse(std::string_view line, LineFormat fmt = {}, uint32_t sm = 70) {
  static IsaTable isa70 = IsaTable::load_from(test::isa_dir(), 70);
  static IsaTable isa61 = IsaTable::load_from(test::isa_dir(), 61);
  InstParser ip(sm == 61 ? isa61 : isa70, fmt);
  ParsedInst out;
  ip.parse(line, out, LineCtx{"k.traceg", 7});
  return out;
}

TEST(TraceParse, Version4BaseStride) {
  ParsedInst p = parse("0010 ffffffff 1 R2 LDG.E.64.SYS 1 R4 8 1 0x1000 8");
  const ir::WarpInst& w = p.inst;
  EXPECT_EQ(w.pc, 0x10u);
  EXPECT_EQ(w.active_mask, 0xffffffffu);
  ASSERT_EQ(w.n_dst, 1);
  EXPECT_EQ(w.dst[0], 2);
  ASSERT_EQ(w.n_src, 1);
  EXPECT_EQ(w.src[0], 4);
  EXPECT_EQ(w.kind, ir::OpKind::Load);
  EXPECT_EQ(w.space, ir::MemSpace::Global);
  EXPECT_EQ(w.access_bytes, 8);
  ASSERT_TRUE(p.has_addrs);
  EXPECT_EQ(w.addrs[0], 0x1000u);
  EXPECT_EQ(w.addrs[31], 0x1000u + 31 * 8);
}

TEST(TraceParse, BaseStrideCountsActiveLanesOnly) {
  ParsedInst p = parse("0010 0000000a 0 STG.E 2 R4 R6 4 1 0x2000 4");  // lanes 1 and 3
  EXPECT_EQ(p.inst.kind, ir::OpKind::Store);
  EXPECT_EQ(p.addrs[0], 0u);
  EXPECT_EQ(p.addrs[1], 0x2000u);
  EXPECT_EQ(p.addrs[3], 0x2004u);
}

TEST(TraceParse, AddressList) {
  ParsedInst p = parse("0020 00000005 0 STG.E 2 R4 R6 4 0 0x100 0x200");
  EXPECT_EQ(p.addrs[0], 0x100u);
  EXPECT_EQ(p.addrs[1], 0u);
  EXPECT_EQ(p.addrs[2], 0x200u);
  EXPECT_EQ(p.inst.n_src, 2);
}

TEST(TraceParse, BaseDelta) {
  ParsedInst p = parse("0020 00000007 1 R3 LDG.E 1 R4 4 2 0x1000 4 -8");
  EXPECT_EQ(p.addrs[0], 0x1000u);
  EXPECT_EQ(p.addrs[1], 0x1004u);
  EXPECT_EQ(p.addrs[2], 0xffcu);
}

TEST(TraceParse, LineInfoAddsLeadingLineNumber) {
  ParsedInst p = parse("17 0030 ffffffff 0 EXIT 0 0", LineFormat{4, true, 0, 0});
  EXPECT_EQ(p.line_num, 17u);
  EXPECT_EQ(p.inst.pc, 0x30u);
  EXPECT_EQ(p.inst.kind, ir::OpKind::Exit);
  EXPECT_EQ(p.inst.unit, IsaTable::unit_index("branch"));
}

TEST(TraceParse, OldFormatHasLeadingBlockAndWarp) {
  ParsedInst p = parse("1 2 3 5 0040 ffffffff 1 R1 MOV 0 0", LineFormat{2, false, 0, 0});
  EXPECT_EQ(p.tb[0], 1u);
  EXPECT_EQ(p.tb[2], 3u);
  EXPECT_EQ(p.warp, 5u);
  EXPECT_EQ(p.inst.pc, 0x40u);
  EXPECT_EQ(p.inst.unit, IsaTable::unit_index("int"));
}

TEST(TraceParse, Version5TrailingImmediateAndZeroRegister) {
  ParsedInst p = parse("0050 ffffffff 1 R1 IADD3 2 R2 R255 0 42", LineFormat{5, false, 0, 0});
  EXPECT_EQ(p.immediate, 42);
  ASSERT_EQ(p.inst.n_src, 1);
  EXPECT_EQ(p.inst.src[0], 2);
  ParsedInst m = parse("0060 00000003 1 R1 LDG.E 1 R2 4 1 0x100 4 -7", LineFormat{5, false, 0, 0});
  EXPECT_EQ(m.immediate, -7);
  EXPECT_EQ(m.addrs[1], 0x104u);
}

TEST(TraceParse, GenericAddressesUseHeaderWindows) {
  LineFormat f{4, false, 0x7f0000000000, 0x7e0000000000};
  EXPECT_EQ(parse("0 00000001 1 R1 LD.E 1 R2 4 0 0x7f0000000100", f).inst.space, ir::MemSpace::Shared);
  EXPECT_EQ(parse("0 00000001 1 R1 LD.E 1 R2 4 0 0x7e0000000040", f).inst.space, ir::MemSpace::Local);
  EXPECT_EQ(parse("0 00000001 0 ST.E 2 R2 R3 4 0 0x7f0001000000", f).inst.space, ir::MemSpace::Global);
  EXPECT_EQ(parse("0 00000002 1 R1 ATOM.E.ADD 1 R2 4 0 0x500", f).inst.kind, ir::OpKind::Atomic);
  EXPECT_EQ(classify_generic(0x7f0000000000 + kSharedWindow - 1, f), ir::MemSpace::Shared);
  EXPECT_EQ(classify_generic(0x7f0000000000 + kSharedWindow, f), ir::MemSpace::Global);
}

TEST(TraceParse, AccessSizeFromModifiers) {
  EXPECT_EQ(parse("0 ffffffff 1 R1 LDS.U.128 1 R2 4 1 0x0 16").inst.access_bytes, 16);
  EXPECT_EQ(parse("0 ffffffff 1 R1 LDG.E.U8 1 R2 1 1 0x0 1").inst.access_bytes, 1);
  EXPECT_EQ(parse("0 ffffffff 1 R1 LDG.E.S16 1 R2 2 1 0x0 2").inst.access_bytes, 2);
  EXPECT_EQ(parse("0 ffffffff 0 STL 2 R1 R2 4 1 0x0 4").inst.space, ir::MemSpace::Local);
  EXPECT_EQ(access_bytes_of("ATOM.E.ADD.64"), 8);
}

TEST(TraceParse, MemoryOpcodeWithoutAddressesIsAlu) {
  ParsedInst p = parse("0 ffffffff 1 R1 LDC 1 R2 0");
  EXPECT_EQ(p.inst.kind, ir::OpKind::Alu);
  EXPECT_FALSE(p.has_addrs);
  EXPECT_EQ(p.inst.addrs, nullptr);
}

TEST(TraceParse, PascalOpcodes) {
  EXPECT_EQ(parse("0 ffffffff 1 R3 XMAD.MRG 2 R0 R255 0", {}, 61).inst.unit, IsaTable::unit_index("int"));
  EXPECT_EQ(parse("0 ffffffff 0 SYNC 0 0", {}, 61).inst.kind, ir::OpKind::Branch);
}

// One parser sees hundreds of distinct opcode spellings (its cache grows
// several times) and still resolves each the same way on every later line.
TEST(TraceParse, ManyOpcodeSpellingsResolveConsistently) {
  IsaTable isa = IsaTable::load_from(test::isa_dir(), 70);
  InstParser ip(isa, {});
  ParsedInst out;
  for (int pass = 0; pass < 2; ++pass) {
    for (int k = 0; k < 300; ++k) {
      bool wide = k % 3 == 0, load = k % 2 == 0;
      std::string op = std::string(load ? "LDG.E" : "IMAD") + (wide ? ".64" : ".U8") + ".M" + std::to_string(k);
      std::string line = "0 ffffffff 1 R1 " + op + " 1 R2 " + (load ? "4 1 0x0 4" : "0");
      ip.parse(line, out, LineCtx{"k.traceg", 1});
      ASSERT_EQ(out.inst.kind, load ? ir::OpKind::Load : ir::OpKind::Alu) << op;
      if (load) {
        EXPECT_EQ(out.inst.access_bytes, wide ? 8 : 1) << op;
      }
    }
  }
  std::string msg = test::error_of([&] { ip.parse("0 ffffffff 0 FROB.M1 0 0", out, LineCtx{"k.traceg", 9}); });
  EXPECT_NE(msg.find("FROB"), std::string::npos) << msg;
}

void expect_error(std::string_view line, const char* field, const char* text = "", LineFormat f = {}) {
  std::string msg = test::error_of([&] { parse(line, f); });
  EXPECT_NE(msg.find("k.traceg:7"), std::string::npos) << msg;
  EXPECT_NE(msg.find(std::string("field '") + field + "'"), std::string::npos) << msg;
  EXPECT_NE(msg.find(text), std::string::npos) << msg;
}

TEST(TraceParse, ErrorsNameFileLineAndField) {
  expect_error("0010 zz 0 EXIT 0 0", "mask");
  expect_error("0010 1ffffffff 0 EXIT 0 0", "mask");
  expect_error("0010 ffffffff 0 FROB.X 0 0", "opcode", "FROB");
  expect_error("0010 ffffffff 5 R1 R2 R3 R4 R5 IMAD 0 0", "dst");
  expect_error("0010 ffffffff 1 R1 IMAD 9 R1 R2 R3 R4 R5 R6 R7 R8 R9 0", "src");
  expect_error("0010 ffffffff 1 P0 ISETP 0 0", "dst");
  expect_error("0010 ffffffff 1 R1 LDG.E 1 R2 4 0 0x100", "address");
  expect_error("0010 ffffffff 1 R1 LDG.E 1 R2 4 3 0x100", "address mode");
  expect_error("0010 ffffffff 1 R1 LDG.E 1 R2 4 1 0x100", "stride");
  expect_error("0010 ffffffff 1 R1 MOV 0 0 junk", "line");
  expect_error("0010", "mask", "missing");
  expect_error("0010 ffffffff 1 R1 MOV 0 0", "immediate", "", LineFormat{5, false, 0, 0});
}

// Numbers have a fast path for the common shapes and a checked one for the
// rest: both must read the same values and reject the same tokens.
TEST(TraceParse, UnusualNumberSpellingsReadAsTheirValues) {
  // 0X prefix, 20 hex digits with leading zeros, 13-digit decimal count,
  // register with a leading zero, address with a 0x prefix and 17 digits.
  ParsedInst p = parse("0X0010 00000000000000000003 0000000000001 R007 LDG.E 1 R4 4 0 0x00000000000001000 0x1004");
  EXPECT_EQ(p.inst.pc, 0x10u);
  EXPECT_EQ(p.inst.active_mask, 3u);
  ASSERT_EQ(p.inst.n_dst, 1);
  EXPECT_EQ(p.inst.dst[0], 7);
  EXPECT_EQ(p.addrs[0], 0x1000u);
  EXPECT_EQ(p.addrs[1], 0x1004u);
  EXPECT_EQ(parse("1 1 1 R255 MOV 0 0").inst.n_dst, 0);  // the zero register is dropped
  expect_error("0x 1 0 EXIT 0 0", "pc");
  expect_error("0010 0x1g 0 EXIT 0 0", "mask");
  expect_error("0010 1 0 EXIT 0 +0", "mem width");
  expect_error("0010 1 1 R256 MOV 0 0", "dst", "R256");
  expect_error("0010 1 1 R1000 MOV 0 0", "dst", "R1000");
  expect_error("0010 1 1 R MOV 0 0", "dst");
  expect_error("0010 1 0 EXIT 0 99999999999", "mem width");
  expect_error("0010 11111111111111111 0 EXIT 0 0", "mask");
}

TEST(TraceParse, HeaderLines) {
  TraceHeader h;
  LineCtx c{"k.traceg", 3};
  for (const char* l : {"-kernel name = _Z3fooPf", "-kernel id = 2", "-grid dim = (4,2,1)", "-block dim = (256,1,1)",
                        "-shmem = 1024", "-nregs = 32", "-binary version = 70", "-cuda stream id = 9",
                        "-shmem base_addr = 0x00007f2b5a000000", "-local mem base_addr = 0x00007f2b58000000",
                        "-nvbit version = 1.5.5", "-accelsim tracer version = 5", "-enable lineinfo = 1", "-new key = x"})
    parse_header_line(l, h, c);
  check_header(h, c);
  EXPECT_EQ(h.info.name, "_Z3fooPf");
  EXPECT_EQ(h.info.id, 2u);
  EXPECT_EQ(h.info.grid, (Dim3{4, 2, 1}));
  EXPECT_EQ(h.info.warps_per_cta(), 8u);
  EXPECT_EQ(h.info.shmem_bytes, 1024u);
  EXPECT_EQ(h.info.stream, 9);
  EXPECT_EQ(h.shmem_base, 0x7f2b5a000000u);
  EXPECT_EQ(h.local_base, 0x7f2b58000000u);
  EXPECT_EQ(h.tracer_version, 5u);
  EXPECT_TRUE(h.lineinfo);
  EXPECT_EQ(LineFormat::from(h).shmem_base, h.shmem_base);
}

TEST(TraceParse, HeaderErrors) {
  LineCtx c{"k.traceg", 4};
  TraceHeader h;
  std::string m = test::error_of([&] { parse_header_line("-grid dim = (1,x,1)", h, c); });
  EXPECT_NE(m.find("k.traceg:4: field 'grid dim'"), std::string::npos) << m;
  m = test::error_of([&] { parse_header_line("-block dim = (0,1,1)", h, c); });
  EXPECT_NE(m.find("field 'block dim'"), std::string::npos) << m;
  m = test::error_of([&] { parse_header_line("-shmem base_addr = 0xq", h, c); });
  EXPECT_NE(m.find("field 'shmem base_addr'"), std::string::npos) << m;
  m = test::error_of([&] { parse_header_line("kernel name", h, c); });
  EXPECT_NE(m.find("field 'header'"), std::string::npos) << m;
  m = test::error_of([&] { check_header(h, c); });
  EXPECT_NE(m.find("field 'grid dim'"), std::string::npos) << m;
}

}  // namespace
}  // namespace ws::frontend

namespace ws::frontend {
namespace {

using ir::CacheOp;

// SASS spellings of the cache operators, as nvcc emits them per generation
// (docs/memory-system.md lists the sources), and the ones that name none.
TEST(TraceCacheOp, SassSuffixesNameTheOperator) {
  const std::pair<const char*, CacheOp> cases[] = {
      {"LDG.E.64.SYS", CacheOp::Default},         {"LDG.E", CacheOp::Default},
      {"STG.E.SYS", CacheOp::Default},            {"LDG.E.EL", CacheOp::Default},
      {"LDG.E.EF.128", CacheOp::Streaming},       {"STG.E.EF", CacheOp::Streaming},
      {"LDG.E.LU", CacheOp::LastUse},             {"LDG.E.128.STRONG.GPU", CacheOp::CacheGlobal},
      {"LDG.E.STRONG.SM", CacheOp::CacheAll},     {"LDG.E.STRONG.SYS", CacheOp::Volatile},
      {"STG.E.STRONG.SYS", CacheOp::Volatile},    {"LDG.E.CONSTANT.SYS", CacheOp::NonCoherent},
      {"LDG.E.CI.128", CacheOp::NonCoherent},     {"LDG.E.CG", CacheOp::CacheGlobal},
      {"LD.E.CV", CacheOp::Volatile},             {"LD.E.CS", CacheOp::Streaming},
      {"LDG.E.CA", CacheOp::CacheAll},            {"STG.E.WT", CacheOp::WriteThrough},
      {"STG.E.WB", CacheOp::WriteBack},           {"STG.E.CS", CacheOp::Streaming},
      // Where several are given, the most restrictive wins.
      {"LDG.E.EF.STRONG.GPU", CacheOp::CacheGlobal}, {"LDG.E.EF.CONSTANT", CacheOp::Streaming},
  };
  for (auto [op, want] : cases) EXPECT_EQ(cache_op_of(op), want) << op;
}

TEST(TraceCacheOp, WrittenSuffixesReadBack) {
  for (uint32_t sm : {35u, 61u, 70u, 80u, 90u})
    for (int i = 0; i < ir::kCacheOps; ++i) {
      auto op = static_cast<CacheOp>(i);
      std::string name = std::string("LDG.E.64") + cache_op_suffix(op, sm);
      EXPECT_EQ(cache_op_of(name), op) << name << " (sm_" << sm << ")";
    }
  EXPECT_STREQ(cache_op_suffix(CacheOp::Streaming, 70), ".EF");
  EXPECT_STREQ(cache_op_suffix(CacheOp::Streaming, 61), ".CS");
}

TEST(TraceCacheOp, ParsedMemoryInstructionsCarryIt) {
  EXPECT_EQ(parse("0010 ffffffff 1 R2 LDG.E.STRONG.GPU 1 R4 4 1 0x1000 4").inst.cache_op, CacheOp::CacheGlobal);
  EXPECT_EQ(parse("0010 ffffffff 0 STG.E.EF.64 2 R4 R6 8 1 0x1000 8").inst.cache_op, CacheOp::Streaming);
  EXPECT_EQ(parse("0010 ffffffff 1 R2 LDG.E.CG 1 R4 4 1 0x1000 4", {}, 61).inst.cache_op, CacheOp::CacheGlobal);
  EXPECT_EQ(parse("0010 ffffffff 1 R2 LDG.E.64.SYS 1 R4 8 1 0x1000 8").inst.cache_op, CacheOp::Default);
}

}  // namespace
}  // namespace ws::frontend
