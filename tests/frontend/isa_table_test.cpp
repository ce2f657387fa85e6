// Opcode tables: every shipped generation loads; inheritance; errors.
#include "frontend/trace_test_util.h"
#include "frontend/trace/isa_table.h"

#include <map>

namespace ws::frontend {
namespace {

const OpInfo& op(uint32_t sm, std::string_view name) {
  static std::map<uint32_t, IsaTable> tables;
  auto it = tables.find(sm);
  if (it == tables.end()) it = tables.emplace(sm, IsaTable::load_from(test::isa_dir(), sm)).first;
  return it->second.lookup(name);
}

uint8_t unit(const char* n) { return IsaTable::unit_index(n); }

TEST(IsaTable, EveryShippedGenerationLoads) {
  for (uint32_t sm : {20u, 35u, 61u, 70u, 75u, 80u, 86u, 89u, 90u}) {
    IsaTable t = IsaTable::load_from(test::isa_dir(), sm);
    EXPECT_GT(t.size(), 100u) << sm;
    EXPECT_EQ(t.unit_names(), IsaTable::unit_vocabulary());
    EXPECT_EQ(t.lookup("EXIT").kind, ir::OpKind::Exit) << sm;
    EXPECT_EQ(t.lookup("BAR.SYNC").kind, ir::OpKind::Barrier) << sm;
  }
}

TEST(IsaTable, ClassesFollowTheGeneration) {
  EXPECT_EQ(op(61, "XMAD.PSL").unit, unit("int"));
  EXPECT_EQ(op(61, "LDS.U.32").space, IsaSpace::Shared);
  EXPECT_EQ(op(70, "FFMA").unit, unit("sp"));
  EXPECT_EQ(op(70, "DFMA").unit, unit("dp"));
  EXPECT_EQ(op(70, "MUFU.RSQ").unit, unit("sfu"));
  EXPECT_EQ(op(70, "I2F.F64").unit, unit("sfu"));
  EXPECT_EQ(op(70, "HMMA.884.F32").unit, unit("tensor"));
  EXPECT_EQ(op(70, "BSSY").kind, ir::OpKind::Alu);  // a reconvergence record, not a control transfer
  EXPECT_EQ(op(70, "LD.E").space, IsaSpace::Generic);
  EXPECT_EQ(op(70, "RED.E.ADD").kind, ir::OpKind::Atomic);
  EXPECT_EQ(op(70, "MEMBAR.GL").kind, ir::OpKind::MemBar);
  EXPECT_EQ(op(75, "IMMA").unit, unit("tensor"));
  EXPECT_EQ(op(75, "UIADD3").unit, unit("int"));
  EXPECT_EQ(op(80, "DMMA").unit, unit("tensor"));
  EXPECT_EQ(op(80, "LDGSTS.E.128").space, IsaSpace::Global);
  EXPECT_EQ(op(86, "HMMA").unit, unit("tensor"));
  EXPECT_EQ(op(90, "HGMMA").unit, unit("tensor"));
  EXPECT_EQ(op(90, "IADD3").unit, unit("int"));  // inherited through four tables
}

// Fermi and Kepler tables: sm_35 inherits sm_20 and adds Kepler's opcodes.
// Opcodes of nvcc 13's sm_90 code that older generations lack, from the
// H100 dumps (examples/hw/h100-2026-11-26-stalls/sass.tar.xz): an NVBit
// trace of Hopper code holds them.
TEST(IsaTable, HopperCodeOpcodes) {
  EXPECT_EQ(op(90, "VIADD").unit, unit("int"));
  EXPECT_EQ(op(90, "VIMNMX.S32").unit, unit("int"));
  EXPECT_EQ(op(90, "VIADDMNMX").unit, unit("int"));
  EXPECT_EQ(op(90, "I2FP.F32.S32").unit, unit("int"));
  EXPECT_EQ(op(90, "REDG.E.ADD.STRONG.GPU").kind, ir::OpKind::Atomic);
  EXPECT_EQ(op(90, "REDG.E.ADD.STRONG.GPU").space, IsaSpace::Global);
  EXPECT_EQ(op(90, "CGAERRBAR").kind, ir::OpKind::MemBar);
  EXPECT_EQ(op(90, "PREEXIT").kind, ir::OpKind::Alu);
  EXPECT_EQ(IsaTable::load_from(test::isa_dir(), 89).find("VIADD"), nullptr);
}

TEST(IsaTable, FermiAndKeplerTables) {
  EXPECT_EQ(op(20, "ISCADD").unit, unit("int"));
  EXPECT_EQ(op(20, "FFMA.FTZ").unit, unit("sp"));
  EXPECT_EQ(op(20, "DFMA").unit, unit("dp"));
  EXPECT_EQ(op(20, "LDSLK").space, IsaSpace::Shared);
  EXPECT_EQ(op(20, "LD.E").space, IsaSpace::Generic);
  EXPECT_EQ(op(20, "LDL.64").space, IsaSpace::Local);
  EXPECT_EQ(op(20, "ATOM.E.ADD").kind, ir::OpKind::Atomic);
  EXPECT_EQ(op(20, "SSY").kind, ir::OpKind::Branch);
  EXPECT_EQ(op(35, "SHFL.IDX").unit, unit("int"));
  EXPECT_EQ(op(35, "LDG.E.CT").space, IsaSpace::Global);
  EXPECT_EQ(op(35, "IMAD").unit, unit("int"));  // inherited from sm_20
  EXPECT_EQ(op(35, "EXIT").kind, ir::OpKind::Exit);
  IsaTable fermi = IsaTable::load_from(test::isa_dir(), 20);
  EXPECT_EQ(fermi.find("SHFL"), nullptr);  // Kepler-only
  EXPECT_EQ(fermi.find("XMAD"), nullptr);  // Maxwell and Pascal
}

TEST(IsaTable, UnknownOpcodeAndVersion) {
  IsaTable t = IsaTable::load_from(test::isa_dir(), 70);
  EXPECT_EQ(t.find("XMAD"), nullptr);  // Pascal-only
  std::string m = test::error_of([&] { t.lookup("XMAD.MRG"); });
  EXPECT_NE(m.find("'XMAD'"), std::string::npos) << m;
  EXPECT_NE(m.find("field 'opcode'"), std::string::npos) << m;
  m = test::error_of([] { IsaTable::load_from(test::isa_dir(), 12); });
  EXPECT_NE(m.find("sm_12.toml"), std::string::npos) << m;
}

TEST(IsaTable, NewGenerationIsADataFile) {
  auto d = test::temp_dir("isa");
  test::write_file(d / "sm_1.toml", "[[group]]\nkind = \"alu\"\nunit = \"int\"\nops = [\"FOO\", \"BAR2\"]\n");
  test::write_file(d / "sm_2.toml",
                   "base = \"sm_1\"\n[[group]]\nkind = \"load\"\nunit = \"ldst\"\nspace = \"global\"\nops = [\"FOO\"]\n");
  IsaTable t = IsaTable::load_from(d.string(), 2);
  EXPECT_EQ(t.lookup("FOO.X").kind, ir::OpKind::Load);
  EXPECT_EQ(t.lookup("BAR2").unit, unit("int"));
  test::write_file(d / "sm_3.toml", "[[group]]\nkind = \"alu\"\nunit = \"gpu\"\nops = [\"X\"]\n");
  std::string m = test::error_of([&] { IsaTable::load_from(d.string(), 3); });
  EXPECT_NE(m.find("sm_3.toml: field 'unit'"), std::string::npos) << m;
  test::write_file(d / "sm_4.toml", "[[group]]\nkind = \"store\"\nunit = \"ldst\"\nops = [\"X\"]\n");
  m = test::error_of([&] { IsaTable::load_from(d.string(), 4); });
  EXPECT_NE(m.find("field 'space'"), std::string::npos) << m;
  test::write_file(d / "sm_5.toml", "base = \"sm_5\"\n");
  m = test::error_of([&] { IsaTable::load_from(d.string(), 5); });
  EXPECT_NE(m.find("too deep"), std::string::npos) << m;
  test::write_file(d / "sm_6.toml", "[[group]\n");
  m = test::error_of([&] { IsaTable::load_from(d.string(), 6); });
  EXPECT_NE(m.find("sm_6.toml:1"), std::string::npos) << m;
}

// [branch_predicate]: which instructions set a predicate a branch tests and
// which branches test one (core.branch_predicate_latency); from Volta on,
// inherited; an opcode the groups do not define is an error naming the key.
TEST(IsaTable, BranchesAndThePredicatesTheyTest) {
  for (uint32_t sm : {70u, 90u}) {
    EXPECT_TRUE(op(sm, "ISETP.GE.AND").sets_branch_pred) << sm;
    EXPECT_TRUE(op(sm, "FSETP.GT.AND").sets_branch_pred) << sm;
    EXPECT_TRUE(op(sm, "PLOP3.LUT").sets_branch_pred) << sm;
    EXPECT_TRUE(op(sm, "BRA").tests_branch_pred) << sm;
    EXPECT_TRUE(op(sm, "EXIT").tests_branch_pred) << sm;
    EXPECT_FALSE(op(sm, "IADD3").sets_branch_pred || op(sm, "IADD3").tests_branch_pred) << sm;
    EXPECT_FALSE(op(sm, "BSYNC").tests_branch_pred) << sm;
  }
  EXPECT_FALSE(op(61, "ISETP").sets_branch_pred);  // not examined before Volta
  auto d = test::temp_dir("isa_pred");
  test::write_file(d / "sm_1.toml", "[[group]]\nkind = \"branch\"\nunit = \"branch\"\nops = [\"BRA\"]\n"
                                     "[branch_predicate]\nsets = [\"ISETP\"]\ntests = [\"BRA\"]\n");
  std::string m = test::error_of([&] { IsaTable::load_from(d.string(), 1); });
  EXPECT_NE(m.find("field 'branch_predicate.sets'"), std::string::npos) << m;
  EXPECT_NE(m.find("'ISETP'"), std::string::npos) << m;
}

TEST(IsaTable, DataDirHoldsTheTables) {
  IsaTable t = IsaTable::load(70);
  EXPECT_EQ(t.binary_version(), 70u);
}

}  // namespace
}  // namespace ws::frontend
