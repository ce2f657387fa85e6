// A kernel's parameters under the timing model (ir/param_bank.h): each
// `ld.param` is an LDC of the launch's constant bank, so an SM's first read
// of a bank line misses its constant cache and waits for an L2 round trip,
// and later reads of the line hit. With exec.param_bank=false it is a MOV.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "exec/emu_test_util.h"
#include "exec/timed_test_util.h"
#include "ir/param_bank.h"

namespace ws::exec {
namespace {

struct Result {
  uint64_t cycles = 0, warp_insts = 0, const_loads = 0, const_fills = 0, const_sectors = 0, dram_reads = 0;
  uint32_t value = 0;
};

// One warp: out[0] = the sum of `n` u32 parameters after the u64 `out`
// (1, 2, ... n), read back to back; then a second launch of the same kernel.
std::string sum_ptx(int n) {
  std::string params = ".param .u64 out", body = "    ld.param.u64 %rd1, [out];\n    mov.u32 %r1, 0;\n";
  for (int i = 0; i < n; ++i) {
    params += ", .param .u32 v" + std::to_string(i);
    body += "    ld.param.u32 %r" + std::to_string(10 + i) + ", [v" + std::to_string(i) + "];\n";
  }
  for (int i = 0; i < n; ++i) body += "    add.s32 %r1, %r1, %r" + std::to_string(10 + i) + ";\n";
  body += "    st.global.u32 [%rd1], %r1;\n    ret;\n";
  return test::kernel_ptx("sum", params, body);
}

Result run(int n, std::vector<std::string> sets = {}) {
  sets.push_back("l1i.perfect=true");
  std::vector<uint8_t> values(4 * static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) {
    uint32_t v = static_cast<uint32_t>(i + 1);
    std::memcpy(values.data() + 4 * i, &v, 4);
  }
  test::TimedRun t = test::run_timed(sum_ptx(n), "sum", {0}, "qv100", std::move(sets), {}, values);
  auto count = [&](const std::string& name) { return static_cast<uint64_t>(t.counters.value(name, 0.0)); };
  Result r;
  r.cycles = t.cycles;
  r.warp_insts = t.warp_insts;
  r.value = t.words[0];
  r.const_loads = count("sm.0.ldst.l1c.loads");
  r.const_fills = count("sm.0.ldst.l1c.fills");
  r.const_sectors = count("sm.0.ldst.l1c.sectors");
  for (const auto& [name, v] : t.counters.items())
    if (name.starts_with("dram.") && name.ends_with(".reads")) r.dram_reads += static_cast<uint64_t>(v.get<double>());
  return r;
}

TEST(ParamBank, ParametersSitWhereTheAbiPutsThem) {
  EXPECT_EQ(ir::param_bank_offset(90), 0x210u);  // nvcc 13, sm_90: EIATTR_PARAM_CBANK
  EXPECT_EQ(ir::param_bank_offset(70), 0x160u);
  EXPECT_EQ(ir::param_bank_offset(75), 0x160u);
  EXPECT_EQ(ir::param_bank_offset(61), 0x140u);
  EXPECT_TRUE(ir::is_param_bank_addr(ir::kParamBankBase + 0x210));
  EXPECT_FALSE(ir::is_param_bank_addr(ir::kParamBankBase - 1));
  EXPECT_FALSE(ir::is_param_bank_addr(0x0000'7f00'0000'0000ull));
}

// qv100: parameters from c[0x0][0x160]. `out` and v0..v5 fill 0x160-0x17b,
// one 64 B constant line (0x140-0x17f): the warp waits for it once, whatever
// the number of loads. With l1c.bank_latency = 0 the line comes from the L2
// (two sectors, no DRAM read: the launch wrote the bank), about an L2 round
// trip (212 cycles on qv100, docs/memory-system.md) more than with the
// parameters as MOVs; with the default the bank level answers after 130
// cycles, without L2 traffic.
TEST(ParamBank, AKernelsFirstParameterReadWaitsOnceALine) {
  Result l2 = run(6, {"l1c.bank_latency=0"}), mov = run(6, {"exec.param_bank=false"}),
         bank = run(6, {"l1c.bank_latency=130"});
  EXPECT_EQ(l2.value, 21u);
  EXPECT_EQ(mov.value, 21u);
  EXPECT_EQ(bank.value, 21u);
  EXPECT_EQ(l2.warp_insts, mov.warp_insts);  // an LDC for a MOV
  EXPECT_EQ(l2.const_loads, 7u);
  EXPECT_EQ(mov.const_loads, 0u);
  EXPECT_EQ(l2.const_fills, 1u);
  EXPECT_EQ(l2.const_sectors, 2u);
  EXPECT_EQ(l2.dram_reads, mov.dram_reads);
  double extra = double(l2.cycles) - double(mov.cycles);
  EXPECT_GT(extra, 200.0) << l2.cycles << " vs " << mov.cycles;
  EXPECT_LT(extra, 260.0) << l2.cycles << " vs " << mov.cycles;
  EXPECT_EQ(bank.const_fills, 1u);
  EXPECT_EQ(bank.const_sectors, 0u);
  EXPECT_NEAR(double(l2.cycles) - double(bank.cycles), extra - 130.0, 20.0) << bank.cycles;
}

// v6 sits at 0x180: the parameters now span two lines, read together (the
// second miss is sent while the first is on its way), so the warp waits
// about as long as for one.
TEST(ParamBank, ParametersOnTwoLinesAreTwoReadsInFlightTogether) {
  Result one = run(6, {"l1c.bank_latency=0"}), two = run(8, {"l1c.bank_latency=0"});
  EXPECT_EQ(two.value, 36u);
  EXPECT_EQ(two.const_fills, 2u);
  EXPECT_EQ(two.const_sectors, 4u);
  EXPECT_LT(double(two.cycles) - double(one.cycles), 40.0) << two.cycles << " vs " << one.cycles;
}

}  // namespace
}  // namespace ws::exec
