// isa/ptx.toml lookups: each PTX instruction gets the SASS class an NVBit
// trace of the same program would show.
#include <gtest/gtest.h>

#include "common/error.h"
#include "exec/ptx_op_names.h"
#include "frontend/ptx/parser.h"

namespace ws::exec {
namespace {

constexpr const char* kPtx = R"(
.version 9.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 p)
{
  .reg .pred %p<2>;
  .reg .b32 %r<8>;
  .reg .f32 %f<8>;
  .reg .f64 %fd<2>;
  .reg .b64 %rd<4>;
  fma.rn.f32 %f1, %f2, %f3, %f4;
  ld.global.nc.v4.f32 {%f1, %f2, %f3, %f4}, [%rd1];
  ld.u32 %r1, [%rd2];
  cvt.rn.f32.s32 %f5, %r2;
  cvt.u64.u32 %rd3, %r3;
  cvt.rn.f32.f64 %f6, %fd1;
  setp.lt.f32 %p1, %f1, %f2;
  setp.ge.s32 %p1, %r1, %r2;
  mul.wide.s32 %rd1, %r1, 4;
  atom.add.u32 %r4, [%rd2], 1;
  bar.sync 0;
  ex2.approx.ftz.f32 %f7, %f1;
  ld.param.u64 %rd1, [p];
  ret;
  mbarrier.arrive.shared.b64 %rd1, [%rd2];
  mbarrier.pending_count.b64 %r5, %rd1;
  cp.async.mbarrier.arrive.noinc.shared.b64 [%rd2];
  cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%r1], [%rd1], 64, [%r2];
  setmaxnreg.inc.sync.aligned.u32 240;
  atom.add.release.gpu.u32 %r4, [%rd2], 1;
  ld.global.v8.f32 {%f1, %f2, %f3, %f4, %f5, %f6, %f7, %f0}, [%rd1];
  atom.exch.b128 %rd1, [%rd2], %rd3;
  cp.async.bulk.commit_group;
  cp.async.bulk.wait_group.read 0;
  cp.async.bulk.prefetch.L2.global [%rd1], 64;
  mov.u32 %r6, %tid.x;
  mov.u32 %r7, %ntid.x;
  mov.u32 %r6, %clock;
  mov.u32 %r6, %lanemask_lt;
  mov.b32 %r6, %r7;
  mov.u32 %r6, %ctaid.y;
}
)";

class PtxOpNamesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    mod = ptx::parse_module(kPtx, "t.ptx");
    names = PtxOpNames::load_from(std::string(WARPSIM_SOURCE_DIR) + "/isa/ptx.toml");
  }
  std::string name(size_t i, ptx::StateSpace s = ptx::StateSpace::None, bool in_kernel = true) {
    return names.sass_name(mod.functions[0].body.at(i), s, in_kernel, "t.ptx");
  }
  ptx::Module mod;
  PtxOpNames names;
};

TEST_F(PtxOpNamesTest, ArithmeticByTypeClass) {
  EXPECT_EQ(name(0), "FFMA");
  EXPECT_EQ(name(6), "FSETP");
  EXPECT_EQ(name(7), "ISETP");
  EXPECT_EQ(name(8), "IMAD");
  EXPECT_EQ(name(11), "MUFU");
}

TEST_F(PtxOpNamesTest, ConversionsByBothTypes) {
  EXPECT_EQ(name(3), "I2F");
  EXPECT_EQ(name(4), "PRMT");  // integer widening is a register move, not a conversion unit op
  EXPECT_EQ(name(5), "F2F");
}

TEST_F(PtxOpNamesTest, MemoryByTheSpaceActuallyAccessed) {
  EXPECT_EQ(name(1, ptx::StateSpace::Global), "LDG");
  EXPECT_EQ(name(2, ptx::StateSpace::Shared), "LDS");  // a generic load that hit shared memory
  EXPECT_EQ(name(2, ptx::StateSpace::Local), "LDL");
  EXPECT_EQ(name(9, ptx::StateSpace::Global), "ATOMG");
  EXPECT_EQ(name(9, ptx::StateSpace::Shared), "ATOMS");
  EXPECT_EQ(name(12, ptx::StateSpace::Param), "MOV");  // kernel parameters are constant-bank operands
  EXPECT_EQ(name(20, ptx::StateSpace::Global), "LDG");   // 256-bit: the width rides in the suffix
  EXPECT_EQ(name(21, ptx::StateSpace::Shared), "ATOMS");
}

