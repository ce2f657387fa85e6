// Kernels on streams (Gpu::launch / synchronize): two small kernels on two
// streams overlap, on one stream they do not; events and the legacy stream
// order them; each keeps its own counts; runs are deterministic.
#include <cmath>

#include "e2e/sim_util.h"

namespace ws::test {
namespace {

// A compute kernel of 4 one-warp CTAs, each a long chain of dependent FFMAs:
// it uses 4 of QV100's 80 SMs, and its time is its chain's latency.
std::string small_kernel_trace() {
  static const std::string dir = [] {
    frontend::SynthSpec s;
    s.kind = "compute";
    s.ctas = 4;
    s.threads_per_cta = 32;
    s.iterations = 1000;  // about 22 cycles each: FFMA, IADD3, ISETP, then a branch 12 cycles after it that resolves in 5
    s.chains = 1;
    return synth(s, "streams-small");
  }();
  return dir;
}

// The trace's kernel (its copies are left out: they only warm the L2).
std::unique_ptr<ir::KernelSource> open_kernel(const std::string& dir, int64_t stream) {
  auto work = frontend::open_trace_workload(dir);
  while (auto cmd = work->next())
    if (auto* k = std::get_if<std::unique_ptr<ir::KernelSource>>(&*cmd)) {
      auto kernel = std::move(*k);
      const_cast<ir::KernelInfo&>(kernel->info()).stream = stream;
      return kernel;
    }
  throw Error("no kernel in " + dir);
}

struct Span {
  std::vector<timing::KernelResult> kernels;
  Cycle first_start = ~Cycle{0}, last_end = 0;
};

// Launches the two kernels on the given streams, then synchronises.
Span run_pair(int64_t stream_a, int64_t stream_b, const std::vector<std::string>& sets = {},
              bool b_blocking = true) {
  timing::Gpu gpu(preset("qv100", sets));
  auto a = open_kernel(small_kernel_trace(), stream_a);
  auto b = open_kernel(small_kernel_trace(), stream_b);
  gpu.launch(*a, stream_a);
  gpu.launch(*b, stream_b, b_blocking);
  Span s;
  s.kernels = gpu.synchronize();
  for (const auto& k : s.kernels) {
    s.first_start = std::min(s.first_start, k.start_cycle);
    s.last_end = std::max(s.last_end, k.start_cycle + k.cycles);
  }
  return s;
}

Cycle alone_cycles() {
  timing::Gpu gpu(preset("qv100"));
  auto k = open_kernel(small_kernel_trace(), 0);
  return gpu.run_kernel(*k).cycles;
}

uint64_t overhead() { return static_cast<uint64_t>(preset("qv100").get<int64_t>("gpu.kernel_launch_overhead")); }

// Each kernel alone takes `a` cycles (its FFMA chain). On two streams the
// second starts one launch overhead after the first and runs beside it on
// other SMs: the pair takes about a + overhead. On one stream the second
// waits for the first's end and pays the overhead again: about 2a + overhead
// (a little less: the second finds its code in the caches).
TEST(E2eStreams, TwoStreamsOverlapOneStreamDoesNot) {
  Cycle a = alone_cycles();
  ASSERT_GT(a, 4 * overhead());  // the kernels are long against the launch costs
  Span two = run_pair(1, 2);
  Span one = run_pair(1, 1);
  ASSERT_EQ(two.kernels.size(), 2u);
  ASSERT_EQ(one.kernels.size(), 2u);
  Cycle two_span = two.last_end - two.first_start, one_span = one.last_end - one.first_start;
  std::printf("alone %llu cycles; two streams span %llu; one stream span %llu\n", (unsigned long long)a,
              (unsigned long long)two_span, (unsigned long long)one_span);
  EXPECT_LT(two_span, a + 2 * overhead() + a / 10);
  EXPECT_GT(one_span, 19 * a / 10 + overhead());
  EXPECT_LT(two_span * 3, one_span * 2);
  // Overlap: the second started before the first ended; the start order
  // keeps the launch order, one launch overhead apart.
  const auto& first = two.kernels[0].start_cycle < two.kernels[1].start_cycle ? two.kernels[0] : two.kernels[1];
  const auto& second = &first == &two.kernels[0] ? two.kernels[1] : two.kernels[0];
  EXPECT_EQ(second.start_cycle - first.start_cycle, overhead());
  EXPECT_LT(second.start_cycle, first.start_cycle + first.cycles);
  EXPECT_TRUE(first.shared_gpu);
  EXPECT_FALSE(one.kernels[0].shared_gpu);
  EXPECT_EQ(one.kernels[1].start_cycle, one.kernels[0].start_cycle + one.kernels[0].cycles + overhead());
}

// Per-kernel counts are the kernel's own even when another ran beside it:
// 4 CTAs x 1 warp x the synthesised instruction count.
TEST(E2eStreams, OverlappedKernelsKeepTheirOwnCounts) {
  Span two = run_pair(1, 2);
  uint64_t per_warp = 2 + (1 + 3ull) * 1000 + 1;
  for (const auto& k : two.kernels) {
    EXPECT_TRUE(k.attributed);
    EXPECT_EQ(k.own.warp_insts, 4 * per_warp);
    EXPECT_EQ(k.own.ctas, 4u);
  }
}

TEST(E2eStreams, LegacyStreamWaitsForBlockingStreamsNotNonBlockingOnes) {
  Cycle a = alone_cycles();
  Span blocking = run_pair(2, 0);
  Span nonblocking = run_pair(0, 2, {}, false);
  EXPECT_GT(blocking.last_end - blocking.first_start, 19 * a / 10);
  EXPECT_LT(nonblocking.last_end - nonblocking.first_start, a + a / 2);
}

TEST(E2eStreams, AConcurrencyLimitOfOneSerialises) {
  Cycle a = alone_cycles();
  Span capped = run_pair(1, 2, {"gpu.max_concurrent_kernels=1"});
  EXPECT_GT(capped.last_end - capped.first_start, 19 * a / 10);
}

TEST(E2eStreams, EventWaitOrdersTheSecondStreamAfterTheFirst) {
  timing::Gpu gpu(preset("qv100"));
  auto a = open_kernel(small_kernel_trace(), 1);
  auto b = open_kernel(small_kernel_trace(), 2);
  gpu.launch(*a, 1);
  gpu.record_event(77, 1);
  gpu.wait_event(2, 77);
  gpu.launch(*b, 2);
  auto done = gpu.synchronize(timing::SyncPoint{timing::SyncPoint::Kind::Event, 77});
  ASSERT_EQ(done.size(), 1u);  // the event's work only
  Cycle a_end = done[0].start_cycle + done[0].cycles;
  EXPECT_EQ(gpu.event_cycle(77), std::optional<Cycle>(a_end));
  auto rest = gpu.synchronize();
  ASSERT_EQ(rest.size(), 1u);
  EXPECT_EQ(rest[0].start_cycle, a_end + overhead());
}

TEST(E2eStreams, Deterministic) {
  Span x = run_pair(1, 2), y = run_pair(1, 2);
  ASSERT_EQ(x.kernels.size(), y.kernels.size());
  for (size_t i = 0; i < x.kernels.size(); ++i) {
    EXPECT_EQ(x.kernels[i].start_cycle, y.kernels[i].start_cycle);
    EXPECT_EQ(x.kernels[i].cycles, y.kernels[i].cycles);
    EXPECT_EQ(x.kernels[i].after, y.kernels[i].after);
  }
}

// All on the legacy stream, the stream entry points give what run_kernel gives.
TEST(E2eStreams, OneStreamMatchesRunKernel) {
  timing::Gpu seq(preset("qv100")), queued(preset("qv100"));
  auto a1 = open_kernel(small_kernel_trace(), 0), b1 = open_kernel(small_kernel_trace(), 0);
  auto a2 = open_kernel(small_kernel_trace(), 0), b2 = open_kernel(small_kernel_trace(), 0);
  std::vector<timing::KernelResult> expect{seq.run_kernel(*a1), seq.run_kernel(*b1)};
  queued.launch(*a2, 0);
  queued.launch(*b2, 0);
  auto got = queued.synchronize();
  ASSERT_EQ(got.size(), 2u);
  for (size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(got[i].start_cycle, expect[i].start_cycle);
    EXPECT_EQ(got[i].cycles, expect[i].cycles);
    EXPECT_EQ(got[i].launch_gap, expect[i].launch_gap);
  }
}

// Copy engines (timing/gpu/copy_engines.h) on QV100: 12 GB/s per direction,
// 2 us per copy. 120,000 bytes take 2,000 + 120,000 / 12 = 12,000 ns, which
// at the core clock (a 883 ps period) is 13,591 cycles: about as long as the
// small kernel.
constexpr uint64_t kCopyBytes = 120'000;
Cycle copy_cycles() { return static_cast<Cycle>(std::ceil(12'000.0 * 1000.0 / 883.0)); }

timing::CopyWork upload(bool* ran = nullptr) {
  return timing::CopyWork{timing::CopyDirection::HostToDevice, 0x7f00'0000'0000, kCopyBytes, [ran] {
                            if (ran) *ran = true;
                          }};
}
timing::CopyWork download() {
  return timing::CopyWork{timing::CopyDirection::DeviceToHost, 0x7f00'0010'0000, kCopyBytes, {}};
}

// A copy on its own stream beside a kernel of about the same length: the two
// together take about the longer, not the sum; the copy ends exactly one
// copy's time after its turn came (at once: nothing before it).
TEST(E2eStreams, CopyOverlapsAKernelOfAnotherStream) {
  Cycle a = alone_cycles(), d = copy_cycles();
  ASSERT_GT(d, a / 2);
  ASSERT_LT(d, 2 * a);
  timing::Gpu gpu(preset("qv100"));
  auto k = open_kernel(small_kernel_trace(), 1);
  bool moved = false;
  gpu.queue_copy(upload(&moved), 2);
  gpu.record_event(5, 2);
  gpu.launch(*k, 1);
  auto done = gpu.synchronize();
  ASSERT_EQ(done.size(), 1u);
  EXPECT_TRUE(moved);
  EXPECT_EQ(gpu.event_cycle(5), std::optional<Cycle>(d));
  Cycle span = std::max(d, done[0].start_cycle + done[0].cycles);
  EXPECT_LT(span, std::max(a, d) + 2 * overhead());
  EXPECT_LT(span, (a + d) * 3 / 4);
  EXPECT_EQ(gpu.stats().sum("copy_engine.0.bytes"), kCopyBytes);
  EXPECT_EQ(gpu.stats().sum("copy_engine.0.busy_cycles"), d);
}

// On one stream the kernel waits for the copy: it starts one launch
// overhead after the copy's end (its launch work overlapped the copy).
TEST(E2eStreams, CopyThenKernelOnOneStreamRunInOrder) {
  timing::Gpu gpu(preset("qv100"));
  auto k = open_kernel(small_kernel_trace(), 1);
  gpu.queue_copy(upload(), 1);
  gpu.launch(*k, 1);
  auto done = gpu.synchronize();
  ASSERT_EQ(done.size(), 1u);
  EXPECT_EQ(done[0].start_cycle, copy_cycles() + overhead());
}

// Two uploads share the host-to-device engine (the second ends after two
// copies' time); an upload and a download use the two engines at once.
TEST(E2eStreams, UploadsSerialiseUploadAndDownloadOverlap) {
  Cycle d = copy_cycles();
  timing::Gpu same(preset("qv100"));
  same.queue_copy(upload(), 2);
  same.record_event(1, 2);
  same.queue_copy(upload(), 3);
  same.record_event(2, 3);
  same.synchronize();
  EXPECT_EQ(same.event_cycle(1), std::optional<Cycle>(d));
  EXPECT_EQ(same.event_cycle(2), std::optional<Cycle>(2 * d));
  timing::Gpu both(preset("qv100"));
  both.queue_copy(upload(), 2);
  both.record_event(1, 2);
  both.queue_copy(download(), 3);
  both.record_event(2, 3);
  both.synchronize();
  EXPECT_EQ(both.event_cycle(1), std::optional<Cycle>(d));
  EXPECT_EQ(both.event_cycle(2), std::optional<Cycle>(d));
  // With one engine (copy.engines = 1) they take turns.
  timing::Gpu one(preset("qv100", {"copy.engines=1"}));
  one.queue_copy(upload(), 2);
  one.queue_copy(download(), 3);
  one.record_event(2, 3);
  one.synchronize();
  EXPECT_EQ(one.event_cycle(2), std::optional<Cycle>(2 * d));
}

}  // namespace
}  // namespace ws::test
