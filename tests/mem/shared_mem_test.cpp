#include "timing/mem/shared_mem.h"

#include <gtest/gtest.h>

#include <array>

namespace ws::timing {
namespace {

uint32_t strided(uint64_t stride_bytes, uint32_t bytes = 4, uint32_t mask = 0xFFFFFFFFu) {
  std::array<Addr, 32> a{};
  for (uint32_t i = 0; i < 32; ++i) a[i] = 0x100 + i * stride_bytes;
  return shared_access_cycles(a.data(), mask, bytes);
}

TEST(SharedMem, StrideConflicts) {
  EXPECT_EQ(strided(4), 1u);        // stride 1 word
  EXPECT_EQ(strided(8), 2u);        // stride 2 words
  EXPECT_EQ(strided(0), 1u);        // all lanes one word: broadcast
  EXPECT_EQ(strided(128), 32u);     // stride 32 words: one bank
  EXPECT_EQ(strided(12), 1u);       // odd stride is conflict-free
}

TEST(SharedMem, WideAccessesSplitIntoWavefronts) {
  EXPECT_EQ(strided(8, 8), 2u);    // 64-bit, consecutive: two half-warp wavefronts
  EXPECT_EQ(strided(16, 16), 4u);  // 128-bit, consecutive: four quarter-warp wavefronts
  EXPECT_EQ(strided(8, 8, 0x0000FFFFu), 1u);  // one half-warp active
}

TEST(SharedMem, InactiveLanesCostNothing) {
  EXPECT_EQ(strided(128, 4, 0x1u), 1u);
  EXPECT_EQ(strided(128, 4, 0x0u), 0u);
  EXPECT_EQ(strided(128, 4, 0x3u), 2u);
}

// What bank conflicts cost is the access's wavefronts minus these: wide
// accesses need several wavefronts without any conflict.
TEST(SharedMem, ConflictFreeCyclesCountActiveLaneGroups) {
  EXPECT_EQ(shared_conflict_free_cycles(0xFFFFFFFFu, 4), 1u);
  EXPECT_EQ(shared_conflict_free_cycles(0xFFFFFFFFu, 8), 2u);
  EXPECT_EQ(shared_conflict_free_cycles(0xFFFFFFFFu, 16), 4u);
  EXPECT_EQ(shared_conflict_free_cycles(0x0000FFFFu, 8), 1u);   // one half-warp
  EXPECT_EQ(shared_conflict_free_cycles(0x01010101u, 16), 4u);  // one lane in each quarter
  EXPECT_EQ(shared_conflict_free_cycles(0u, 4), 1u);            // an issued access takes a cycle
  EXPECT_EQ(strided(16, 16) - shared_conflict_free_cycles(0xFFFFFFFFu, 16), 0u);
  EXPECT_EQ(strided(128) - shared_conflict_free_cycles(0xFFFFFFFFu, 4), 31u);
}

uint32_t lane_pattern(uint64_t (*addr)(uint32_t lane), uint32_t bytes, bool packing, uint32_t mask = 0xFFFFFFFFu) {
  std::array<Addr, 32> a{};
  for (uint32_t i = 0; i < 32; ++i) a[i] = 0x100 + addr(i);
  return shared_access_cycles(a.data(), mask, bytes, 32, 4, packing);
}

// NVIDIA's rule for compute capability 7.0-7.5: a wide load whose lanes read
// what lane n^1 (or n^2) reads returns the pairs' registers packed, in half
// the wavefronts; the forum question's pattern (lane % 4 * 16 B) meets neither
// pairing and keeps its four.
TEST(SharedMem, PairedLanesOfWideLoadsShareTheReturnPath) {
  auto uniform = [](uint32_t) -> uint64_t { return 0; };
  auto pairs = [](uint32_t l) -> uint64_t { return (l / 2) * 16; };             // T0==T1, T2==T3, ...
  auto pairs2 = [](uint32_t l) -> uint64_t { return ((l / 4) * 2 + l % 2) * 16; };  // T0==T2, T1==T3, ...
  auto mod4 = [](uint32_t l) -> uint64_t { return (l % 4) * 16; };
  auto distinct = [](uint32_t l) -> uint64_t { return l * 16; };
  EXPECT_EQ(lane_pattern(uniform, 16, false), 4u);
  EXPECT_EQ(lane_pattern(uniform, 16, true), 2u);
  EXPECT_EQ(lane_pattern(pairs, 16, true), 2u);
  EXPECT_EQ(lane_pattern(pairs2, 16, true), 2u);
  EXPECT_EQ(lane_pattern(mod4, 16, true), 4u);
  EXPECT_EQ(lane_pattern(distinct, 16, true), 4u);
  EXPECT_EQ(lane_pattern(uniform, 8, true), 1u);   // LDS.64: one
  EXPECT_EQ(lane_pattern(uniform, 4, true), 1u);   // 32-bit loads take one anyway
  EXPECT_EQ(lane_pattern(pairs, 16, true, 0x0000FFFFu), 1u);  // half the warp: one group of 16 lanes
  auto pairs_conflict = [](uint32_t l) -> uint64_t { return (l / 2) * 256; };  // pairs alike, one bank row apart
  EXPECT_EQ(lane_pattern(pairs_conflict, 16, true), 16u);  // 2 groups of 8 distinct 16 B words in one bank set
}

TEST(SharedMem, ParamsHaveQv100Defaults) {
  config::Config cfg;
  SharedMemParams p = shared_mem_params(cfg);
  EXPECT_EQ(p.latency, 20u);
  EXPECT_EQ(p.banks, 32u);
}

}  // namespace
}  // namespace ws::timing