// A generic access every lane of which was predicated off resolved no space
// (the emulator reports it as generic): it is named as the global form, not
// refused ("no SASS class" for grid.sync's `@%p atom.add.release.gpu.u32`).
TEST_F(PtxOpNamesTest, GenericAccessWithNoLaneTakesTheGlobalName) {
  EXPECT_EQ(name(19, ptx::StateSpace::Generic), "ATOMG");
  EXPECT_EQ(name(2, ptx::StateSpace::Generic), "LDG");
  EXPECT_EQ(name(19, ptx::StateSpace::Shared), "ATOMS");
}

// mbarrier objects are shared-memory words updated in place; a bulk copy is
// named by its global side; setmaxnreg does nothing here.
TEST_F(PtxOpNamesTest, AsynchronousBarriersAndCopies) {
  EXPECT_EQ(name(14, ptx::StateSpace::Shared), "ATOMS");
  EXPECT_EQ(name(15), "MOV");
  EXPECT_EQ(name(16, ptx::StateSpace::Shared), "ATOMS");  // not cp.async's LDG
  EXPECT_EQ(name(17, ptx::StateSpace::Global), "LDG");
  EXPECT_EQ(name(18), "NOP");
  EXPECT_EQ(name(22), "DEPBAR");  // the bulk forms' groups, as cp.async's
  EXPECT_EQ(name(23), "DEPBAR");
  EXPECT_EQ(name(24), "NOP");
}

// ptxas reads the thread's coordinates and lane masks with S2R (a
// variable-latency read), the launch's sizes from the constant bank and the
// clock with CS2R; a plain register move stays a MOV.
TEST_F(PtxOpNamesTest, ThreadRegistersAreReadWithS2R) {
  EXPECT_EQ(name(25), "S2R");
  EXPECT_EQ(name(26), "MOV");
  EXPECT_EQ(name(27), "MOV");
  EXPECT_EQ(name(28), "S2R");
  EXPECT_EQ(name(29), "MOV");
  EXPECT_EQ(name(30), "S2R");
}

TEST_F(PtxOpNamesTest, ControlAndReturn) {
  EXPECT_EQ(name(10), "BAR");
  EXPECT_EQ(name(13, ptx::StateSpace::None, true), "EXIT");
  EXPECT_EQ(name(13, ptx::StateSpace::None, false), "RET");
}

TEST(PtxOpNames, UnknownInstructionNamesLineAndTable) {
  ptx::Module m = ptx::parse_module(R"(
.version 9.0
.target sm_80
.address_size 64
.visible .entry k()
{
  frobnicate.b32 1;
  ret;
}
)", "u.ptx");
  PtxOpNames names = PtxOpNames::load_from(std::string(WARPSIM_SOURCE_DIR) + "/isa/ptx.toml");
  try {
    names.sass_name(m.functions[0].body[0], ptx::StateSpace::None, true, "u.ptx");
    FAIL() << "expected an error";
  } catch (const InputError& e) {
    std::string msg = e.what();
    EXPECT_NE(msg.find("u.ptx:7"), std::string::npos) << msg;
    EXPECT_NE(msg.find("frobnicate"), std::string::npos) << msg;
    EXPECT_NE(msg.find("ptx.toml"), std::string::npos) << msg;
  }
}

}  // namespace
}  // namespace ws::exec

