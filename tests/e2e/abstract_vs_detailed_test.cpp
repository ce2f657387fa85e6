// The abstract timing model end to end on synthetic traces: the same counts
// as the detailed model, cycles close to it where both model the same path,
// and identical results run after run.
#include <gtest/gtest.h>

#include <cmath>

#include "e2e/sim_util.h"
#include "timing/model.h"

namespace ws::test {
namespace {

config::Config abstract_cfg() { return preset("qv100", {"gpu.model=abstract", "abstract.block_cache=off"}); }

double rel_error(uint64_t a, uint64_t b) { return std::abs(double(a) - double(b)) / double(b); }

frontend::SynthSpec chase(uint64_t footprint, uint64_t stride) {
  frontend::SynthSpec s;
  s.kind = "chase";
  s.iterations = 50;
  s.footprint_bytes = footprint;
  s.stride_bytes = stride;
  return s;
}

// One warp chasing pointers is pure latency: each load waits for the one
// before, so both models' cycles are the sum of the same path's latencies
// (L1 miss, crossbar, L2 pipeline, and for the large footprint DRAM). The
// detailed model adds what the abstract one leaves out (DRAM row state,
// refresh), a few percent at most here.
TEST(AbstractVsDetailed, PointerChaseLatencyAgrees) {
  for (auto [footprint, stride] : {std::pair<uint64_t, uint64_t>{1 << 24, 4096}, {1 << 20, 256}}) {
    std::string dir = synth(chase(footprint, stride), "abs-chase-" + std::to_string(stride));
    SimTotals d = simulate(dir, preset("qv100")), a = simulate(dir, abstract_cfg());
    EXPECT_EQ(a.warp_insts, d.warp_insts);
    EXPECT_EQ(a.thread_insts, d.thread_insts);
    EXPECT_LT(rel_error(a.cycles, d.cycles), 0.03) << "stride " << stride << ": abstract " << a.cycles
                                                   << ", detailed " << d.cycles;
  }
}

// Every sector of a stream misses the caches once: the counts follow from
// the addresses alone, in either model.
TEST(AbstractVsDetailed, StreamCountsMatch) {
  frontend::SynthSpec s;
  s.ctas = 40;
  s.threads_per_cta = 128;
  s.iterations = 4;
  s.footprint_bytes = uint64_t{40} * 128 * 4 * 4;
  std::string dir = synth(s, "abs-stream");
  SimTotals d = simulate(dir, preset("qv100")), a = simulate(dir, abstract_cfg());
  EXPECT_EQ(a.warp_insts, d.warp_insts);
  EXPECT_EQ(a.l1_reads, d.l1_reads);
  EXPECT_EQ(a.l1_read_hits, d.l1_read_hits);
  EXPECT_EQ(a.dram_reads, d.dram_reads);
}

TEST(AbstractVsDetailed, AbstractIsDeterministic) {
  frontend::SynthSpec s;
  s.ctas = 100;
  s.threads_per_cta = 256;
  s.iterations = 4;
  s.footprint_bytes = uint64_t{1} << 20;
  std::string dir = synth(s, "abs-determinism");
  SimTotals first = simulate(dir, abstract_cfg()), second = simulate(dir, abstract_cfg());
  EXPECT_EQ(first.cycles, second.cycles);
  EXPECT_EQ(first.dram_reads, second.dram_reads);
  EXPECT_EQ(first.dram_writes, second.dram_writes);
  EXPECT_EQ(first.l1_read_hits, second.l1_read_hits);
}

TEST(AbstractVsDetailed, ProjectionIsRefusedByName) {
  try {
    timing::make_timing_model(preset("qv100", {"gpu.model=abstract", "sampling.project_kernels=true"}));
    FAIL() << "no error";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("sampling.project_kernels"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace ws::test
