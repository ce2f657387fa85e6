// Functional PTX emulator speed, in thread instructions per host second, on
// two fixed kernels: an FMA/integer loop (compute) and a grid-stride
// load-add-store loop over 16 MiB (memory).
#include <benchmark/benchmark.h>

#include <cstring>
#include <vector>

#include "exec/device_memory.h"
#include "exec/emulator.h"
#include "exec/program.h"
#include "frontend/ptx/parser.h"

namespace {

const char* kPtx = R"(
.version 8.0
.target sm_80
.address_size 64

.visible .entry compute(.param .u64 out, .param .u32 iters)
{
  .reg .b32 %r<16>;
  .reg .b64 %rd<8>;
  .reg .f32 %f<16>;
  .reg .pred %p<4>;
  ld.param.u64 %rd1, [out];
  ld.param.u32 %r1, [iters];
  mov.u32 %r2, %ctaid.x;
  mov.u32 %r3, %ntid.x;
  mov.u32 %r4, %tid.x;
  mad.lo.s32 %r5, %r2, %r3, %r4;
  cvt.rn.f32.s32 %f1, %r5;
  mov.f32 %f2, 0f3F800000;
  mov.f32 %f3, 0f3F000000;
  mov.u32 %r6, 0;
  mov.u32 %r7, 7;
LOOP:
  fma.rn.f32 %f2, %f2, %f3, %f1;
  fma.rn.f32 %f3, %f3, %f2, 0f3DCCCCCD;
  mul.f32 %f4, %f2, %f3;
  add.f32 %f1, %f1, %f4;
  xor.b32 %r7, %r7, %r6;
  shl.b32 %r8, %r7, 3;
  add.s32 %r7, %r8, %r5;
  add.s32 %r6, %r6, 1;
  setp.lt.u32 %p1, %r6, %r1;
  @%p1 bra.uni LOOP;
  cvt.rn.f32.u32 %f5, %r7;
  add.f32 %f1, %f1, %f5;
  mul.wide.s32 %rd2, %r5, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.f32 [%rd3], %f1;
  ret;
}

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
  ld.global.f32 %f2, [%rd5];
  fma.rn.f32 %f3, %f1, 0f40000000, %f2;
  st.global.f32 [%rd5], %f3;
  add.s32 %r5, %r5, %r7;
  bra.uni LOOP;
DONE:
  ret;
}
)";

struct Setup {
  ws::exec::DeviceMemory mem;
  ws::exec::Program program{mem};
  ws::exec::Emulator emu{mem, 80};
  const ws::exec::LoadedModule* module = &program.load(ws::ptx::parse_module(kPtx, "emu_bench.ptx"));

  ws::exec::Launch launch(const char* kernel, uint32_t ctas, std::vector<uint64_t> words) {
    ws::exec::Launch l;
    l.module = module;
    for (const auto& f : module->ast.functions)
      if (f.name == kernel) l.kernel = &f;
    l.grid = {ctas, 1, 1};
    l.block = {256, 1, 1};
    l.params.resize(l.kernel->param_bytes);
    for (size_t i = 0; i < words.size(); ++i) {
      const auto& p = l.kernel->params[i];
      std::memcpy(l.params.data() + p.offset, &words[i], p.size);
    }
    return l;
  }
};

void report(benchmark::State& state, uint64_t thread_insts, uint64_t warp_insts) {
  state.counters["thread_insts_per_s"] = benchmark::Counter(double(thread_insts), benchmark::Counter::kIsRate);
  state.counters["warp_insts_per_s"] = benchmark::Counter(double(warp_insts), benchmark::Counter::kIsRate);
  state.counters["thread_insts"] = benchmark::Counter(double(thread_insts) / double(state.iterations()));
}

void BM_EmuCompute(benchmark::State& state) {
  Setup s;
  const uint32_t ctas = 64;
  ws::Addr out = *s.mem.allocate(ctas * 256 * 4);
  ws::exec::Launch l = s.launch("compute", ctas, {out, 200});
  uint64_t threads = 0, warps = 0;
  for (auto _ : state) {
    ws::exec::LaunchResult r = s.emu.run(l);
    if (!r.ok) state.SkipWithError(r.error.c_str());
    threads += r.thread_insts, warps += r.warp_insts;
  }
  report(state, threads, warps);
}

void BM_EmuStream(benchmark::State& state) {
  Setup s;
  const uint32_t n = 4u << 20, ctas = 160;
  ws::Addr dst = *s.mem.allocate(n * 4), src = *s.mem.allocate(n * 4);
  s.mem.fill(src, 1, n * 4);
  ws::exec::Launch l = s.launch("stream", ctas, {dst, src, n});
  uint64_t threads = 0, warps = 0;
  for (auto _ : state) {
    ws::exec::LaunchResult r = s.emu.run(l);
    if (!r.ok) state.SkipWithError(r.error.c_str());
    threads += r.thread_insts, warps += r.warp_insts;
  }
  report(state, threads, warps);
}

BENCHMARK(BM_EmuCompute)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(3);
BENCHMARK(BM_EmuStream)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(3);

}  // namespace
