// TraceCta storage: one array for all warps, addresses bound at finish(), and
// buffers recycled between CTAs through the pool.
#include "frontend/trace/trace_cta.h"

#include <gtest/gtest.h>

#include <vector>

namespace ws::frontend {
namespace {

// Lane addresses derived from the pc: unit stride, except that every other
// pc moves lane 5 off the line (kept as a list, not base + stride).
Addr addr_of(uint64_t pc, uint32_t lane) { return pc * 1000 + lane * 4 + (lane == 5 && (pc >> 1) % 2 ? 64 : 0); }

// An instruction whose pc encodes (tag, warp, index); memory ones carry
// lane addresses derived from the pc.
ParsedInst make_inst(uint64_t pc, bool memory) {
  ParsedInst p;
  p.inst.pc = pc;
  p.inst.active_mask = 0xffffffffu;
  p.inst.kind = memory ? ir::OpKind::Load : ir::OpKind::Alu;
  p.has_addrs = memory;
  if (memory) {
    for (uint32_t lane = 0; lane < 32; ++lane) p.addrs[lane] = addr_of(pc, lane);
    p.inst.addrs = p.addrs.data();
  }
  return p;
}

uint64_t pc_of(uint32_t tag, uint32_t warp, uint32_t i) { return uint64_t{tag} << 32 | warp << 16 | i; }

// Warp w gets w + 3 instructions, every other one a load.
void fill(TraceCta& cta, uint32_t warps, uint32_t tag) {
  for (uint32_t w = 0; w < warps; ++w) {
    cta.reserve(w + 3);
    for (uint32_t i = 0; i < w + 3; ++i) cta.add(w, make_inst(pc_of(tag, w, i), i % 2 == 1));
  }
  cta.finish();
}

void expect_filled(TraceCta& cta, uint32_t warps, uint32_t tag) {
  for (uint32_t w = 0; w < warps; ++w) {
    for (uint32_t i = 0; i < w + 3; ++i) {
      const ir::WarpInst* in = cta.next(w);
      ASSERT_NE(in, nullptr) << "warp " << w << " inst " << i;
      uint64_t pc = pc_of(tag, w, i);
      EXPECT_EQ(in->pc, pc);
      if (i % 2 == 0) {
        EXPECT_FALSE(in->has_addrs());
        continue;
      }
      ASSERT_TRUE(in->has_addrs());
      EXPECT_EQ(in->strided, (pc >> 1) % 2 == 0);  // only scattered ones keep a list
      for (uint32_t lane = 0; lane < 32; ++lane) EXPECT_EQ(in->lane_addr(lane), addr_of(pc, lane));
    }
    EXPECT_EQ(cta.next(w), nullptr);
  }
  EXPECT_EQ(cta.next(warps), nullptr);
}

TEST(TraceCta, InstructionsAndAddressesPerWarp) {
  auto pool = std::make_shared<CtaBufferPool>();
  TraceCta cta(4, pool);
  fill(cta, 4, 1);
  expect_filled(cta, 4, 1);
}

TEST(TraceCta, ReusedBuffersKeepEveryLiveCtaIntact) {
  auto pool = std::make_shared<CtaBufferPool>();
  auto first = std::make_unique<TraceCta>(8, pool);
  fill(*first, 8, 1);
  first.reset();
  ASSERT_EQ(pool->spares(), 1u);
  // The second CTA reads into the first one's buffers, the third into new ones.
  TraceCta second(6, pool), third(8, pool);
  EXPECT_EQ(pool->spares(), 0u);
  fill(second, 6, 2);
  fill(third, 8, 3);
  expect_filled(second, 6, 2);
  expect_filled(third, 8, 3);
}

TEST(TraceCta, CtaOutlivesItsPool) {
  auto pool = std::make_shared<CtaBufferPool>();
  auto cta = std::make_unique<TraceCta>(2, pool);
  pool.reset();
  fill(*cta, 2, 4);
  expect_filled(*cta, 2, 4);
}

TEST(TraceCta, WarpListedTwiceKeepsItsOrder) {
  auto pool = std::make_shared<CtaBufferPool>();
  TraceCta cta(3, pool);
  std::vector<std::pair<uint32_t, uint32_t>> order = {{1, 0}, {1, 1}, {0, 0}, {1, 2}, {0, 1}, {1, 3}};
  for (auto [w, i] : order) cta.add(w, make_inst(pc_of(5, w, i), i == 1));
  cta.finish();
  for (uint32_t w : {0u, 1u}) {
    uint32_t n = w == 0 ? 2 : 4;
    for (uint32_t i = 0; i < n; ++i) {
      const ir::WarpInst* in = cta.next(w);
      ASSERT_NE(in, nullptr);
      EXPECT_EQ(in->pc, pc_of(5, w, i));
      if (i == 1) {
        ASSERT_TRUE(in->has_addrs());
        EXPECT_EQ(in->lane_addr(31), addr_of(pc_of(5, w, i), 31));
      }
    }
    EXPECT_EQ(cta.next(w), nullptr);
  }
  EXPECT_EQ(cta.next(2), nullptr);
}

TEST(TraceCta, PoolKeepsABoundedNumberOfSpares) {
  auto pool = std::make_shared<CtaBufferPool>();
  std::vector<std::unique_ptr<TraceCta>> ctas;
  for (int i = 0; i < 40; ++i) {
    ctas.push_back(std::make_unique<TraceCta>(1, pool));
    fill(*ctas.back(), 1, static_cast<uint32_t>(i));
  }
  ctas.clear();
  EXPECT_GT(pool->spares(), 0u);
  EXPECT_LT(pool->spares(), 40u);
}

// Dynamic instances of one static instruction share a table entry and keep
// their own lanes and addresses; a change in any static field (a register,
// the stride, a lane list instead of a stride) makes a separate entry.
TEST(TraceCta, InstancesShareTheirStaticInstruction) {
  auto pool = std::make_shared<CtaBufferPool>();
  TraceCta cta(2, pool);
  auto load = [](uint32_t mask, Addr base, uint32_t stride, uint16_t src) {
    ParsedInst p;
    p.inst.pc = 0x40;
    p.inst.active_mask = mask;
    p.inst.kind = ir::OpKind::Load;
    p.inst.n_src = 1;
    p.inst.src[0] = src;
    p.has_addrs = true;
    for (uint32_t lane = 0; lane < 32; ++lane) p.addrs[lane] = base + lane * stride;
    p.inst.addrs = p.addrs.data();
    return p;
  };
  cta.add(0, load(0xffffffffu, 0x1000, 4, 2));
  cta.add(1, load(0x0000ffffu, 0x9000, 4, 2));  // same static instruction
  cta.add(0, load(0xffffffffu, 0x2000, 8, 2));  // other stride
  cta.add(1, load(0xffffffffu, 0x3000, 4, 3));  // other source register
  ParsedInst scattered = load(0xffffffffu, 0x4000, 4, 2);
  scattered.addrs[7] = 0x8000;  // not strided: keeps a lane list
  cta.add(0, scattered);
  cta.finish();
  EXPECT_EQ(pool->protos().size(), 4u);
  const ir::WarpInst* a = cta.next(0);
  ASSERT_TRUE(a);
  EXPECT_EQ(a->active_mask, 0xffffffffu);
  EXPECT_EQ(a->lane_addr(3), 0x100cu);
  const ir::WarpInst* b = cta.next(1);
  ASSERT_TRUE(b);
  EXPECT_EQ(b->active_mask, 0x0000ffffu);
  EXPECT_EQ(b->lane_addr(3), 0x900cu);
  EXPECT_EQ(cta.next(0)->lane_addr(3), 0x2018u);
  const ir::WarpInst* d = cta.next(1);
  ASSERT_TRUE(d);
  EXPECT_EQ(d->src[0], 3);
  const ir::WarpInst* e = cta.next(0);
  ASSERT_TRUE(e);
  EXPECT_FALSE(e->strided);
  EXPECT_EQ(e->lane_addr(7), 0x8000u);
  EXPECT_EQ(e->lane_addr(8), 0x4020u);
}

}  // namespace
}  // namespace ws::frontend
