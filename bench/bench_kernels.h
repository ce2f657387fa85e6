// PTX kernels and launch helpers shared by the execution benchmarks.
#pragma once
#include <cstdint>
#include <cstring>
#include <vector>

#include "exec/emulator.h"

namespace ws::bench {

inline constexpr const char* kPtxHeader = ".version 8.0\n.target sm_80\n.address_size 64\n";

// An FMA/integer loop: `iters` iterations per thread, one store at the end.
inline constexpr const char* kComputeKernel = R"(
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
)";

// A grid-stride loop over n floats: dst[i] = 2 * src[i] + dst[i].
inline constexpr const char* kStreamKernel = R"(
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

// A launch of `kernel` in `module`: 256 threads per CTA, arguments written
// at their parameters' offsets.
inline exec::Launch make_launch(const exec::LoadedModule& module, const char* kernel, uint32_t ctas,
                                const std::vector<uint64_t>& words) {
  exec::Launch l;
  l.module = &module;
  l.kernel = module.ast.find_function(kernel);
  l.grid = {ctas, 1, 1};
  l.block = {256, 1, 1};
  l.params.resize(l.kernel->param_bytes);
  for (size_t i = 0; i < words.size(); ++i)
    std::memcpy(l.params.data() + l.kernel->params[i].offset, &words[i], l.kernel->params[i].size);
  return l;
}

}  // namespace ws::bench
