// Kernel features for sampling: counts reasoned from the kernel's shape.
#include <gtest/gtest.h>

#include "e2e/sim_util.h"
#include "frontend/trace/trace_reader.h"
#include "sampling/kernel_features.h"

namespace ws::sampling {
namespace {

ir::WarpInst strided_load(uint32_t mask, Addr base, int32_t stride, uint8_t bytes) {
  ir::WarpInst in;
  in.kind = ir::OpKind::Load;
  in.space = ir::MemSpace::Global;
  in.active_mask = mask;
  in.strided = true;
  in.base = base;
  in.stride = stride;
  in.access_bytes = bytes;
  return in;
}

TEST(KernelFeatures, SectorsFollowTheAccessPattern) {
  EXPECT_EQ(sectors_touched(strided_load(0xffffffff, 0x1000, 4, 4)), 4u);     // 128 B: 4 sectors
  EXPECT_EQ(sectors_touched(strided_load(0xffffffff, 0x1000, 8, 8)), 8u);     // 256 B
  EXPECT_EQ(sectors_touched(strided_load(0xffffffff, 0x1000, 128, 4)), 32u);  // one sector per lane
  EXPECT_EQ(sectors_touched(strided_load(0xffffffff, 0x1000, 0, 4)), 1u);     // all lanes on one word
  EXPECT_EQ(sectors_touched(strided_load(0x0000000f, 0x1000, 4, 4)), 1u);     // 4 lanes, 16 B
  // 8-byte accesses at an offset of 28: each straddles a sector boundary.
  EXPECT_EQ(sectors_touched(strided_load(0x00000001, 0x101c, 0, 8)), 2u);
  EXPECT_EQ(sectors_touched(strided_load(0, 0x1000, 4, 4)), 0u);  // predicated off
}

// A grid-stride copy: every thread loads and stores `iterations` 4-byte words,
// consecutive threads consecutive words, so sectors are bytes / 32.
TEST(KernelFeatures, StreamKernelCountsFollowFromItsShape) {
  frontend::SynthSpec spec;
  spec.kind = "stream";
  spec.ctas = 16;
  spec.threads_per_cta = 128;
  spec.iterations = 4;
  spec.footprint_bytes = 1 << 20;
  auto work = frontend::open_trace_workload(test::synth(spec, "features-stream"));
  std::unique_ptr<ir::KernelSource> kernel;
  while (auto cmd = work->next())
    if (auto* k = std::get_if<std::unique_ptr<ir::KernelSource>>(&*cmd)) kernel = std::move(*k);
  ASSERT_TRUE(kernel);
  KernelFeatures f = profile_kernel(*kernel, 1);
  double threads = 16.0 * 128;
  EXPECT_EQ(f[Feature::Ctas], 16);
  EXPECT_EQ(f[Feature::GlobalLoads], threads * 4);
  EXPECT_EQ(f[Feature::GlobalStores], threads * 4);
  EXPECT_EQ(f[Feature::GlobalLoadSectors], threads * 4 * 4 / 32);
  EXPECT_EQ(f[Feature::GlobalStoreSectors], threads * 4 * 4 / 32);
  EXPECT_EQ(f[Feature::WarpInsts], static_cast<double>(frontend::synth_instruction_count(spec)));
  EXPECT_EQ(f[Feature::ThreadsPerInst], 32);  // full warps, no divergence
  EXPECT_EQ(f[Feature::SharedLoads] + f[Feature::LocalLoads] + f[Feature::GlobalAtomics], 0);
  EXPECT_EQ(ncu_name(Feature::GlobalLoadSectors), "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum");
}

}  // namespace
}  // namespace ws::sampling
