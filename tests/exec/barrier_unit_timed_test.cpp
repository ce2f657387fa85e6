// The SM's barrier unit (core.barrier.*): a CTA barrier costs the unit's
// cycles per arriving warp plus the release, and two CTAs on one SM share
// the unit's arrivals, as the H100 measured (ubench/clocks: 13 + 2 x warps
// cycles; 64 for each of two 16-warp CTAs). Both timing models.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "exec/device.h"
#include "exec/emu_test_util.h"
#include "frontend/ptx/parser.h"

namespace ws::exec {
namespace {

// `n` barriers in a loop (the loop's own instructions cost a few cycles).
const std::string kBarriers = test::kernel_ptx("barriers", ".param .u32 n", R"(
    ld.param.u32 %r1, [n];
    mov.u32 %r2, 0;
  L:
    bar.sync 0;
    add.s32 %r2, %r2, 1;
    setp.lt.s32 %p1, %r2, %r1;
    @%p1 bra L;
    ret;
)");

uint64_t cycles(const std::string& model, uint32_t ctas, uint32_t warps, uint32_t n, bool unit) {
  auto out = std::filesystem::temp_directory_path() /
             ("warpsim-bar-" + model + std::to_string(::getpid()) + "-" + std::to_string(n));
  std::filesystem::remove_all(out);
  DeviceOptions o;
  o.timing = true;
  o.print_summary = false;
  o.out_dir = out.string();
  // The loop as written (its add and setp after the bar.sync) and its branch
  // costing nothing (no predicate wait, resolved the next cycle), so that the
  // barrier unit's own cycles add to the loop's. (Scheduled as ptxas would,
  // the add and setp rise above the bar.sync and the branch's wait hides
  // under the barrier: ubench/clocks reads the H100's figures either way.)
  o.sets = {"l1i.perfect=true", "gpu.sms=1", "gpu.model=" + model, "exec.ptx_unroll=1", "exec.ptx_schedule=source",
            "core.branch_predicate_latency=0", "core.branch_resolve_cycles=1",
            "core.barrier.arrival_cycles=" + std::string(unit ? "2" : "0"),
            "core.barrier.release_cycles=" + std::string(unit ? "11" : "0")};
  {
    Device dev(o);
    const LoadedModule& m = dev.program().load(ptx::parse_module(kBarriers, "t.ptx"));
    Launch l;
    l.module = &m;
    l.kernel = m.ast.find_function("barriers");
    l.grid = Dim3{ctas, 1, 1}, l.block = Dim3{32 * warps, 1, 1};
    l.params.assign(4, 0);
    std::memcpy(l.params.data(), &n, 4);
    LaunchResult lr = dev.launch(l, StreamRef{});
    EXPECT_TRUE(lr.ok) << lr.error;
    dev.finish();
  }
  std::ifstream f(out / "stats.json");
  uint64_t c = nlohmann::json::parse(f)["kernels"][0]["cycles"].get<uint64_t>();
  std::filesystem::remove_all(out);
  return c;
}

// Cycles per barrier: the difference of 64 and 32 barriers, over 32.
double per_barrier(const std::string& model, uint32_t ctas, uint32_t warps, bool unit = true) {
  return double(cycles(model, ctas, warps, 64, unit) - cycles(model, ctas, warps, 32, unit)) / 32;
}

TEST(BarrierUnitTimed, CostGrowsTwoCyclesPerWarpOnTopOfTheRelease) {
  for (const char* model : {"detailed", "abstract"}) {
    double loop = per_barrier(model, 1, 4, false);  // the loop and an instant barrier
    for (uint32_t warps : {4u, 16u, 32u}) {
      double want = loop + 11 + 2.0 * warps;
      EXPECT_NEAR(per_barrier(model, 1, warps), want, 0.1 * want) << model << ", " << warps << " warps";
    }
  }
}

TEST(BarrierUnitTimed, TwoCtasOnOneSmShareTheArrivals) {
  for (const char* model : {"detailed", "abstract"}) {
    // Alone, a 16-warp CTA's barrier takes 11 + 32 (+ the loop); with a
    // second CTA beside it the unit takes 32 arrivals per round: about 64.
    double alone = per_barrier(model, 1, 16), shared = per_barrier(model, 2, 16);
    EXPECT_GT(shared, alone + 10) << model;
    EXPECT_NEAR(shared, 64, 6.4) << model;
  }
}

}  // namespace
}  // namespace ws::exec
