// The PTX parser on hand-written text: forms nvcc emits less often, and the
// errors (each names the file and the line of the fault).
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>

#include "common/error.h"
#include "frontend/ptx_test_util.h"

namespace ws::ptx {
namespace {

using test::function;
using test::inst;
using test::parse_error;
using test::reg;
using K = Operand::Kind;

const char* kHeader = ".version 8.5\n.target sm_90a, texmode_independent\n.address_size 64\n";

TEST(PtxSyntax, ModuleDirectivesAndDebugSections) {
  std::string text = std::string(kHeader) +
                     ".file 1 \"/tmp/a.cu\", 1700000000, 1234\n"
                     "/* a block\n comment */ .pragma \"nounroll\";\n"
                     ".visible .entry k()\n{\n.loc 1 5 3\nret;\n}\n"
                     ".section .debug_info\n{\n.b32 42\n.b8 1, 2\n$L__info_string0:\n.b64 $L__func_begin0\n}\n";
  Module m = parse_module(text, "dirs.ptx");
  EXPECT_EQ(m.version_major, 8u);
  EXPECT_EQ(m.version_minor, 5u);
  EXPECT_EQ(m.target, "sm_90a");
  ASSERT_EQ(m.functions.size(), 1u);
  EXPECT_EQ(m.functions[0].body.size(), 1u);
  EXPECT_EQ(m.functions[0].body[0].line, 10);
  EXPECT_EQ(m.functions[0].param_bytes, 0u);
}

TEST(PtxSyntax, VariablesOfEveryKind) {
  std::string text = std::string(kHeader) +
                     ".global .align 4 .f32 fv[3] = {1.5, 0f40000000, 3};\n"
                     ".const .f64 dv = 0d3FF0000000000000;\n"
                     ".global .v4 .u16 vec = {1, 2, 3, 4};\n"
                     ".global .u32 grid[2][3] = {{1, 2, 3}, {4, 5, 6}};\n"
                     ".global .s8 neg[] = {-1, -2};\n"
                     ".weak .global .align 8 .u64 table[2] = {fv, generic(dv+8)};\n"
                     ".shared .align 8 .b8 smem[64];\n"
                     ".global .u32 a, b = 7;\n"
                     ".global .u32 mixed = 0x10, oct = 017, bin = 0b101, big = 4294967295U;\n";
  Module m = parse_module(text, "vars.ptx");
  const Variable* fv = m.find_global("fv");
  ASSERT_NE(fv, nullptr);
  EXPECT_EQ(fv->size, 12u);
  EXPECT_EQ(fv->init, (std::vector<uint8_t>{0, 0, 0xC0, 0x3F, 0, 0, 0, 0x40, 0, 0, 0x40, 0x40}));
  EXPECT_EQ(m.find_global("dv")->init, (std::vector<uint8_t>{0, 0, 0, 0, 0, 0, 0xF0, 0x3F}));
  EXPECT_EQ(m.find_global("vec")->size, 8u);
  EXPECT_EQ(m.find_global("vec")->vec, 4u);
  EXPECT_EQ(m.find_global("vec")->init[6], 4);
  EXPECT_EQ(m.find_global("grid")->size, 24u);
  EXPECT_EQ(m.find_global("grid")->init[20], 6);
  EXPECT_EQ(m.find_global("neg")->size, 2u);
  EXPECT_EQ(m.find_global("neg")->init, (std::vector<uint8_t>{0xFF, 0xFE}));
  const Variable* table = m.find_global("table");
  ASSERT_EQ(table->init_symbols.size(), 2u);
  EXPECT_EQ(table->init_symbols[1], (std::pair<uint64_t, std::string>{8, "dv"}));
  EXPECT_EQ(table->init[8], 8);  // the addend stays in the slot
  EXPECT_TRUE(table->is_visible);
  EXPECT_EQ(m.find_global("smem")->space, StateSpace::Shared);
  EXPECT_TRUE(m.find_global("a")->init.empty());
  EXPECT_EQ(m.find_global("b")->init[0], 7);
  EXPECT_EQ(m.find_global("mixed")->init[0], 16);
  EXPECT_EQ(m.find_global("oct")->init[0], 15);
  EXPECT_EQ(m.find_global("bin")->init[0], 5);
  EXPECT_EQ(m.find_global("big")->init, (std::vector<uint8_t>{255, 255, 255, 255}));
}

TEST(PtxSyntax, ParametersAttributesAndPerformanceDirectives) {
  std::string text = std::string(kHeader) +
                     ".visible .entry k(\n .param .u64 .ptr .global .align 16 p,\n .param .u8 c,\n"
                     " .param .align 16 .b8 s[20],\n .param .v2 .f32 v\n)\n"
                     ".maxntid 256, 1, 1\n.minnctapersm 2\n.maxnreg 64\n{\nret;\n}\n"
                     ".entry r() .reqntid 128 .noreturn\n{\nexit;\n}\n";
  Module m = parse_module(text, "params.ptx");
  const Function& k = function(m, "k");
  ASSERT_EQ(k.params.size(), 4u);
  EXPECT_TRUE(k.params[0].is_pointer);
  EXPECT_EQ(k.params[0].align, 8u);  // .align after .ptr is the pointee's
  EXPECT_EQ(k.params[1].offset, 8u);
  EXPECT_EQ(k.params[2].offset, 16u);
  EXPECT_EQ(k.params[2].size, 20u);
  EXPECT_EQ(k.params[3].offset, 40u);
  EXPECT_EQ(k.params[3].size, 8u);
  EXPECT_EQ(k.param_bytes, 48u);
  EXPECT_EQ(k.maxntid[0], 256u);
  EXPECT_EQ(k.maxntid[2], 1u);
  EXPECT_EQ(k.minnctapersm, 2u);
  EXPECT_EQ(k.maxnreg, 64u);
  const Function& r = function(m, "r");
  EXPECT_EQ(r.reqntid[0], 128u);
  EXPECT_EQ(r.reqntid[1], 1u);
}

TEST(PtxSyntax, DeclarationsPrototypesAndIndirectCalls) {
  std::string text = std::string(kHeader) +
                     ".extern .func (.param .b32 func_retval0) vprintf(.param .b64 a, .param .b64 b);\n"
                     ".func (.param .b32 r) twice(.param .b32 x);\n"
                     ".visible .func (.param .b32 r) twice(.param .b32 x)\n{\n.reg .b32 %r<2>;\n"
                     "ld.param.b32 %r0, [x];\nadd.s32 %r1, %r0, %r0;\nst.param.b32 [r+0], %r1;\nret;\n}\n"
                     ".visible .entry k(.param .u64 fp)\n{\n.reg .b64 %rd<2>;\n.reg .b32 %r<2>;\n"
                     "ld.param.u64 %rd1, [fp];\n"
                     "{\n.param .b32 param0;\nst.param.b32 [param0+0], 3;\n.param .b32 retval0;\n"
                     "prototype_0 : .callprototype (.param .b32 _) _ (.param .b32 _);\n"
                     "call (retval0), %rd1, (param0), prototype_0;\nld.param.b32 %r1, [retval0+0];\n}\n"
                     "call.uni twice, (%r1);\nret;\n}\n";
  Module m = parse_module(text, "calls.ptx");
  ASSERT_EQ(m.functions.size(), 3u);
  EXPECT_TRUE(m.functions[0].is_extern);
  const Function& twice = function(m, "twice");
  EXPECT_FALSE(twice.is_extern);
  EXPECT_EQ(twice.body.size(), 4u);
  EXPECT_EQ(m.functions[1].name, "twice");  // the definition took the declaration's place
  const Function& k = function(m, "k");
  const Instruction& call = inst(k, "call (retval0)");
  ASSERT_EQ(call.ops.size(), 4u);
  EXPECT_EQ(call.ops[1].kind, K::Reg);
  EXPECT_EQ(call.ops[1].reg, reg(k, "%rd1"));
  EXPECT_EQ(call.ops[3].symbol, "prototype_0");
  const Instruction& direct = inst(k, "call.uni twice");
  EXPECT_TRUE(direct.ops[0].elems.empty());
  EXPECT_EQ(direct.ops[2].elems[0].reg, reg(k, "%r1"));
  EXPECT_EQ(k.body.size(), 6u);  // the prototype is no instruction
}

TEST(PtxSyntax, OperandForms) {
  std::string text = std::string(kHeader) +
                     ".global .u32 g[4];\n.global .texref tex0;\n"
                     ".visible .entry k()\n{\n.reg .pred %p<3>;\n.reg .b32 %r<8>;\n.reg .b64 %rd<4>;\n"
                     ".reg .f32 %f<4>;\n.reg .v2 .b32 vr;\n"
                     "ld.global.u32 %r1, [%rd1+-8];\nld.global.u32 %r2, [%rd1-16];\nld.global.u32 %r3, [g+4];\n"
                     "ld.global.u32 %r4, [0x100];\nmov.u64 %rd2, g+8;\n"
                     "setp.lt.s32 %p1|%p2, %r1, -2147483648;\n@!%p1 and.pred %p0, !%p2, %p1;\n"
                     "mov.u32 %r5, %envreg3;\nmov.u32 %r6, %lanemask_lt;\nmov.u32 %r7, %nctaid.y;\n"
                     "mov.f32 %f1, 1.5;\nmov.f32 %f2, -0f3F800000;\n"
                     "tex.2d.v4.f32.f32 {%f0, %f1, %f2, _}, [tex0, {%f3, %f3}];\n"
                     "prmt.b32 %r0, %r1, %r2, 0x3210;\n"
                     "mbarrier.try_wait.parity.shared::cta.b64 %p0, [%rd3], %r0;\n"
                     "brx.idx %r0, ts;\nts: .branchtargets L1, L2;\nL1:\nL2:\nret;\n}\n";
  Module m = parse_module(text, "ops.ptx");
  const Function& k = function(m, "k");
  EXPECT_EQ(inst(k, "ld.global.u32 %r1").ops[1].imm, -8);
  EXPECT_EQ(inst(k, "ld.global.u32 %r2").ops[1].imm, -16);
  const Operand& gsym = inst(k, "ld.global.u32 %r3").ops[1];
  EXPECT_EQ(gsym.symbol, "g");
  EXPECT_EQ(gsym.imm, 4);
  const Operand& abs = inst(k, "ld.global.u32 %r4").ops[1];
  EXPECT_EQ(abs.reg, -1);
  EXPECT_TRUE(abs.symbol.empty());
  EXPECT_EQ(abs.imm, 0x100);
  EXPECT_EQ(inst(k, "mov.u64 %rd2").ops[1].imm, 8);
  const Instruction& setp = inst(k, "setp.lt.s32");
  ASSERT_EQ(setp.ops.size(), 4u);
  EXPECT_EQ(setp.ops[1].reg, reg(k, "%p2"));
  EXPECT_EQ(setp.ops[3].imm, -2147483648LL);
  const Instruction& andp = inst(k, "@!%p1 and.pred");
  EXPECT_TRUE(andp.guard_negated);
  EXPECT_EQ(andp.guard, reg(k, "%p1"));
  EXPECT_TRUE(andp.ops[1].negate);
  EXPECT_FALSE(andp.ops[2].negate);
  EXPECT_EQ(inst(k, "mov.u32 %r5").ops[1].special, SpecialReg::EnvReg);
  EXPECT_EQ(inst(k, "mov.u32 %r6").ops[1].special, SpecialReg::LaneMaskLt);
  EXPECT_EQ(inst(k, "mov.u32 %r7").ops[1].special, SpecialReg::NctaidY);
  EXPECT_EQ(inst(k, "mov.f32 %f1").ops[1].fbits, 0x3FF8000000000000ull);
  EXPECT_EQ(inst(k, "mov.f32 %f2").ops[1].fbits, 0xBF800000ull);
  const Instruction& tex = inst(k, "tex.2d");
  EXPECT_EQ(tex.ops[0].elems[3].kind, K::Sink);
  EXPECT_EQ(tex.ops[1].symbol, "tex0");
  ASSERT_EQ(tex.ops[1].elems.size(), 1u);
  EXPECT_EQ(tex.ops[1].elems[0].elems.size(), 2u);
  EXPECT_EQ(inst(k, "prmt.b32").ops[3].imm, 0x3210);
  EXPECT_EQ(inst(k, "mbarrier").mods[2], "shared::cta");
  EXPECT_EQ(k.regs[static_cast<size_t>(reg(k, "vr"))].vec, 2u);
  EXPECT_EQ(k.labels.at("L1"), k.labels.at("L2"));
}

TEST(PtxSyntax, InnerScopeShadowsAndThenReleases) {
  std::string text = std::string(kHeader) +
                     ".visible .entry k()\n{\n.reg .b32 %r<3>;\nmov.u32 %r1, 1;\n"
                     "{\n.reg .b32 %r1;\nmov.u32 %r1, 2;\n{\n.reg .b32 %r<2>;\nmov.u32 %r1, 3;\n}\n}\n"
                     "mov.u32 %r1, 4;\nret;\n}\n";
  Module m = parse_module(text, "scopes.ptx");
  const Function& k = m.functions[0];
  ASSERT_EQ(k.regs.size(), 3u + 1 + 2);
  EXPECT_EQ(k.body[0].ops[0].reg, 1);
  EXPECT_EQ(k.body[1].ops[0].reg, 3);
  EXPECT_EQ(k.body[2].ops[0].reg, 5);
  EXPECT_EQ(k.body[3].ops[0].reg, 1);
}

// ---------------------------------------------------------------- errors

std::string body(const std::string& lines) {
  return std::string(kHeader) + ".visible .entry k()\n{\n.reg .b32 %r<4>;\n" + lines + "ret;\n}\n";
}

TEST(PtxSyntax, UndeclaredRegisterNamesFileAndLine) {
  // header 3 lines, entry 4, '{' 5, .reg 6: the bad line is 8
  std::string e = parse_error(body("mov.u32 %r1, 1;\nadd.s32 %r2, %r9, %r1;\n"));
  EXPECT_EQ(e, "bad.ptx:8: field '%r9': undeclared register");
  e = parse_error(body("@%p1 bra L;\nL:\n"));
  EXPECT_EQ(e, "bad.ptx:7: field '%p1': undeclared predicate register");
}

TEST(PtxSyntax, UndefinedLabelAndSymbol) {
  EXPECT_EQ(parse_error(body("mov.u32 %r1, 1;\nbra.uni $L__BB0_9;\n")), "bad.ptx:8: field '$L__BB0_9': undefined label");
  EXPECT_EQ(parse_error(body("ld.global.u32 %r1, [nowhere];\n")), "bad.ptx:7: field 'nowhere': undefined symbol");
  EXPECT_EQ(parse_error(body("L:\nL:\n")), "bad.ptx:8: field 'L': label defined twice");
}

TEST(PtxSyntax, GarbageAndMalformedSyntax) {
  EXPECT_EQ(parse_error(body("mov.u32 %r1, 1;\nadd.s32 %r2, # %r1;\n")), "bad.ptx:8: field '#': unexpected character");
  EXPECT_EQ(parse_error(body("add.s32 %r2 %r1;\n")), "bad.ptx:7: field '%r1': expected ',' or ';' after an operand");
  EXPECT_EQ(parse_error(body("mov.u32 %r1, 1\nret;\n")), "bad.ptx:8: field 'ret': expected ',' or ';' after an operand");
  EXPECT_EQ(parse_error(std::string(kHeader) + "\nbogus;\n"), "bad.ptx:5: field 'bogus': unexpected token at module scope");
  EXPECT_EQ(parse_error(body("ld.global.u32 %r1, [%r2;\n")), "bad.ptx:7: field ';': expected ']' to close the address");
  EXPECT_EQ(parse_error(body("mov.u32 %r1, 99999999999999999999;\n")),
            "bad.ptx:7: field '99999999999999999999': malformed or out-of-range integer");
  EXPECT_EQ(parse_error(std::string(kHeader) + ".global .u32 x[2] = {1, 2, 3};\n"),
            "bad.ptx:4: field '{': initialiser larger than the variable x");
  EXPECT_EQ(parse_error(body(".reg .b32 %r<2>;\n")), "bad.ptx:7: field '%r': register range declared twice in one scope");
}

TEST(PtxSyntax, UnterminatedBlocksNameTheOpeningLine) {
  std::string text = std::string(kHeader) + ".visible .entry k()\n{\nret;\n";
  EXPECT_EQ(parse_error(text), "bad.ptx:5: field '{': unterminated block: end of input before its '}'");
  text = std::string(kHeader) + ".visible .entry k()\n{\nret;\n{\nret;\n}\n.visible .entry j()\n{\nret;\n}\n";
  EXPECT_EQ(parse_error(text), "bad.ptx:5: field '{': unterminated block: no '}' before .visible at line 10");
  EXPECT_EQ(parse_error(std::string(kHeader) + "/* never closed\n\n"), "bad.ptx:4: field '/*': unterminated comment");
  EXPECT_EQ(parse_error(std::string(kHeader) + ".pragma \"abc\n"), "bad.ptx:4: field '\"': unterminated string");
}

// Every prefix of a real module either parses or throws one InputError: never
// another exception, never a crash.
TEST(PtxSyntax, TruncatedModulesFailCleanly) {
  for (const char* f : {"calls.ptx", "memory.ptx", "warp.ptx"}) {
    std::string text = test::read_file(test::fixture_dir() + f);
    for (size_t cut = 0; cut < text.size(); cut += 3) {
      try {
        parse_module(std::string_view(text).substr(0, cut), f);
      } catch (const InputError&) {
      } catch (const std::exception& e) {
        ADD_FAILURE() << f << " cut at " << cut << ": " << e.what();
      }
    }
  }
  EXPECT_EQ(parse_error(body("mov.b32 %r1, {{{{%r2}}}};\n")), "bad.ptx:7: field '{': lists hold registers, names or numbers");
  EXPECT_EQ(parse_error(body("and.pred %r1, !!%r2;\n")), "bad.ptx:7: field '!': '!' applies to a predicate register");
  EXPECT_EQ(parse_error(std::string(kHeader) + ".global .u8 big[4294967296][4294967296];\n"),
            "bad.ptx:4: field '4294967296': array size out of range");
}

// Parse rate on a large module made of renamed copies of the fixtures; disabled
// by default (run with --gtest_also_run_disabled_tests --gtest_filter='PtxSyntax.*Speed*').
TEST(PtxSyntax, DISABLED_ParseSpeed) {
  std::string unit;
  for (const char* f : {"precision.ptx", "warp.ptx", "calls.ptx", "params.ptx"}) {
    std::string t = test::read_file(test::fixture_dir() + f);
    unit += t.substr(t.find(".address_size 64") + 16);
  }
  std::string text = kHeader;
  for (int copy = 0; text.size() < (64u << 20); ++copy) {
    std::string renamed;
    std::string tag = "_Zc" + std::to_string(copy) + "_";
    for (size_t i = 0; i < unit.size(); ++i) {
      if (unit.compare(i, 2, "_Z") == 0) renamed += tag, ++i;
      else renamed += unit[i];
    }
    text += renamed;
  }
  auto t0 = std::chrono::steady_clock::now();
  Module m = parse_module(text, "big.ptx");
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  size_t insts = 0;
  for (const Function& f : m.functions) insts += f.body.size();
  std::printf("parsed %.1f MB (%zu functions, %zu instructions) in %.3f s: %.1f MB/s\n", text.size() / 1e6,
              m.functions.size(), insts, secs, text.size() / 1e6 / secs);
  EXPECT_GT(text.size() / 1e6 / secs, 20.0);
}

}  // namespace
}  // namespace ws::ptx

namespace ws::ptx {
namespace {

TEST(PtxSyntaxAttributes, ManagedVariablesAreMarked) {
  Module m = parse_module(R"(
.version 9.0
.target sm_80
.address_size 64
.global .attribute(.managed) .align 4 .u32 counter = 5;
.global .align 4 .u32 plain;
)", "m.ptx");
  ASSERT_EQ(m.globals.size(), 2u);
  EXPECT_TRUE(m.globals[0].is_managed);
  EXPECT_EQ(m.globals[0].size, 4u);
  EXPECT_FALSE(m.globals[1].is_managed);
}

}  // namespace
}  // namespace ws::ptx
