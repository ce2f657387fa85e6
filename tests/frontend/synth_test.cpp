// Synthetic traces parse back with the expected shape.
#include <optional>
#include <set>

#include "frontend/trace_test_util.h"
#include "frontend/trace/synth.h"

namespace ws::frontend {
namespace {

std::unique_ptr<ir::KernelSource> synth_kernel(const SynthSpec& s, const std::string& name, uint32_t* copies = nullptr) {
  auto dir = test::temp_dir(name);
  write_synthetic(s, dir.string());
  auto wl = open_trace_workload(dir.string());
  EXPECT_EQ(wl->kernel_count(), 1u);
  while (auto c = wl->next()) {
    if (auto* k = std::get_if<std::unique_ptr<ir::KernelSource>>(&*c)) return std::move(*k);
    if (copies) ++*copies;
  }
  return nullptr;
}

TEST(Synth, StreamIsCoalescedAndDistinctPerWarp) {
  SynthSpec s{.kind = "stream", .ctas = 2, .threads_per_cta = 64, .iterations = 3};
  uint32_t copies = 0;
  auto k = synth_kernel(s, "stream", &copies);
  EXPECT_EQ(copies, 1u);
  std::set<Addr> lines;
  uint64_t n = 0, loads = 0;
  while (auto cta = k->next_cta())
    for (uint32_t w = 0; w < cta->num_warps(); ++w)
      for (const ir::WarpInst* i; (i = cta->next(w)); ++n) {
        if (i->kind != ir::OpKind::Load) continue;
        ++loads;
        EXPECT_EQ(i->access_bytes, 4);
        EXPECT_EQ(i->lane_addr(0) % 128, 0u);
        EXPECT_EQ(i->lane_addr(31), i->lane_addr(0) + 124);
        lines.insert(i->lane_addr(0));
      }
  EXPECT_EQ(n, synth_instruction_count(s));
  EXPECT_EQ(n, 4u * (5 + 7 * 3 + 1));
  EXPECT_EQ(loads, 12u);
  EXPECT_EQ(lines.size(), 12u);
}

TEST(Synth, ChaseLoadsDependOnThePreviousLoad) {
  SynthSpec s{.kind = "chase", .ctas = 1, .threads_per_cta = 32, .iterations = 8, .footprint_bytes = 512,
              .stride_bytes = 128};
  auto k = synth_kernel(s, "chase");
  auto cta = k->next_cta();
  ASSERT_EQ(cta->num_warps(), 1u);
  std::vector<ir::WarpInst> loads;  // copies: a returned instruction lasts until the warp's next
  uint64_t n = 0;
  for (const ir::WarpInst* i; (i = cta->next(0)); ++n)
    if (i->kind == ir::OpKind::Load) loads.push_back(*i);
  EXPECT_EQ(n, synth_instruction_count(s));
  ASSERT_EQ(loads.size(), 8u);
  for (size_t j = 1; j < loads.size(); ++j) {
    EXPECT_EQ(loads[j].src[0], loads[j - 1].dst[0]);
    EXPECT_EQ(loads[j].lane_addr(0), 0x7f1000000000u + (j % 4) * 128);  // 4 slots, then repeats
  }
  EXPECT_EQ(cta->next(0), nullptr);
}

TEST(Synth, ComputeHasIndependentFfmaChains) {
  SynthSpec s{.kind = "compute", .ctas = 3, .threads_per_cta = 100, .iterations = 5, .chains = 6};
  auto k = synth_kernel(s, "compute");
  uint64_t n = 0, ffma = 0;
  std::optional<ir::OpKind> last;
  auto cta = k->next_cta();
  EXPECT_EQ(cta->num_warps(), 4u);
  for (const ir::WarpInst* i; (i = cta->next(3)); ++n, last = i->kind) {
    EXPECT_EQ(i->active_mask, 0xfu);  // 100 threads: the last warp has 4
    if (k->unit_names()[i->unit] == "sp") ++ffma;
  }
  EXPECT_EQ(ffma, 30u);
  ASSERT_TRUE(last);
  EXPECT_EQ(*last, ir::OpKind::Exit);
  EXPECT_EQ(n, 2 + 9 * 5 + 1u);
  EXPECT_EQ(synth_instruction_count(s), n * 4 * 3);
}

TEST(Synth, EveryKindParsesOnEveryVoltaPlusTable) {
  for (uint32_t sm : {70u, 75u, 80u, 86u, 89u, 90u})
    for (const char* kind : {"stream", "chase", "compute"}) {
      SynthSpec s{.kind = kind, .ctas = 2, .threads_per_cta = 64, .iterations = 2, .binary_version = sm};
      auto dir = test::temp_dir(std::string("gen-") + kind);
      write_synthetic(s, dir.string());
      EXPECT_EQ(test::count_workload(*open_trace_workload(dir.string())), synth_instruction_count(s)) << kind << sm;
    }
}

TEST(Synth, InvalidSpecNamesTheField) {
  auto dir = test::temp_dir("bad");
  std::string m = test::error_of([&] { write_synthetic(SynthSpec{.kind = "nope"}, dir.string()); });
  EXPECT_NE(m.find("field 'kind'"), std::string::npos) << m;
  m = test::error_of([&] { write_synthetic(SynthSpec{.threads_per_cta = 2000}, dir.string()); });
  EXPECT_NE(m.find("field 'threads_per_cta'"), std::string::npos) << m;
  m = test::error_of([&] { write_synthetic(SynthSpec{.kind = "chase", .stride_bytes = 3}, dir.string()); });
  EXPECT_NE(m.find("field 'stride_bytes'"), std::string::npos) << m;
  m = test::error_of([&] { write_synthetic(SynthSpec{.binary_version = 61}, dir.string()); });
  EXPECT_NE(m.find("field 'binary_version'"), std::string::npos) << m;
}

}  // namespace
}  // namespace ws::frontend
