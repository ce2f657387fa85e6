// Trace readers alone (no timing model): warp instructions per host second
// from text and from binary (.wst) kernel files, and the sizes of the real
// traces as text, `xz -9` and .wst (docs/trace-format.md).
#include <benchmark/benchmark.h>
#include <linux/perf_event.h>
#include <lzma.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "frontend/trace/synth.h"
#include "frontend/trace/trace_reader.h"
#include "frontend/trace/wst_convert.h"
#include "ir/read_cta.h"

namespace {

namespace fs = std::filesystem;

std::string read_bytes(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// What `xz -9` makes of `raw` (the xz container, preset 9, CRC64).
size_t xz9_size(const std::string& raw) {
  std::string out(lzma_stream_buffer_bound(raw.size()), '\0');
  size_t pos = 0;
  lzma_easy_buffer_encode(9, LZMA_CHECK_CRC64, nullptr, reinterpret_cast<const uint8_t*>(raw.data()), raw.size(),
                          reinterpret_cast<uint8_t*>(out.data()), &pos, out.size());
  return pos;
}

// Counts this thread's user-space instructions (a figure the host's load
// does not move, unlike time); -1 where perf events are not allowed.
class InstructionCounter {
 public:
  InstructionCounter() {
    perf_event_attr a{};
    a.type = PERF_TYPE_HARDWARE;
    a.size = sizeof a;
    a.config = PERF_COUNT_HW_INSTRUCTIONS;
    a.exclude_kernel = 1;
    a.exclude_hv = 1;
    fd_ = static_cast<int>(syscall(SYS_perf_event_open, &a, 0, -1, -1, 0));
  }
  ~InstructionCounter() {
    if (fd_ >= 0) close(fd_);
  }
  void start() {
    if (fd_ >= 0) ioctl(fd_, PERF_EVENT_IOC_ENABLE, 0);
  }
  void stop() {
    if (fd_ >= 0) ioctl(fd_, PERF_EVENT_IOC_DISABLE, 0);
  }
  double count() const {
    uint64_t n = 0;
    return fd_ >= 0 && read(fd_, &n, sizeof n) == sizeof n ? static_cast<double>(n) : -1.0;
  }

 private:
  int fd_ = -1;
};

// A trace folder and its .wst conversion, made once per process.
struct Workload {
  fs::path text, wst;
};

Workload prepare(const std::string& name, const ws::frontend::SynthSpec* spec, const std::string& source) {
  fs::path base = fs::temp_directory_path() / ("warpsim-bench-read-" + name);
  Workload w{base / "text", base / "wst"};
  fs::remove_all(base);
  fs::create_directories(base);
  if (spec) ws::frontend::write_synthetic(*spec, w.text.string());
  else fs::copy(source, w.text, fs::copy_options::recursive);
  ws::frontend::convert_traces(w.text.string(), w.wst.string());
  return w;
}

// Each made on first use only.
const Workload& workload(int which) {
  if (which == 0) {
    static const Workload stream = [] {
      ws::frontend::SynthSpec s{.kind = "stream", .ctas = 640, .threads_per_cta = 256, .iterations = 16};
      return prepare("stream", &s, "");
    }();
    return stream;
  }
  if (which == 1) {
    static const Workload compute = [] {
      ws::frontend::SynthSpec s{.kind = "compute", .ctas = 320, .threads_per_cta = 256, .iterations = 24};
      return prepare("compute", &s, "");
    }();
    return compute;
  }
  static const Workload matrixmul =
      prepare("matrixmul", nullptr, std::string(WARPSIM_SOURCE_DIR) + "/examples/traces/matrixmul-32-32-trace");
  return matrixmul;
}

// range(0): workload (0 stream, 1 compute, 2 matrixmul); range(1): 0 text, 1 wst.
void BM_TraceRead(benchmark::State& state) {
  const Workload& w = workload(static_cast<int>(state.range(0)));
  fs::path file = (state.range(1) ? w.wst / "kernel-1.wst" : w.text / "kernel-1.traceg");
  uint64_t insts = 0;
  ws::ir::WarpInst scratch;
  // Loaded once, as `warpsim run` shares it between a workload's kernels.
  auto isa = std::make_shared<const ws::frontend::IsaTable>(
      ws::frontend::IsaTable::load(ws::frontend::read_trace_header(file.string()).info.binary_version));
  InstructionCounter host;
  host.start();
  for (auto _ : state) {
    auto k = ws::frontend::open_trace_kernel(file.string(), isa);
    while (auto cta = k->next_cta()) ws::ir::read_cta(*cta, [&insts](const ws::ir::WarpInst&) { ++insts; }, scratch);
  }
  host.stop();
  state.counters["warp_insts_per_s"] = benchmark::Counter(static_cast<double>(insts), benchmark::Counter::kIsRate);
  // Host instructions per warp instruction read (opening the file included).
  if (host.count() >= 0) state.counters["host_insts_per_inst"] = host.count() / static_cast<double>(insts);
  state.counters["bytes"] = static_cast<double>(fs::file_size(file));
}

// Opening a kernel file alone (header, and for .wst the index and static
// instructions): the fixed cost a small kernel pays.
void BM_TraceOpen(benchmark::State& state) {
  const Workload& w = workload(static_cast<int>(state.range(0)));
  fs::path file = (state.range(1) ? w.wst / "kernel-1.wst" : w.text / "kernel-1.traceg");
  auto isa = std::make_shared<const ws::frontend::IsaTable>(
      ws::frontend::IsaTable::load(ws::frontend::read_trace_header(file.string()).info.binary_version));
  for (auto _ : state) benchmark::DoNotOptimize(ws::frontend::open_trace_kernel(file.string(), isa));
}

// Sizes only (the timing is meaningless): kernel files as text, as `xz -9`
// of the text, and as .wst; ratios text/wst and xz/wst.
void BM_TraceSizes(benchmark::State& state) {
  const Workload& w = workload(static_cast<int>(state.range(0)));
  for (auto _ : state) benchmark::DoNotOptimize(w);
  std::string text = read_bytes(w.text / "kernel-1.traceg");
  double wst = static_cast<double>(fs::file_size(w.wst / "kernel-1.wst"));
  double xz = static_cast<double>(xz9_size(text));
  state.counters["text_bytes"] = static_cast<double>(text.size());
  state.counters["xz9_bytes"] = xz;
  state.counters["wst_bytes"] = wst;
  state.counters["text_over_wst"] = static_cast<double>(text.size()) / wst;
  state.counters["xz9_over_wst"] = xz / wst;
}

BENCHMARK(BM_TraceRead)
    ->ArgsProduct({{0, 1, 2}, {0, 1}})
    ->ArgNames({"workload", "wst"})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->MinTime(0.5);
BENCHMARK(BM_TraceOpen)->ArgsProduct({{2}, {0, 1}})->ArgNames({"workload", "wst"})->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_TraceSizes)->DenseRange(0, 2)->ArgName("workload")->Iterations(1);

}  // namespace
