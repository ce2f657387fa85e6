// The abstract timing model on hand-computable kernels: a fake kernel source
// feeds an AbstractGpu with one SM and no launch latency, so a kernel's
// cycles follow from the unit latencies and the scheduling rules alone.
#include <gtest/gtest.h>

#include <array>
#include <filesystem>
#include <memory>
#include <vector>

#include "config/config.h"
#include "abstract/test_insts.h"
#include "timing/abstract/abstract_gpu.h"
#include "timing/model.h"

namespace ws::timing::abstract {
namespace {

using Warps = std::vector<std::vector<ir::WarpInst>>;

class FakeCta : public ir::CtaSource {
 public:
  explicit FakeCta(Warps warps) : warps_(std::move(warps)), pos_(warps_.size(), 0) {}
  Dim3 cta_id() const override { return {}; }
  uint32_t num_warps() const override { return static_cast<uint32_t>(warps_.size()); }
  const ir::WarpInst* next(uint32_t w) override { return pos_[w] < warps_[w].size() ? &warps_[w][pos_[w]++] : nullptr; }

 private:
  Warps warps_;
  std::vector<size_t> pos_;
};

// `ctas` copies of one CTA; unit 0 is "sp".
class FakeKernel : public ir::KernelSource {
 public:
  FakeKernel(Warps cta, uint32_t ctas) : cta_(std::move(cta)), left_(ctas) {
    info_.name = "fake";
    info_.grid = Dim3{ctas, 1, 1};
    info_.block = Dim3{static_cast<uint32_t>(32 * cta_.size()), 1, 1};
    info_.nregs = 32;
  }
  const ir::KernelInfo& info() const override { return info_; }
  void set_stream(int64_t stream) { info_.stream = stream; }
  const std::vector<std::string>& unit_names() const override { return units_; }
  std::unique_ptr<ir::CtaSource> next_cta() override {
    if (left_ == 0) return nullptr;
    --left_;
    return std::make_unique<FakeCta>(cta_);
  }