namespace ws::exec {
namespace {

// [expand]: what ptxas issues ahead of an instruction that becomes a
// sequence. A register divisor takes the long form, an immediate the
// multiply by its reciprocal; plain arithmetic expands to nothing.
TEST(PtxOpNames, DivisionsExpandByTheirDivisorsForm) {
  ptx::Module m = ptx::parse_module(R"(
.version 9.0
.target sm_80
.address_size 64
.visible .entry k()
{
  .reg .b32 %r<8>;
  .reg .b64 %rd<4>;
  .reg .f64 %fd<4>;
  rem.s32 %r1, %r2, %r3;
  rem.s32 %r1, %r2, 7;
  div.u32 %r1, %r2, %r3;
  add.s32 %r1, %r2, %r3;
  div.rn.f64 %fd1, %fd2, %fd3;
  sqrt.rn.f64 %fd1, %fd2;
  div.s64 %rd1, %rd2, %rd3;
}
)",
                                    "t.ptx");
  PtxOpNames names = PtxOpNames::load_from(std::string(WARPSIM_SOURCE_DIR) + "/isa/ptx.toml");
  const auto& body = m.functions[0].body;
  auto steps = [&](size_t i) {
    const std::vector<PtxOpNames::Step>* s = names.expansion(body.at(i));
    return s ? s->size() : 0u;
  };
  EXPECT_EQ(steps(0), 9u);  // IABS, IMAD.HI, ... (the divisor's reciprocal hoisted)
  EXPECT_EQ(steps(1), 3u);  // IMAD.HI, SHF, IMAD
  EXPECT_EQ(steps(2), 7u);
  EXPECT_EQ(steps(3), 0u);
  ASSERT_EQ(steps(4), 11u);
  const std::vector<PtxOpNames::Step>& div = *names.expansion(body.at(4));
  EXPECT_EQ(div[0].sass, "MUFU");
  EXPECT_TRUE(div[0].chained);
  EXPECT_FALSE(div.back().chained);  // a range check beside the chain
  EXPECT_EQ(steps(5), 12u);
  EXPECT_EQ(names.sass_name(body.at(5), ptx::StateSpace::None, true, "t.ptx"), "DFMA");  // the last step
  EXPECT_EQ(steps(6), 0u);  // 64-bit division: not expanded
}

// What ptxas puts around ordered accesses and fences (sm_90 SASS of
// tests/cuda/scoped_atomics): MEMBAR.ALL.<scope>, ERRBAR, CGAERRBAR ahead of
// a release; CCTL.IVALL after an acquire at GPU or system scope; nothing
// for relaxed accesses or around CTA-scope acquires.
TEST(PtxOpNames, OrderedAccessesTakeTheFencesPtxasPutsAroundThem) {
  ptx::Module m = ptx::parse_module(R"(
.version 9.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 p)
{
  .reg .b32 %r<8>;
  .reg .b64 %rd<4>;
  atom.release.gpu.global.add.u32 %r1, [%rd1], 1;
  atom.acquire.gpu.global.add.u32 %r1, [%rd1], 1;
  atom.acq_rel.sys.global.add.u32 %r1, [%rd1], 1;
  atom.relaxed.gpu.global.add.u32 %r1, [%rd1], 1;
  atom.acquire.cta.shared.add.u32 %r1, [%rd1], 1;
  atom.release.cta.global.add.u32 %r1, [%rd1], 1;
  atom.global.add.u32 %r1, [%rd1], 1;
  ld.acquire.gpu.global.u32 %r1, [%rd1];
  st.release.gpu.global.u32 [%rd1], %r1;
  red.release.global.add.u32 [%rd1], 1;
  membar.gl;
  membar.cta;
  fence.acq_rel.sys;
  fence.sc.cta;
  atom.add.release.gpu.u32 %r1, [%rd1], %r2;
  atom.cas.acq_rel.gpu.b32 %r1, [%rd1], %r2, %r3;
}
)",
                                    "t.ptx");
  PtxOpNames names = PtxOpNames::load_from(std::string(WARPSIM_SOURCE_DIR) + "/isa/ptx.toml");
  const auto& body = m.functions[0].body;
  // Each step as "OP" ahead of the instruction or ">OP" after it.
  auto steps = [&](size_t i) {
    std::vector<std::string> out;
    if (const std::vector<PtxOpNames::Step>* s = names.expansion(body.at(i)))
      for (const PtxOpNames::Step& st : *s) out.push_back((st.after ? ">" : "") + st.sass);
    return out;
  };
  using V = std::vector<std::string>;
  const V release_gpu = {"MEMBAR.ALL.GPU", "ERRBAR", "CGAERRBAR"};
  EXPECT_EQ(steps(0), release_gpu);
  EXPECT_EQ(steps(1), V{">CCTL.IVALL"});
  EXPECT_EQ(steps(2), (V{"MEMBAR.ALL.SYS", "ERRBAR", "CGAERRBAR", ">CCTL.IVALL"}));
  EXPECT_EQ(steps(3), V{});
  EXPECT_EQ(steps(4), V{});  // a CTA's accesses share its L1: nothing to invalidate
  EXPECT_EQ(steps(5), V{"MEMBAR.ALL.CTA"});
  EXPECT_EQ(steps(6), V{});
  EXPECT_EQ(steps(7), V{">CCTL.IVALL"});
  EXPECT_EQ(steps(8), release_gpu);
  EXPECT_EQ(steps(9), release_gpu);  // no scope written: the GPU's
  EXPECT_EQ(steps(10), (V{">ERRBAR", ">CGAERRBAR", ">CCTL.IVALL"}));
  EXPECT_EQ(steps(11), V{});
  EXPECT_EQ(steps(12), (V{">ERRBAR", ">CGAERRBAR", ">CCTL.IVALL"}));
  EXPECT_EQ(steps(13), V{});
  // libcu++'s order of modifiers: the operation first.
  EXPECT_EQ(steps(14), release_gpu);
  EXPECT_EQ(steps(15), (V{"MEMBAR.ALL.GPU", "ERRBAR", "CGAERRBAR", ">CCTL.IVALL"}));
}

}  // namespace
}  // namespace ws::exec
