// Registers per thread from ptxas (exec/ptxas.h): the `-v` report read per
// kernel, and, where the toolkit's ptxas is installed, a small kernel gets
// the few registers ptxas gives it instead of the 32 assumed without it.
#include "exec/ptxas.h"

#include <gtest/gtest.h>

#include <string>

#include "exec/device.h"
#include "exec/emu_test_util.h"
#include "exec/program.h"
#include "frontend/ptx/parser.h"

namespace ws::exec {
namespace {

TEST(Ptxas, ReadsTheRegistersOfEachEntryFunction) {
  const std::string out =
      "ptxas info    : 0 bytes gmem\n"
      "ptxas info    : Compiling entry function '_Z3bigPf' for 'sm_80'\n"
      "ptxas info    : Function properties for _Z3bigPf\n"
      "    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
      "ptxas info    : Used 102 registers, 360 bytes cmem[0]\n"
      "ptxas info    : Compiling function 'helper' for 'sm_80'\n"
      "ptxas info    : Used 40 registers\n"
      "ptxas info    : Compiling entry function 'small' for 'sm_80'\n"
      "ptxas info    : Used 8 registers, used 1 barriers, 2048 bytes smem, 376 bytes cmem[0]\n";
  auto regs = parse_ptxas_registers(out);
  ASSERT_EQ(regs.size(), 2u);  // the .func is no kernel
  EXPECT_EQ(regs["_Z3bigPf"], 102u);
  EXPECT_EQ(regs["small"], 8u);
  EXPECT_TRUE(parse_ptxas_registers("ptxas fatal   : Unresolved extern function 'f'\n").empty());
}

// out[tid] = tid: a handful of registers, far below the 32 assumed.
std::string small_ptx() {
  return test::kernel_ptx("small", ".param .u64 p", R"(
    ld.param.u64 %rd1, [p];
    mov.u32 %r1, %tid.x;
    mul.wide.u32 %rd2, %r1, 4;
    add.s64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r1;
    ret;
  )");
}

TEST(Ptxas, KernelsGetTheRegistersPtxasAllocates) {
  std::optional<std::string> ptxas = find_ptxas();
  if (!ptxas) GTEST_SKIP() << "no ptxas (CUDA toolkit) on this machine";
  DeviceMemory mem;
  Program program{mem};
  program.set_ptxas(ptxas, 80);
  std::string text = small_ptx();
  const LoadedModule& m = program.load(ptx::parse_module(text, "t.ptx"), text);
  const ptx::Function& k = m.ast.functions.front();
  EXPECT_GT(k.allocated_regs, 0u);
  EXPECT_LT(k.allocated_regs, 24u);
  DeviceFacts facts;
  EXPECT_EQ(regs_per_thread(facts, k), k.allocated_regs);
  // Without the text (or without ptxas) the assumption stays.
  Program plain{mem};
  plain.set_ptxas(ptxas, 80);
  const LoadedModule& p = plain.load(ptx::parse_module(text, "t.ptx"));
  EXPECT_EQ(p.ast.functions.front().allocated_regs, 0u);
  EXPECT_EQ(regs_per_thread(facts, p.ast.functions.front()), 32u);
}

}  // namespace
}  // namespace ws::exec
