// A fence's scope from its SASS modifiers: the timing model holds the warp
// for that scope's latency (core.fence_cta_latency / fence_latency /
// fence_sys_latency).
#include <gtest/gtest.h>

#include "frontend/trace/trace_parse.h"

namespace ws::frontend {
namespace {

TEST(FenceScope, ReadFromTheModifiers) {
  EXPECT_EQ(fence_scope_of("MEMBAR.CTA"), ir::MemSpace::Shared);
  EXPECT_EQ(fence_scope_of("MEMBAR.SC.GPU"), ir::MemSpace::Global);
  EXPECT_EQ(fence_scope_of("MEMBAR.ALL.GPU"), ir::MemSpace::Global);
  EXPECT_EQ(fence_scope_of("MEMBAR.SC.SYS"), ir::MemSpace::System);
  EXPECT_EQ(fence_scope_of("MEMBAR.SYS"), ir::MemSpace::System);
  EXPECT_EQ(fence_scope_of("MEMBAR"), ir::MemSpace::Global);  // no scope written: the GPU's
}

// What ptxas puts after a GPU MEMBAR (__threadfence() on sm_90 is MEMBAR.SC.GPU,
// ERRBAR, CGAERRBAR, CCTL.IVALL) waits within the SM only: timed as a CTA
// fence, so a trace of one __threadfence pays the GPU latency once, not four
// times.
TEST(FenceScope, TheOpsAfterAMembarAreLocalToTheSm) {
  for (const char* op : {"ERRBAR", "CGAERRBAR", "CCTL.IVALL", "CCTL.E.PF2", "FENCE.VIEW.ASYNC.S", "ERRBAR.SYS"})
    EXPECT_EQ(fence_scope_of(op), ir::MemSpace::Shared) << op;
}

}  // namespace
}  // namespace ws::frontend
