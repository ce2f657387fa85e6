// Test helpers for the emulator: PTX text for a one-kernel module, and a
// harness that loads modules, allocates buffers and launches kernels.
#pragma once
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "common/error.h"
#include "exec/device_memory.h"
#include "exec/emulator.h"
#include "exec/program.h"
#include "frontend/ptx/ast.h"
#include "frontend/ptx/parser.h"

namespace ws::exec::test {

// A PTX module with one kernel: `params` is the parameter list text
// (".param .u64 out, .param .u32 n"), `body` the instructions. Registers
// %r, %rd, %p, %f, %fd, %rs (0..63) are declared for the body.
inline std::string kernel_ptx(const std::string& name, const std::string& params, const std::string& body,
                              const std::string& module_scope = "") {
  return ".version 8.0\n.target sm_80\n.address_size 64\n" + module_scope + "\n.visible .entry " + name + "(" +
         params + ")\n{\n.reg .b32 %r<64>;\n.reg .b64 %rd<64>;\n.reg .pred %p<64>;\n.reg .f32 %f<64>;\n"
         ".reg .f64 %fd<64>;\n.reg .b16 %rs<64>;\n" + body + "\n}\n";
}

// One warp of kernel `name` of `m`, its parameters `params` (their bytes,
// laid out as the kernel declares them).
inline Launch one_warp(const LoadedModule& m, const std::string& name, const std::vector<uint8_t>& params) {
  Launch l;
  l.module = &m;
  l.kernel = m.ast.find_function(name);
  l.grid = Dim3{1, 1, 1};
  l.block = Dim3{32, 1, 1};
  l.params = params;
  return l;
}

// The bytes of a parameter list of plain values, in order.
template <class... T>
std::vector<uint8_t> param_bytes(const T&... values) {
  std::vector<uint8_t> out;
  auto add = [&out](const auto& v) {
    const auto* b = reinterpret_cast<const uint8_t*>(&v);
    out.insert(out.end(), b, b + sizeof(v));
  };
  (add(values), ...);
  return out;
}

// out[i] = a[i] + b[i] for i < n.
inline std::string vector_add() {
  return kernel_ptx("vadd", ".param .u64 a, .param .u64 b, .param .u64 out, .param .u32 n", R"(
    ld.param.u64 %rd1, [a];
    ld.param.u64 %rd2, [b];
    ld.param.u64 %rd3, [out];
    ld.param.u32 %r1, [n];
    mov.u32 %r2, %ctaid.x;
    mov.u32 %r3, %ntid.x;
    mov.u32 %r4, %tid.x;
    mad.lo.s32 %r5, %r2, %r3, %r4;
    setp.ge.s32 %p1, %r5, %r1;
    @%p1 bra DONE;
    mul.wide.s32 %rd4, %r5, 4;
    add.s64 %rd5, %rd1, %rd4;
    add.s64 %rd6, %rd2, %rd4;
    add.s64 %rd7, %rd3, %rd4;
    ld.global.f32 %f1, [%rd5];
    ld.global.f32 %f2, [%rd6];
    add.f32 %f3, %f1, %f2;
    st.global.f32 [%rd7], %f3;
  DONE:
    ret;
  )");
}

// A device, a program and an emulator, with helpers for buffers and launches.
struct Harness {
  DeviceMemory mem;
  Program program{mem};
  Emulator emu{mem, 80};
  const LoadedModule* module = nullptr;

  void load(ptx::Module m) { module = &program.load(std::move(m)); }
  void load(const std::string& ptx_text, const std::string& file = "test.ptx") {
    load(ptx::parse_module(ptx_text, file));
  }
  template <class T>
  Addr buffer(const std::vector<T>& data) {
    Addr a = *mem.allocate(data.size() * sizeof(T));
    if (!data.empty()) mem.write(a, data.data(), data.size() * sizeof(T));
    return a;
  }
  template <class T>
  std::vector<T> read(Addr a, size_t n) {
    std::vector<T> v(n);
    mem.read(a, v.data(), n * sizeof(T));
    return v;
  }
  Launch make_launch(const std::string& kernel, Dim3 grid, Dim3 block) {
    Launch l;
    l.module = module;
    for (const ptx::Function& f : module->ast.functions)
      if (f.name == kernel && !f.is_extern) l.kernel = &f;
    EXPECT_TRUE(l.kernel) << kernel;
    l.grid = grid, l.block = block, l.dynamic_shmem = dynamic_shmem;
    if (l.kernel) l.params.assign(l.kernel->param_bytes, 0);
    return l;
  }
  // Arguments in declaration order, each written at its parameter's offset.
  template <class... Args>
  LaunchResult launch(const std::string& kernel, Dim3 grid, Dim3 block, Args... args) {
    Launch l = make_launch(kernel, grid, block);
    if (!l.kernel) return LaunchResult{false, "no kernel", LaunchFailure::Fault, 0, 0};
    EXPECT_EQ(l.kernel->params.size(), sizeof...(Args));
    size_t i = 0;
    auto put = [&](const auto& v) {
      const ptx::Param& p = l.kernel->params.at(i++);
      std::memcpy(l.params.data() + p.offset, &v, std::min<size_t>(sizeof v, p.size));
    };
    (put(args), ...);
    (void)put;  // unused for kernels without parameters
    return emu.run(l);
  }
  uint32_t dynamic_shmem = 0;
};

inline std::string read_fixture(const std::string& name) {
  std::string path = std::string(WARPSIM_SOURCE_DIR) + "/tests/data/ptx/" + name;
  FILE* f = std::fopen(path.c_str(), "rb");
  EXPECT_TRUE(f) << path;
  std::string text;
  if (!f) return text;
  char buf[4096];
  for (size_t n; (n = std::fread(buf, 1, sizeof buf, f)) > 0;) text.append(buf, n);
  std::fclose(f);
  return text;
}

}  // namespace ws::exec::test
