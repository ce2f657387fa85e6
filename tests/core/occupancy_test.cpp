#include <gtest/gtest.h>

#include "common/error.h"
#include "timing/gpu/occupancy.h"

namespace ws::timing {
namespace {

SmLimits volta() {
  SmLimits s;
  s.carveout_kb = {0, 8, 16, 32, 64, 96};
  return s;
}

ir::KernelInfo kernel(uint32_t threads, uint32_t regs, uint32_t shmem) {
  ir::KernelInfo k;
  k.name = "k";
  k.block = Dim3{threads, 1, 1};
  k.nregs = regs;
  k.shmem_bytes = shmem;
  return k;
}

TEST(CoreOccupancy, NoSharedMemoryGetsTheWholeArrayAsL1) {
  Occupancy o = plan_occupancy(volta(), kernel(256, 32, 0));
  EXPECT_EQ(o.shared_kb, 0u);
  EXPECT_EQ(o.l1_kb, 128u);
  EXPECT_EQ(o.ctas_per_sm, 8u);  // 2048 threads / 256; registers: 65536 / (32*256) = 8 too
}

TEST(CoreOccupancy, RegistersLimit) {
  Occupancy o = plan_occupancy(volta(), kernel(256, 64, 0));  // 64*32 = 2048 regs/warp, 8 warps -> 16384
  EXPECT_EQ(o.ctas_per_sm, 4u);
  EXPECT_EQ(o.limiter, "registers");
}

TEST(CoreOccupancy, SharedMemoryPicksSmallestCarveoutThatFitsAndShrinksL1) {
  // 1024 threads, 8 KB shared: 2 CTAs by threads -> 16 KB carve-out.
  Occupancy o = plan_occupancy(volta(), kernel(1024, 30, 8192));
  EXPECT_EQ(o.ctas_per_sm, 2u);
  EXPECT_EQ(o.shared_kb, 16u);
  EXPECT_EQ(o.l1_kb, 112u);
  // 40 KB per CTA: at most 96 KB -> 2 CTAs, limited by shared memory.
  Occupancy big = plan_occupancy(volta(), kernel(128, 16, 40 * 1024));
  EXPECT_EQ(big.shared_kb, 96u);
  EXPECT_EQ(big.ctas_per_sm, 2u);
  EXPECT_EQ(big.limiter, "shared memory");
}

TEST(CoreOccupancy, ImpossibleCtaIsAClearError) {
  EXPECT_THROW(plan_occupancy(volta(), kernel(4096, 16, 0)), InputError);
  EXPECT_THROW(plan_occupancy(volta(), kernel(128, 16, 200 * 1024)), InputError);
}

}  // namespace
}  // namespace ws::timing
