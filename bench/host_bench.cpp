// How fast this host is at what the simulator spends its time on: dependent
// loads from random places in a large array (every simulated memory request
// touches tag, MSHR and queue state spread over tens of MB). Hosts of one
// kind differ by 2-3x here from day to day; read the simulation rates of a
// `make bench` run against this figure.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <numeric>
#include <random>
#include <vector>

namespace {

// One pointer per 64 B line, linked in a random cycle through the array.
std::vector<uint64_t> random_cycle(size_t bytes) {
  size_t lines = bytes / 64;
  std::vector<uint64_t> order(lines);
  std::iota(order.begin(), order.end(), 0);
  std::shuffle(order.begin(), order.end(), std::mt19937_64{42});
  std::vector<uint64_t> next(lines * 8);
  for (size_t i = 0; i < lines; ++i) next[order[i] * 8] = order[(i + 1) % lines] * 8;
  return next;
}

void BM_HostDependentLoad(benchmark::State& state) {
  std::vector<uint64_t> next = random_cycle(static_cast<size_t>(state.range(0)) << 20);
  uint64_t at = 0, loads = 0;
  for (auto _ : state) {
    for (int i = 0; i < 1 << 20; ++i) at = next[at];
    loads += 1 << 20;
  }
  benchmark::DoNotOptimize(at);
  state.counters["ns_per_load"] =
      benchmark::Counter(static_cast<double>(loads), benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

BENCHMARK(BM_HostDependentLoad)->ArgName("MiB")->Arg(1)->Arg(64)->Unit(benchmark::kMillisecond);

}  // namespace