 private:
  Warps cta_;
  uint32_t left_;
  ir::KernelInfo info_;
  std::vector<std::string> units_{"sp"};
};

using fake::sp;

ir::WarpInst barrier() {
  ir::WarpInst i;
  i.active_mask = 0xffffffff;
  i.kind = ir::OpKind::Barrier;
  return i;
}

// A warp-wide 4-byte load of one 128 B line (four sectors) at `base`.
ir::WarpInst load(uint16_t dst, Addr base) {
  ir::WarpInst i;
  i.active_mask = 0xffffffff;
  i.kind = ir::OpKind::Load;
  i.space = ir::MemSpace::Global;
  i.access_bytes = 4;
  i.strided = true;
  i.stride = 4;
  i.base = base;
  i.n_dst = 1;
  i.dst[0] = dst;
  return i;
}

// A dependent chain r1 = f(r0), r2 = f(r1), ...
std::vector<ir::WarpInst> chain(int n) {
  std::vector<ir::WarpInst> v;
  for (int i = 0; i < n; ++i) v.push_back(sp(static_cast<uint16_t>(i + 1), i));
  return v;
}

// Instruction fetch is perfect here: the cases are about issue timing.
config::Config one_sm(const std::vector<std::string>& sets = {}) {
  config::Config cfg;
  cfg.load_file(config::find_preset("qv100"));
  for (const char* s : {"gpu.sms=1", "gpu.kernel_launch_latency=0", "gpu.kernel_launch_overhead=0",
                        "gpu.kernel_fixed_cycles=0", "gpu.kernel_fixed_ns=0", "core.units.sp.latency=4", "core.units.sp.ii=1",
                        "l1i.perfect=true", "abstract.block_cache=off"})
    cfg.set_assignment(s);
  for (const auto& s : sets) cfg.set_assignment(s);
  return cfg;
}

Cycle run(const config::Config& cfg, Warps cta, uint32_t ctas = 1) {
  AbstractGpu gpu(cfg);
  FakeKernel k(std::move(cta), ctas);
  return gpu.run_kernel(k).cycles;
}

TEST(AbstractModel, DependentChainTakesLatencyPerInstruction) {
  // Each instruction issues when its source is written, 4 cycles after the
  // one before; the warp ends when the last result is written.
  EXPECT_EQ(run(one_sm(), {chain(10)}), 40u);
  EXPECT_EQ(run(one_sm({"core.units.sp.latency=7"}), {chain(10)}), 70u);
}

TEST(AbstractModel, TwoWarpsInterleaveOnOneScheduler) {
  // One sub-core: warp 0 issues at 0, 4, 8, ...; warp 1 fills the cycle
  // after each (one issue per cycle), so it ends one cycle after warp 0.
  EXPECT_EQ(run(one_sm({"core.subcores=1"}), {chain(10), chain(10)}), 41u);
  // With ii = 2 the pipeline is busy in that cycle: warp 1 waits one more.
  EXPECT_EQ(run(one_sm({"core.subcores=1", "core.units.sp.ii=2"}), {chain(10), chain(10)}), 42u);
  // On two sub-cores the warps do not meet at all.
  EXPECT_EQ(run(one_sm({"core.subcores=2"}), {chain(10), chain(10)}), 40u);
}

TEST(AbstractModel, BarrierWaitsForTheLastWarp) {
  // Warp 0: ten chained instructions (issued at 0..36), the barrier at 37
  // (no operands: the cycle after the last issue), then one instruction.
  // Warp 1 reaches the barrier at once and waits. Both continue at 38:
  // warp 0 issues at 38 (the older), warp 1 at 39, its result at 43.
  auto w0 = chain(10);
  w0.push_back(barrier());
  w0.push_back(sp(20));
  std::vector<ir::WarpInst> w1{barrier(), sp(20)};
  const std::string free_arrival = "core.barrier.arrival_cycles=0", free_release = "core.barrier.release_cycles=0";
  EXPECT_EQ(run(one_sm({"core.subcores=1", free_arrival, free_release}), {w0, w1}), 43u);
  // The preset's barrier costs (2 cycles per arriving warp, 11 to release):
  // warp 0's arrival at 37 is recorded at 39, and the barrier opens 11 after
  // that, at 50 instead of 38: everything after it 12 cycles later.
  EXPECT_EQ(run(one_sm({"core.subcores=1"}), {w0, w1}), 55u);
}

TEST(AbstractModel, SecondWaveStartsWhenTheFirstCtaEnds) {
  // One CTA fits at a time: the second starts the cycle the first ends.
  EXPECT_EQ(run(one_sm({"core.max_ctas=1"}), {chain(10)}, 2), 80u);
  // Two fit: both run at once, on different sub-cores.
  EXPECT_EQ(run(one_sm({"core.max_ctas=2"}), {chain(10)}, 2), 41u);
}

// The cases above, with one event per instruction (abstract.block_max = 1,
// the first landing's model), give the same cycles: their blocks' bodies
// never compete with another warp's for the issue port or the pipeline.
TEST(AbstractModel, PerInstructionEventsAgreeOnTheHandCases) {
  auto one = [](std::vector<std::string> sets) {
    sets.push_back("abstract.block_max=1");
    return one_sm(sets);
  };
  EXPECT_EQ(run(one({}), {chain(10)}), 40u);
  EXPECT_EQ(run(one({"core.subcores=1"}), {chain(10), chain(10)}), 41u);
  EXPECT_EQ(run(one({"core.subcores=1", "core.units.sp.ii=2"}), {chain(10), chain(10)}), 42u);
  auto w0 = chain(10);
  w0.push_back(barrier());
  w0.push_back(sp(20));
  EXPECT_EQ(run(one({"core.subcores=1", "core.barrier.arrival_cycles=0", "core.barrier.release_cycles=0"}),
                {w0, {barrier(), sp(20)}}),
            43u);
  EXPECT_EQ(run(one({"core.max_ctas=1"}), {chain(10)}, 2), 80u);
}

TEST(AbstractModel, IndependentBodiesQueueForTheIssuePort) {
  // Two warps of ten independent instructions on one sub-core (ii 1). One
  // event per instruction: twenty issues at 0..19, the last written at 23.
  std::vector<ir::WarpInst> flat;
  for (uint16_t r = 1; r <= 10; ++r) flat.push_back(sp(r));
  EXPECT_EQ(run(one_sm({"core.subcores=1", "core.units.sp.ii=1", "abstract.block_max=1"}), {flat, flat}), 23u);
  // One block each: warp 0's nine-slot body takes slots 0..8 of the issue
  // port and the sp pipe, warp 1's queues behind (9..17). A last instruction
  // takes the pipe after what bodies booked on it, so the two issue at 18
  // and 19, and the last is written at 23, as one event per instruction
  // gives (before last instructions saw the bodies' pipe time, warp 0's
  // overtook warp 1's body: 22).
  EXPECT_EQ(run(one_sm({"core.subcores=1", "core.units.sp.ii=1"}), {flat, flat}), 23u);
}

TEST(AbstractModel, SameStatsEveryRunAndFromAWarmCache) {
  // Loads, chains and a barrier over two waves; the second and third runs
  // read the block entries the first one wrote, and agree to the counter.
  auto dir = std::filesystem::temp_directory_path() / "warpsim-abstract-determinism";
  std::filesystem::remove_all(dir);
  auto w0 = chain(12);
  w0.insert(w0.begin() + 3, load(30, 0x20000));
  w0.push_back(barrier());
  w0.push_back(sp(31, 30));
  std::vector<ir::WarpInst> w1{load(40, 0x20080), sp(41, 40), barrier(), sp(42, 41)};
  auto once = [&](uint64_t want_characterised) {
    AbstractGpu gpu(one_sm({"core.max_ctas=2", "abstract.block_cache=" + dir.string()}));
    FakeKernel k({w0, w1, w0}, 5);
    KernelResult r = gpu.run_kernel(k);
    EXPECT_EQ(gpu.blocks().counts().characterised, want_characterised);
    return std::make_pair(r.cycles, r.after);
  };
  auto first = once(3);  // [3 chain + load], [9 chain + barrier], [sp + barrier]; single-instruction blocks need none
  EXPECT_EQ(once(0), first);
  EXPECT_EQ(once(0), first);
  std::filesystem::remove_all(dir);
}

TEST(AbstractModel, CountsInstructionsAndResidency) {
  AbstractGpu gpu(one_sm());
  FakeKernel k({chain(10), chain(5)}, 3);
  KernelResult r = gpu.run_kernel(k);
  EXPECT_EQ(gpu.stats().sum("sm.*.warp_insts", r.before, r.after), 45u);
  EXPECT_EQ(gpu.stats().sum("sm.*.thread_insts", r.before, r.after), 45u * 32);
  EXPECT_EQ(gpu.stats().sum("sm.*.ctas", r.before, r.after), 3u);
  // All three fit at once, placed at cycles 0, 1 and 2. The last CTA's long
  // warp shares sub-core 0 with the first's and issues in its gaps (2, 6,
  // ..., 38): its result is written at 42.
  EXPECT_EQ(r.cycles, 42u);
  EXPECT_EQ(gpu.stats().sum("sm.*.active_cycles", r.before, r.after), 42u);
}

TEST(AbstractModel, LaunchLatencyIsOutsideTheKernelCycles) {
  auto cfg = one_sm({"gpu.kernel_launch_latency=100", "gpu.kernel_launch_overhead=30", "gpu.kernel_fixed_cycles=5"});
  AbstractGpu gpu(cfg);
  FakeKernel a({chain(10)}, 1), b({chain(10)}, 1);
  KernelResult ra = gpu.run_kernel(a);
  KernelResult rb = gpu.run_kernel(b);
  EXPECT_EQ(ra.launch_gap, 100u);  // after the host synchronised (the start)
  EXPECT_EQ(rb.launch_gap, 30u);   // queued behind the first
  EXPECT_EQ(ra.cycles, 45u);       // the fixed cycles, then the chain
  EXPECT_EQ(rb.start_cycle, ra.start_cycle + ra.cycles + 30);
}

TEST(AbstractModel, StreamsRunOneItemAtATimeInQueueOrder) {
  // Kernels of 5 + 40 cycles. a (stream 1), a record of event 7 on stream 1,
  // b (stream 2): the abstract model serialises streams, so waiting for the
  // event runs a alone (after the launch latency: the host had synchronised,
  // start 100, end 145) and b, queued behind it, starts after the overhead.
  auto cfg = one_sm({"gpu.kernel_launch_latency=100", "gpu.kernel_launch_overhead=30", "gpu.kernel_fixed_cycles=5"});
  AbstractGpu gpu(cfg);
  FakeKernel a({chain(10)}, 1), b({chain(10)}, 1);
  a.set_stream(1);
  b.set_stream(2);
  gpu.launch(a, 1);
  gpu.record_event(7, 1);
  gpu.launch(b, 2);
  gpu.wait_event(2, 7);
  EXPECT_FALSE(gpu.streams_idle());
  EXPECT_FALSE(gpu.event_cycle(7).has_value());  // nothing runs before a synchronisation
  EXPECT_EQ(gpu.core_cycle(), 0u);
  std::vector<KernelResult> first = gpu.synchronize({SyncPoint::Kind::Event, 7});
  ASSERT_EQ(first.size(), 1u);
  EXPECT_EQ(first[0].stream, 1);
  EXPECT_EQ(first[0].start_cycle, 100u);
  EXPECT_EQ(gpu.event_cycle(7), Cycle{145});
  EXPECT_FALSE(gpu.streams_idle());  // b is still queued
  std::vector<KernelResult> rest = gpu.synchronize({SyncPoint::Kind::Stream, 2});
  ASSERT_EQ(rest.size(), 1u);
  EXPECT_EQ(rest[0].stream, 2);
  EXPECT_EQ(rest[0].launch_gap, 30u);
  EXPECT_EQ(rest[0].start_cycle, 175u);
  EXPECT_TRUE(gpu.streams_idle());
  // A record again makes the event incomplete until it is reached.
  gpu.record_event(7, 1);
  EXPECT_FALSE(gpu.event_cycle(7).has_value());
  EXPECT_TRUE(gpu.synchronize().empty());
  EXPECT_EQ(gpu.event_cycle(7), Cycle{220});
}

TEST(AbstractModel, L1KeepsLinesWithinAKernelNotAcrossKernels) {
  // Load the line, wait for it (r2 uses r1), load it again: the second load
  // hits all four sectors. The next kernel starts with an empty L1 (as the
  // detailed L1 does): its two loads hit only the second time.
  constexpr Addr kLine = 0x10000;
  AbstractGpu gpu(one_sm());
  auto reads = [&](const KernelResult& r, const char* what) { return gpu.stats().sum(what, r.before, r.after); };
  for (int kernel = 0; kernel < 2; ++kernel) {
    FakeKernel k({{load(1, kLine), sp(2, 1), load(3, kLine)}}, 1);
    KernelResult r = gpu.run_kernel(k);
    EXPECT_EQ(reads(r, "sm.*.l1d.reads"), 8u) << "kernel " << kernel;
    EXPECT_EQ(reads(r, "sm.*.l1d.read_hits"), 4u) << "kernel " << kernel;
  }
}

// The L1 data array, as in the detailed model: a load whose 32 lanes read 32
// lines at one offset (one bank) takes 32 of its cycles, hits or misses,
// where lanes in 32 banks take the tag stage's 8 (4 lines per cycle).
TEST(AbstractModel, LinesInOneBankTakeADataCycleEach) {
  auto run = [](Addr stride) {
    AbstractGpu gpu(one_sm({"l1d.tag_lookups=4", "l1d.data_banks=32", "l1d.bank_bytes=4"}));
    // A first load brings the 32 lines in (the add waits for it); the eight
    // then hit.
    ir::WarpInst first = load(1, 0x100000);
    first.stride = stride;
    std::vector<ir::WarpInst> insts{first, sp(20, 1)};
    for (uint16_t k = 1; k <= 8; ++k) {
      ir::WarpInst in = load(static_cast<uint16_t>(1 + k), 0x100000 + Addr{k} * 4);
      in.stride = stride;
      insts.push_back(in);
    }
    FakeKernel kernel({insts}, 1);
    return gpu.run_kernel(kernel).cycles;
  };
  uint64_t one_bank = run(4096), all_banks = run(4096 + 4);
  ASSERT_GT(one_bank, all_banks);
  // Each later load issues 24 cycles later than with the banks spread: 7 x
  // 24 for the last one's issue (the abstract model charges an access's data
  // cycles to the LD/ST unit, not to its own result, so not quite 8 x 24).
  EXPECT_GE(one_bank - all_banks, 5u * 24) << one_bank << " vs " << all_banks;
  EXPECT_LE(one_bank - all_banks, 9u * 24) << one_bank << " vs " << all_banks;
}

// A kernel ends once its last store has been performed at the L2, at the
// end of the slice's pipeline (the detailed GPU waits for the pipelines to
// empty): a store-only kernel's length moves one for one with l2.latency.
TEST(AbstractModel, KernelEndsWhenItsStoresArePerformedAtTheL2) {
  ir::WarpInst st = load(0, 0x10000);
  st.kind = ir::OpKind::Store;
  st.n_dst = 0;
  auto cycles = [&](const char* latency) { return run(one_sm({latency}), {{st}}); };
  Cycle slow = cycles("l2.latency=160"), fast = cycles("l2.latency=60");
  EXPECT_EQ(slow - fast, 100u);
}

// A warp that stored exits core.store_drain_latency cycles after the L1
// took the store (the next cycle). With one CTA at a time, the second CTA
// starts that much later; the last CTA's drain hides under its store's
// trip to the L2, which the kernel waits for anyway.
TEST(AbstractModel, AStoreHoldsItsWarpForTheDrainLatency) {
  ir::WarpInst st = load(0, 0x10000);
  st.kind = ir::OpKind::Store;
  st.n_dst = 0;
  auto cycles = [&](const char* drain, uint32_t ctas) { return run(one_sm({"core.max_ctas=1", drain}), {{st}}, ctas); };
  EXPECT_EQ(cycles("core.store_drain_latency=50", 1), cycles("core.store_drain_latency=0", 1));
  // At most the drain and the cycle before the L1 takes the store; a few
  // cycles less, as the second CTA's store (same line) no longer queues
  // right behind the first one's on the way to the L2.
  Cycle held = cycles("core.store_drain_latency=50", 2), free = cycles("core.store_drain_latency=0", 2);
  EXPECT_LE(held - free, 51u);
  EXPECT_GE(held - free, 40u);
}

// Two stores that each write every other word of a line: as in the detailed
// slice, a sector's written bytes add up and it is valid once all 32 are
// written, so a later read of the line hits in the L2 (no DRAM read).
TEST(AbstractModel, PartialStoresThatCoverASectorMakeItValid) {
  auto half = [](Addr base) {
    ir::WarpInst st = load(0, base);
    st.kind = ir::OpKind::Store;
    st.n_dst = 0;
    st.active_mask = 0xffff;  // 16 lanes, 8 bytes apart: one line, half of each sector
    st.stride = 8;
    return st;
  };
  constexpr Addr kLine = 0x10000;
  AbstractGpu gpu(one_sm());
  FakeKernel k({{half(kLine), half(kLine + 4), load(1, kLine)}}, 1);
  KernelResult r = gpu.run_kernel(k);
  auto sum = [&](const char* what) { return gpu.stats().sum(what, r.before, r.after); };
  EXPECT_EQ(sum("l2.*.writes"), 8u);
  EXPECT_EQ(sum("l2.*.write_hits"), 4u);  // the second store finds the first one's bytes
  EXPECT_EQ(sum("l2.*.reads"), 4u);
  EXPECT_EQ(sum("l2.*.read_hits"), 4u);
  EXPECT_EQ(sum("dram.*.reads"), 0u);
}

// Many SMs asking one L2 sector that is being filled: the first
// l2.mshr_max_merge requests wait in its MSHR (misses), later ones stall
// the slice until the fill and then hit, as in the detailed slice.
TEST(AbstractModel, RequestsBeyondTheMshrMergeLimitHitAfterTheFill) {
  auto cfg = one_sm({"gpu.sms=12", "l2.mshr_max_merge=8"});
  AbstractGpu gpu(cfg);
  FakeKernel k({{load(1, 0x10000)}}, 12);  // one CTA per SM, each loads the same line
  KernelResult r = gpu.run_kernel(k);
  auto sum = [&](const char* what) { return gpu.stats().sum(what, r.before, r.after); };
  EXPECT_EQ(sum("l2.*.reads"), 12u * 4);
  EXPECT_EQ(sum("dram.*.reads"), 4u);             // one fill per sector
  EXPECT_EQ(sum("l2.*.read_hits"), (12u - 8) * 4);  // the first 8 SMs missed or merged
}

// The LD/ST unit's coalescer is the detailed model's: 8 lanes at a time, one
// access per line (consecutive sub-warps share the last one). An atomic whose
// even lanes add to line A's first sector and odd lanes to line B's takes
// A, B; A; B; A: five sector requests at the L2, not the two a whole-warp
// merge would send.
TEST(AbstractModel, AtomicsCoalescePerSubWarpAsTheDetailedModel) {
  ir::WarpInst atom = load(1, 0);
  atom.kind = ir::OpKind::Atomic;
  atom.strided = false;
  std::array<Addr, 32> addrs{};
  for (uint32_t lane = 0; lane < 32; ++lane) addrs[lane] = (lane % 2 ? 0x20000 : 0x10000) + Addr{lane / 2 % 8} * 4;
  atom.addrs = addrs.data();
  AbstractGpu gpu(one_sm());
  FakeKernel k({{atom}}, 1);
  KernelResult r = gpu.run_kernel(k);
  EXPECT_EQ(gpu.stats().sum("l2.*.atomics", r.before, r.after), 5u);
}

// Lanes on one word go in passes, a request each, as in the detailed L1: a
// warp's 32 lanes on one address make 32 requests at the L2, and at 16 L1
// cycles a request (l1d.atomic_request_cycles) they hold the LD/ST unit 512
// cycles, so a third such atomic issues that much after the second and,
// its predecessor's replies long back and the line in the L2 (the first
// fetched it), ends as much later.
TEST(AbstractModel, AtomicLanesOnOneWordAreARequestEach) {
  auto run = [](size_t atomics, uint64_t* requests) {
    ir::WarpInst atom = load(1, 0);
    atom.kind = ir::OpKind::Atomic;
    atom.strided = false;
    std::array<Addr, 32> addrs{};
    addrs.fill(0x10000);
    atom.addrs = addrs.data();
    std::vector<ir::WarpInst> insts(atomics, atom);
    for (size_t i = 0; i < atomics; ++i) insts[i].dst[0] = static_cast<uint16_t>(1 + i);
    AbstractGpu gpu(one_sm({"l1d.atomic_request_cycles=16"}));
    FakeKernel k({insts}, 1);
    KernelResult r = gpu.run_kernel(k);
    *requests = gpu.stats().sum("l2.*.atomics", r.before, r.after);
    return r.cycles;
  };
  uint64_t requests_two = 0, requests_three = 0;
  Cycle two = run(2, &requests_two), three = run(3, &requests_three);
  EXPECT_EQ(requests_two, 64u);
  EXPECT_EQ(requests_three, 96u);
  EXPECT_EQ(three - two, 512u) << two << " vs " << three;
}

// Shared memory counts wavefronts as the detailed LD/ST unit does: a 16-byte
// load of consecutive words moves in four lane groups of 8 (four
// wavefronts), a 4-byte one in one; one that every lane takes from one
// address in two (qv100's shared.pair_packing).
TEST(AbstractModel, SixteenByteSharedLoadsTakeFourWavefronts) {
  auto cycles = [](uint32_t bytes, int32_t stride) {
    ir::WarpInst ld = load(1, 0x100);
    ld.space = ir::MemSpace::Shared;
    ld.stride = stride;
    ld.access_bytes = bytes;
    return run(one_sm(), {{ld, sp(2, 1)}});
  };
  EXPECT_EQ(cycles(16, 16) - cycles(4, 4), 3u);
  EXPECT_EQ(cycles(16, 0) - cycles(4, 4), 1u);
}

// Back-pressure from a busy slice: with one slice at a quarter of the core
// clock, 512 line loads (a request each) take over 2,000 cycles there.
// Past the SM's places upstream of the crossbar (l1d.miss_queue +
// icnt.input_buffer = 16 requests) the L1 stalls its lookups, as the detailed
// L1 does, so a second load of the first line is looked up after that line's
// fill (four hits); with room for every request it is looked up at once and
// merges with the fill (no hit).
TEST(AbstractModel, ABusySliceHoldsBackTheL1Lookups) {
  auto hits = [](const char* queue) {
    AbstractGpu gpu(one_sm({"l2.channels=1", "l2.slices_per_channel=1", "clock.l2_mhz=283", queue}));
    std::vector<ir::WarpInst> insts;
    for (uint16_t i = 0; i < 512; ++i) insts.push_back(load(static_cast<uint16_t>(1 + i), 0x100000 + Addr{i} * 128));
    insts.push_back(load(600, 0x100000));
    FakeKernel k({insts}, 1);
    KernelResult r = gpu.run_kernel(k);
    return gpu.stats().sum("sm.*.l1d.read_hits", r.before, r.after);
  };
  EXPECT_EQ(hits("l1d.miss_queue=8"), 4u);
  EXPECT_EQ(hits("l1d.miss_queue=4096"), 0u);
}

// Register banks as in the detailed sub-core (core.regfile.*): with two
// banks serving one read a cycle each, an instruction reading r2 and r4
// (both bank 0) enters its pipeline a cycle late. A chain of three such
// instructions ends three cycles later than one reading r2 and r3, in a
// block's body (characterised) and as the block's terminal (the dynamic
// model) alike.
TEST(AbstractModel, RegisterBankConflictsDelayDispatch) {
  auto chain = [](uint16_t second_src) {
    std::vector<ir::WarpInst> v;
    for (uint16_t i = 0; i < 3; ++i) {
      ir::WarpInst in = sp(static_cast<uint16_t>(2), 2);  // r2 = f(r2, second)
      in.n_src = 2;
      in.src[1] = second_src;
      v.push_back(in);
    }
    return v;
  };
  auto cycles = [&](uint16_t second_src, const char* banks) {
    return run(one_sm({banks, "core.regfile.reads_per_bank=1", "core.regfile.reuse=false"}), {chain(second_src)});
  };
  EXPECT_EQ(cycles(4, "core.regfile.banks=2") - cycles(3, "core.regfile.banks=2"), 3u);
  EXPECT_EQ(cycles(4, "core.regfile.banks=0"), cycles(3, "core.regfile.banks=0"));  // the model off
}

TEST(AbstractModel, FactoryPicksTheModelByParameter) {
  EXPECT_NE(dynamic_cast<AbstractGpu*>(make_timing_model(one_sm({"gpu.model=abstract"})).get()), nullptr);
  EXPECT_EQ(dynamic_cast<AbstractGpu*>(make_timing_model(one_sm()).get()), nullptr);
  EXPECT_THROW(make_timing_model(one_sm({"gpu.model=fast"})), ConfigError);
}

}  // namespace
}  // namespace ws::timing::abstract
