// Attained L1 bandwidth on a hand-written trace: every warp reloads one
// 128 B line that stays in the L1, with independent destination registers so
// that loads pipeline. The L1 looks up one line (four sectors) per cycle.
#include <cstdio>
#include <filesystem>

#include "e2e/sim_util.h"
#include "frontend/trace/trace_writer.h"

namespace ws::test {
namespace {

// Lane l of warp w reads base + w * kWarpSpan + l * lane_stride (4 B each).
constexpr uint64_t kWarpSpan = 34 * 128;

std::string write_l1_stream(uint32_t ctas, uint32_t warps, uint32_t loads, uint32_t lane_stride = 4) {
  auto dir = std::filesystem::temp_directory_path() /
             ("warpsim-e2e-l1bw-" + std::to_string(loads) + "-" + std::to_string(lane_stride) + "-" +
              std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  frontend::TraceWriter w(dir.string());
  const Addr base = 0x00007f3000000000ull;
  w.memcpy(base, uint64_t{warps} * kWarpSpan);
  ir::KernelInfo k;
  k.name = "l1_stream";
  k.grid = Dim3{ctas, 1, 1};
  k.block = Dim3{warps * 32, 1, 1};
  k.nregs = 32;
  k.binary_version = 70;
  w.begin_kernel(k);
  for (uint32_t c = 0; c < ctas; ++c) {
    w.begin_cta(Dim3{c, 0, 0});
    for (uint32_t wp = 0; wp < warps; ++wp) {
      w.begin_warp(wp, loads + 1);
      for (uint32_t i = 0; i < loads; ++i) {
        frontend::TraceInst ld;
        ld.pc = 16 * (i % 8);
        ld.opcode = "LDG.E.SYS";
        ld.dst = {static_cast<uint16_t>(2 + i % 8)};
        ld.src = {0};
        ld.mem_width = 4;
        for (uint32_t lane = 0; lane < 32; ++lane) ld.addrs[lane] = base + wp * kWarpSpan + lane * lane_stride;
        w.add(ld);
      }
      frontend::TraceInst exit;
      exit.pc = 0x100;
      exit.opcode = "EXIT";
      w.add(exit);
    }
    w.end_cta();
  }
  w.end_kernel();
  w.close();
  return dir.string();
}

// Measured as the difference between a long and a short run, so that the
// cold start (each warp's first misses merge into one MSHR up to its limit and
// stall the L1 until the fill) cancels out.
TEST(E2eBandwidth, L1HitStreamReachesMostOfOneLinePerCycle) {
  const uint32_t ctas = 80, warps = 16;
  auto cfg = preset("qv100", {"gpu.kernel_launch_latency=0", "l1i.perfect=true"});
  SimTotals short_run = simulate(write_l1_stream(ctas, warps, 128), cfg);
  SimTotals long_run = simulate(write_l1_stream(ctas, warps, 384), cfg);
  ASSERT_EQ(long_run.l1_reads, uint64_t{ctas} * warps * 384 * 4);
  double extra_lines_per_sm = double(warps) * 256;  // one 128 B line per load
  double lines_per_cycle = extra_lines_per_sm / double(long_run.cycles - short_run.cycles);
  std::printf("L1 attained %.1f%% of one line per SM cycle\n", lines_per_cycle * 100);
  EXPECT_GT(lines_per_cycle, 0.85) << "L1 attained " << lines_per_cycle * 100 << "% of one line per cycle";
  EXPECT_LE(lines_per_cycle, 1.0);
  EXPECT_EQ(long_run.l1_reads - long_run.l1_read_hits, short_run.l1_reads - short_run.l1_read_hits)
      << "the extra loads all hit";
}

// Bank conflicts in the L1 data array (32 banks x 4 B, 4 tag lookups per
// cycle), on hits: a 128 B lane stride puts every lane in its own line but in
// bank 0, so 32 wavefronts per instruction; a 132 B stride moves lane l to
// bank l, so the 32 lines cost only the 8 tag-stage cycles (4 lines each).
TEST(E2eBandwidth, L1BankConflictsSerialiseStridedHits) {
  const uint32_t ctas = 80, warps = 8;
  auto cfg = preset("qv100", {"gpu.kernel_launch_latency=0", "l1i.perfect=true"});
  auto cycles_per_load = [&](uint32_t stride) {
    SimTotals short_run = simulate(write_l1_stream(ctas, warps, 32, stride), cfg);
    SimTotals long_run = simulate(write_l1_stream(ctas, warps, 96, stride), cfg);
    return double(long_run.cycles - short_run.cycles) / (double(warps) * 64);
  };
  double conflicted = cycles_per_load(128), spread = cycles_per_load(132);
  std::printf("L1 hits: %.2f cycles per load at a 128 B lane stride, %.2f at 132 B\n", conflicted, spread);
  EXPECT_NEAR(conflicted, 32.0, 1.0);
  EXPECT_NEAR(spread, 8.0, 0.5);
}

}  // namespace
}  // namespace ws::test
