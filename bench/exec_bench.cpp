// Execution-driven timing speed: a PTX streaming kernel run by exec::Device
// with --timing semantics on QV100 (emulation on demand + the cycle-level
// model), in warp instructions per host second, as for traces.
#include <benchmark/benchmark.h>

#include <cstring>
#include <vector>

#include "exec/device.h"
#include "frontend/ptx/parser.h"

namespace {

const char* kStream = R"(
.version 8.0
.target sm_80
.address_size 64
.visible .entry stream(.param .u64 dst, .param .u64 src, .param .u32 n)
{
  .reg .b32 %r<16>;
  .reg .b64 %rd<8>;
  .reg .f32 %f<8>;
  .reg .pred %p<4>;
  ld.param.u64 %rd1, [dst];
  ld.param.u64 %rd2, [src];
  ld.param.u32 %r1, [n];
  mov.u32 %r2, %ctaid.x;
  mov.u32 %r3, %ntid.x;
  mov.u32 %r4, %tid.x;
  mad.lo.s32 %r5, %r2, %r3, %r4;
  mov.u32 %r6, %nctaid.x;
  mul.lo.s32 %r7, %r6, %r3;
LOOP:
  setp.ge.u32 %p1, %r5, %r1;
  @%p1 bra DONE;
  mul.wide.u32 %rd3, %r5, 4;
  add.s64 %rd4, %rd2, %rd3;
  ld.global.f32 %f1, [%rd4];
  add.s64 %rd5, %rd1, %rd3;
  fma.rn.f32 %f3, %f1, 0f40000000, %f1;
  st.global.f32 [%rd5], %f3;
  add.s32 %r5, %r5, %r7;
  bra.uni LOOP;
DONE:
  ret;
}
)";

// 640 CTAs x 256 threads copy 4 Mi floats (16 MiB read, 16 MiB written).
void BM_ExecTimedStreamQv100(benchmark::State& state) {
  const uint32_t n = 4u << 20, ctas = 640;
  uint64_t warps = 0;
  double cycles = 0;
  for (auto _ : state) {
    ws::exec::DeviceOptions o;
    o.timing = true;
    o.print_summary = false;
    ws::exec::Device dev(o);
    const ws::exec::LoadedModule& m = dev.program().load(ws::ptx::parse_module(kStream, "exec_bench.ptx"));
    ws::Addr dst = *dev.memory().allocate(n * 4), src = *dev.memory().allocate(n * 4);
    ws::exec::Launch l;
    l.module = &m;
    l.kernel = m.ast.find_function("stream");
    l.grid = {ctas, 1, 1};
    l.block = {256, 1, 1};
    l.params.resize(l.kernel->param_bytes);
    uint64_t words[3] = {dst, src, n};
    for (size_t i = 0; i < 3; ++i)
      std::memcpy(l.params.data() + l.kernel->params[i].offset, &words[i], l.kernel->params[i].size);
    double before = dev.now_ns();
    ws::exec::LaunchResult r = dev.launch(l);
    if (!r.ok) state.SkipWithError(r.error.c_str());
    warps += r.warp_insts;
    cycles = (dev.now_ns() - before) * 1132.0 / 1e3;  // QV100 core clock
  }
  state.counters["warp_insts_per_s"] = benchmark::Counter(double(warps), benchmark::Counter::kIsRate);
  state.counters["warp_insts"] = benchmark::Counter(double(warps) / double(state.iterations()));
  state.counters["sim_cycles"] = cycles;
}

BENCHMARK(BM_ExecTimedStreamQv100)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(2);

}  // namespace
