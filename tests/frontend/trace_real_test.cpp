// The two real NVBit traces in examples/traces (sm_61, tracer version 4).
#include <filesystem>

#include "frontend/trace_test_util.h"

namespace ws::frontend {
namespace {

std::string traces() {
  std::string dir = WARPSIM_SOURCE_DIR;  // appended to in place (LTO warns, wrongly, about operator+ here)
  dir.append("/examples/traces");
  return dir;
}

TEST(TraceReal, VectorAddHas344WarpInstructions) {
  std::string dir = traces() + "/vectoradd-100-32-trace";
  auto wl = open_trace_workload(dir);
  EXPECT_EQ(wl->kernel_count(), 1u);
  uint32_t kernels = 0, copies = 0;
  EXPECT_EQ(test::count_workload(*wl, &kernels, &copies), 344u);
  EXPECT_EQ(kernels, 1u);
  EXPECT_EQ(copies, 3u);
}

TEST(TraceReal, MatrixMulHas4416WarpInstructions) {
  std::string list = traces() + "/matrixmul-32-32-trace/kernelslist.g";
  auto wl = open_trace_workload(list);
  EXPECT_EQ(test::count_workload(*wl), 4416u);
}

TEST(TraceReal, VectorAddKernelFacts) {
  std::string dir = traces() + "/vectoradd-100-32-trace";
  auto wl = open_trace_workload(dir);
  std::unique_ptr<ir::KernelSource> k;
  while (auto c = wl->next())
    if (auto* p = std::get_if<std::unique_ptr<ir::KernelSource>>(&*c)) k = std::move(*p);
  ASSERT_TRUE(k);
  EXPECT_EQ(k->info().binary_version, 61u);
  EXPECT_EQ(k->info().block.x, 1024u);
  auto cta = k->next_cta();
  ASSERT_TRUE(cta);
  EXPECT_EQ(cta->num_warps(), 32u);
  bool saw_load = false;
  while (const ir::WarpInst* i = cta->next(0)) {
    if (i->kind != ir::OpKind::Load) continue;
    saw_load = true;
    EXPECT_EQ(i->space, ir::MemSpace::Global);
    ASSERT_TRUE(i->has_addrs());
    EXPECT_EQ(i->lane_addr(1) - i->lane_addr(0), 4u);
  }
  EXPECT_TRUE(saw_load);
  EXPECT_EQ(k->unit_names()[0], "sp");
}

}  // namespace
}  // namespace ws::frontend
