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

}  // namespace
}  // namespace ws::frontend
