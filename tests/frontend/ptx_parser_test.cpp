// The PTX parser on nvcc 13 output (tests/data/ptx/*.ptx, compiled from the
// .cu files beside them with -gencode arch=compute_80,code=compute_80 --ptx).
#include <gtest/gtest.h>

#include <filesystem>

#include "frontend/ptx_test_util.h"

namespace ws::ptx {
namespace {

using test::function;
using test::inst;
using test::parse_fixture;
using test::reg;
using K = Operand::Kind;

TEST(PtxParser, EveryFixtureParses) {
  int files = 0;
  for (const auto& e : std::filesystem::directory_iterator(test::fixture_dir())) {
    if (e.path().extension() != ".ptx") continue;
    SCOPED_TRACE(e.path().string());
    Module m = parse_fixture(e.path().filename().string());
    EXPECT_EQ(m.version_major, 9u);
    EXPECT_EQ(m.version_minor, 0u);
    EXPECT_EQ(m.target, "sm_80");
    EXPECT_EQ(m.address_size, 64u);
    ASSERT_FALSE(m.functions.empty());
    for (const Function& f : m.functions) {
      EXPECT_EQ(f.body.empty(), f.is_extern) << f.name;
      for (const Instruction& i : f.body) {
        EXPECT_GT(i.line, 0);
        EXPECT_FALSE(i.text.empty());
      }
    }
    ++files;
  }
  EXPECT_GE(files, 5);
}

// many_params(char, short, int, long long, float, double, unsigned char, int*, Particle, bool)
// Particle {float pos[3]; double mass; int id;} is 32 bytes, 8-aligned.
TEST(PtxParser, KernelParameterLayout) {
  Module m = parse_fixture("params.ptx");
  const Function& f = function(m, "_Z11many_paramscsixfdhPi8Particleb");
  EXPECT_TRUE(f.is_entry);
  EXPECT_TRUE(f.is_visible);
  ASSERT_EQ(f.params.size(), 10u);
  const uint64_t offsets[] = {0, 2, 4, 8, 16, 24, 32, 40, 48, 80};
  const uint64_t sizes[] = {1, 2, 4, 8, 4, 8, 1, 8, 32, 1};
  for (size_t i = 0; i < 10; ++i) {
    EXPECT_EQ(f.params[i].offset, offsets[i]) << i;
    EXPECT_EQ(f.params[i].size, sizes[i]) << i;
  }
  EXPECT_EQ(f.params[0].type, Type::U8);
  EXPECT_EQ(f.params[5].type, Type::F64);
  EXPECT_EQ(f.params[8].type, Type::B8);
  EXPECT_TRUE(f.params[8].is_array);
  EXPECT_EQ(f.params[8].align, 8u);
  EXPECT_EQ(f.params[1].align, 2u);
  EXPECT_EQ(f.param_bytes, 81u);
  EXPECT_EQ(f.params[3].name, "_Z11many_paramscsixfdhPi8Particleb_param_3");
}

TEST(PtxParser, RegisterDeclarationsExpandToIndices) {
  Module m = parse_fixture("params.ptx");
  const Function& f = function(m, "_Z11many_paramscsixfdhPi8Particleb");
  // %p<2>, %rs<13>, %f<9>, %r<17>, %fd<5>, %rd<4>
  ASSERT_EQ(f.regs.size(), 2u + 13 + 9 + 17 + 5 + 4);
  EXPECT_EQ(f.regs[0].name, "%p0");
  EXPECT_EQ(f.regs[0].type, Type::Pred);
  EXPECT_EQ(f.regs[2].name, "%rs0");
  EXPECT_EQ(f.regs[2].type, Type::B16);
  EXPECT_EQ(f.regs[2 + 13 + 9 + 17 + 4].name, "%fd4");
  const Instruction& ld = inst(f, "ld.param.u32 %r2,");
  EXPECT_EQ(ld.ops[0].kind, K::Reg);
  EXPECT_EQ(ld.ops[0].reg, reg(f, "%r2"));
  EXPECT_EQ(f.regs[static_cast<size_t>(ld.ops[0].reg)].type, Type::B32);
}

TEST(PtxParser, OpcodeModifiersAndOperandKinds) {
  Module m = parse_fixture("params.ptx");
  const Function& f = function(m, "_Z11many_paramscsixfdhPi8Particleb");
  const Instruction& v2 = inst(f, "ld.param.v2.f32");
  EXPECT_EQ(v2.opcode, "ld");
  EXPECT_EQ(v2.mods, (std::vector<std::string>{"param", "v2", "f32"}));
  ASSERT_EQ(v2.ops.size(), 2u);
  ASSERT_EQ(v2.ops[0].kind, K::Vector);
  ASSERT_EQ(v2.ops[0].elems.size(), 2u);
  EXPECT_EQ(v2.ops[0].elems[0].reg, reg(f, "%f5"));
  EXPECT_EQ(v2.ops[0].elems[1].reg, reg(f, "%f6"));
  EXPECT_EQ(v2.ops[1].kind, K::Address);
  EXPECT_EQ(v2.ops[1].symbol, "_Z11many_paramscsixfdhPi8Particleb_param_8");
  EXPECT_EQ(v2.ops[1].reg, -1);
  EXPECT_EQ(v2.ops[1].imm, 0);
  EXPECT_EQ(v2.text, "ld.param.v2.f32 {%f5, %f6}, [_Z11many_paramscsixfdhPi8Particleb_param_8]");
  EXPECT_EQ(inst(f, "ld.param.u32 %r2").ops[1].imm, 24);

  Module g = parse_fixture("params.ptx");
  const Function& k = function(g, "_Z6grid3dPfiii");
  const Instruction& ctaid = inst(k, "mov.u32 %r14, %ctaid.z");
  EXPECT_EQ(ctaid.ops[1].kind, K::Special);
  EXPECT_EQ(ctaid.ops[1].special, SpecialReg::CtaidZ);
  const Instruction& pred = inst(k, "or.pred %p5, %p3, %p4");
  EXPECT_EQ(pred.ops[2].reg, reg(k, "%p4"));

  Module c = parse_fixture("calls.ptx");
  const Instruction& fma = inst(function(c, "_Z5blendfff"), "fma.rn.f32");
  EXPECT_EQ(fma.ops[2].kind, K::FImm);
  EXPECT_EQ(fma.ops[2].fwidth, 32);
  EXPECT_EQ(fma.ops[2].fbits, 0x3E800000u);  // 0.25f
}

TEST(PtxParser, GuardsBranchesAndLabels) {
  Module m = parse_fixture("calls.ptx");
  const Function& f = function(m, "_Z13collatz_stepsi");
  ASSERT_EQ(f.labels.size(), 5u);
  int32_t bb6 = f.labels.at("$L__BB1_6");
  EXPECT_EQ(f.body[static_cast<size_t>(bb6)].opcode, "st");
  const Instruction& br = inst(f, "@%p1 bra");
  EXPECT_EQ(br.guard, reg(f, "%p1"));
  EXPECT_FALSE(br.guard_negated);
  ASSERT_EQ(br.ops.size(), 1u);
  EXPECT_EQ(br.ops[0].kind, K::Symbol);
  EXPECT_EQ(br.ops[0].label, bb6);
  const Instruction& uni = inst(f, "bra.uni $L__BB1_3");
  EXPECT_EQ(uni.guard, -1);
  EXPECT_EQ(uni.mods, std::vector<std::string>{"uni"});
  EXPECT_EQ(f.body[static_cast<size_t>(uni.ops[0].label)].text, "mad.lo.s32 %r15, %r15, 3, 1");
  // The loop's back edge points at its head.
  EXPECT_EQ(inst(f, "@%p8 bra").ops[0].label, f.labels.at("$L__BB1_2"));
  EXPECT_EQ(f.body[static_cast<size_t>(f.labels.at("$L__BB1_2"))].text, "and.b32 %r11, %r15, 1");
}

TEST(PtxParser, DeviceFunctionsCallsAndReturnValues) {
  Module m = parse_fixture("calls.ptx");
  const Function& blend = function(m, "_Z5blendfff");
  EXPECT_FALSE(blend.is_entry);
  ASSERT_EQ(blend.returns.size(), 1u);
  EXPECT_EQ(blend.returns[0].name, "func_retval0");
  EXPECT_EQ(blend.params.size(), 2u);  // nvcc folded the constant third argument
  const Instruction& st = inst(blend, "st.param.f32");
  EXPECT_EQ(st.ops[0].symbol, "func_retval0");
  EXPECT_EQ(st.ops[0].local, -1);

  const Function& k = function(m, "_Z11call_kernelPKfS0_PfPii");
  const Instruction& call = inst(k, "call.uni (retval0), _Z5blendfff");
  EXPECT_EQ(call.text, "call.uni (retval0), _Z5blendfff, (param0, param1)");
  ASSERT_EQ(call.ops.size(), 3u);
  ASSERT_EQ(call.ops[0].elems.size(), 1u);
  const Operand& ret = call.ops[0].elems[0];
  EXPECT_EQ(ret.kind, K::Symbol);
  ASSERT_GE(ret.local, 0);
  EXPECT_EQ(k.locals[static_cast<size_t>(ret.local)].name, "retval0");
  EXPECT_EQ(k.locals[static_cast<size_t>(ret.local)].space, StateSpace::Param);
  EXPECT_EQ(call.ops[1].kind, K::Symbol);
  EXPECT_EQ(call.ops[1].symbol, "_Z5blendfff");
  ASSERT_EQ(call.ops[2].elems.size(), 2u);
  EXPECT_EQ(call.ops[2].elems[1].symbol, "param1");

  // A call without a return value still has the (empty) returns slot.
  const Instruction& store = inst(k, "call.uni _Z10store_pairPiii");
  ASSERT_EQ(store.ops.size(), 3u);
  EXPECT_TRUE(store.ops[0].elems.empty());
  EXPECT_EQ(store.ops[2].elems.size(), 3u);
  // Each call sequence's param0 is its own variable.
  int32_t first = call.ops[2].elems[0].local;
  int32_t third = store.ops[2].elems[0].local;
  EXPECT_NE(first, third);
  EXPECT_EQ(k.locals[static_cast<size_t>(third)].type, Type::B64);
}

TEST(PtxParser, NestedScopesShadowRegisters) {
  Module m = parse_fixture("calls.ptx");
  const Function& k = function(m, "_Z11call_kernelPKfS0_PfPii");
  int temps = 0;
  for (const Register& r : k.regs) temps += r.name == "temp_param_reg";
  EXPECT_EQ(temps, 3);  // one per call sequence block

  Module w = parse_fixture("warp.ptx");
  const Function& f = function(w, "_Z8warp_opsPKiPiPx");
  const Instruction& add = inst(f, "add.u32 t1");
  EXPECT_EQ(add.ops[0].reg, reg(f, "t1"));
  EXPECT_EQ(add.ops[1].reg, reg(f, "%r6"));
  EXPECT_EQ(inst(f, "mov.u32 %r7, t1").ops[1].reg, reg(f, "t1"));
}

TEST(PtxParser, ShuffleSecondDestinationAndVotes) {
  Module m = parse_fixture("warp.ptx");
  const Function& f = function(m, "_Z8warp_opsPKiPiPx");
  const Instruction& shfl = inst(f, "shfl.sync.down.b32 %r19|%p3");
  EXPECT_EQ(shfl.mods, (std::vector<std::string>{"sync", "down", "b32"}));
  ASSERT_EQ(shfl.ops.size(), 6u);
  EXPECT_EQ(shfl.ops[0].reg, reg(f, "%r19"));
  EXPECT_EQ(shfl.ops[1].reg, reg(f, "%p3"));
  EXPECT_EQ(shfl.ops[5].reg, reg(f, "%r18"));
  const Instruction& vote = inst(f, "vote.sync.ballot.b32");
  EXPECT_EQ(vote.ops.size(), 3u);
  EXPECT_EQ(inst(f, "mov.u32 %r18, -1").ops[1].imm, -1);
  EXPECT_EQ(inst(f, "mov.u64 %rd4, %clock64").ops[1].special, SpecialReg::Clock64);
  EXPECT_EQ(inst(f, "mov.u32 %r6, %laneid").ops[1].special, SpecialReg::LaneId);
}

TEST(PtxParser, ModuleVariablesAndInitialisers) {
  Module m = parse_fixture("memory.ptx");
  const Variable* lookup = m.find_global("lookup");
  ASSERT_NE(lookup, nullptr);
  EXPECT_EQ(lookup->space, StateSpace::Const);
  EXPECT_EQ(lookup->size, 20u);
  EXPECT_EQ(lookup->align, 4u);
  // {1, 2, 3, 500, -7} as little-endian 32-bit words
  EXPECT_EQ(lookup->init, (std::vector<uint8_t>{1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0, 244, 1, 0, 0, 249, 255, 255, 255}));
  const Variable* counter = m.find_global("counter");
  ASSERT_NE(counter, nullptr);
  EXPECT_EQ(counter->type, Type::U32);
  EXPECT_EQ(counter->init, (std::vector<uint8_t>{42, 0, 0, 0}));
  const Variable* ptr = m.find_global("counter_ptr");
  ASSERT_NE(ptr, nullptr);
  ASSERT_EQ(ptr->init_symbols.size(), 1u);
  EXPECT_EQ(ptr->init_symbols[0], (std::pair<uint64_t, std::string>{0, "counter"}));
  EXPECT_EQ(ptr->init.size(), 8u);
  const Variable* dyn = m.find_global("dyn_smem");
  ASSERT_NE(dyn, nullptr);
  EXPECT_TRUE(dyn->is_extern);
  EXPECT_TRUE(dyn->is_unsized_array);
  EXPECT_EQ(dyn->space, StateSpace::Shared);
  EXPECT_EQ(dyn->align, 16u);
  EXPECT_EQ(dyn->size, 0u);
  EXPECT_TRUE(dyn->init.empty());
}

TEST(PtxParser, BodyVariablesAndSymbolOperands) {
  Module m = parse_fixture("memory.ptx");
  const Function& f = function(m, "_Z13reduce_sharedPKfPfi");
  ASSERT_EQ(f.locals.size(), 1u);
  EXPECT_EQ(f.locals[0].name, "_ZZ13reduce_sharedPKfPfiE4tile");
  EXPECT_EQ(f.locals[0].space, StateSpace::Shared);
  EXPECT_EQ(f.locals[0].size, 1024u);
  const Instruction& mov = inst(f, "mov.u32 %r12,");
  EXPECT_EQ(mov.ops[1].kind, K::Symbol);
  EXPECT_EQ(mov.ops[1].local, 0);
  EXPECT_EQ(mov.ops[1].label, -1);
  const Instruction& ld = inst(f, "ld.shared.f32 %f9");
  EXPECT_EQ(ld.ops[1].kind, K::Address);
  EXPECT_EQ(ld.ops[1].local, 0);
  EXPECT_EQ(inst(f, "ld.shared.f32 %f6").ops[1].reg, reg(f, "%r4"));
  const Instruction& atom = inst(f, "atom.global.add.f32");
  EXPECT_EQ(atom.mods, (std::vector<std::string>{"global", "add", "f32"}));

  const Function& d = function(m, "_Z14dynamic_sharedPii");
  const Instruction& sym = inst(d, "mov.u32 %r16, dyn_smem");
  EXPECT_EQ(sym.ops[1].kind, K::Symbol);
  EXPECT_EQ(sym.ops[1].local, -1);
  EXPECT_EQ(inst(d, "ld.global.u64 %rd14").ops[1].symbol, "counter_ptr");
  EXPECT_EQ(inst(d, "atom.global.cas.b32").ops.size(), 4u);
}

TEST(PtxParser, DoubleAndHalfPrecision) {
  Module m = parse_fixture("precision.ptx");
  const Function& f = function(m, "_Z12saxpy_doubledPKdPdi");
  EXPECT_EQ(f.params[0].type, Type::F64);
  EXPECT_EQ(f.param_bytes, 8u + 8 + 8 + 4);
  const Instruction& add = inst(f, "add.f64");
  bool saw_double_imm = false;
  for (const Instruction& i : f.body)
    for (const Operand& o : i.ops) saw_double_imm |= o.kind == K::FImm && o.fwidth == 64 && o.fbits == 0x3FF8000000000000ull;
  EXPECT_TRUE(saw_double_imm);  // + 1.5
  EXPECT_EQ(add.ops.size(), 3u);
  const Function& h = function(m, "_Z8half_opsPK6__halfS1_PS_P7__half2i");
  const Instruction& pack = inst(h, "mov.b32 %r6, {%rs8,%rs9}");
  EXPECT_EQ(pack.ops[1].kind, K::Vector);
  EXPECT_EQ(pack.ops[1].elems[1].reg, reg(h, "%rs9"));
  EXPECT_EQ(inst(h, "fma.rn.f16x2").mods, (std::vector<std::string>{"rn", "f16x2"}));
}

TEST(PtxParser, FunctionPointersRecursionAndPrintf) {
  Module m = parse_fixture("indirect.ptx");
  const Variable* table = m.find_global("table");
  ASSERT_NE(table, nullptr);
  EXPECT_EQ(table->size, 16u);
  EXPECT_EQ(table->init_symbols, (std::vector<std::pair<uint64_t, std::string>>{{0, "_Z6add_opii"}, {8, "_Z6max_opii"}}));
  EXPECT_EQ(table->init, std::vector<uint8_t>(16, 0));
  const Variable* str = m.find_global("$str");
  ASSERT_NE(str, nullptr);
  EXPECT_EQ(str->init.size(), 25u);
  EXPECT_EQ(str->init[0], 'b');
  EXPECT_EQ(str->init[24], 0);
  const Function* vprintf = m.find_function("vprintf");
  ASSERT_NE(vprintf, nullptr);
  EXPECT_TRUE(vprintf->is_extern);
  EXPECT_TRUE(vprintf->body.empty());

  const Function& fib = function(m, "_Z3fibi");
  EXPECT_EQ(inst(fib, "call.uni (retval0), _Z3fibi").ops[1].symbol, "_Z3fibi");

  const Function& k = function(m, "_Z5applyPKiPii");
  const Instruction& indirect = inst(k, "call (retval0)");
  ASSERT_EQ(indirect.ops.size(), 4u);
  EXPECT_EQ(indirect.ops[1].kind, K::Reg);
  EXPECT_EQ(indirect.ops[2].elems.size(), 2u);
  EXPECT_EQ(indirect.ops[3].kind, K::Symbol);
  EXPECT_EQ(indirect.ops[3].symbol, "prototype_2");
  EXPECT_EQ(inst(k, "call.uni (retval0), vprintf").ops[2].elems.size(), 2u);
}

}  // namespace
}  // namespace ws::ptx
