// The CUDA runtime's bookkeeping that needs no device: registration, kernel
// parameter buffers, streams and events, options from the environment.
#include <gtest/gtest.h>

#include <cstring>
#include <map>

#include "common/error.h"
#include "exec/runtime/env_options.h"
#include "exec/runtime/kernel_params.h"
#include "exec/runtime/registry.h"
#include "exec/runtime/streams.h"

namespace ws::runtime {
namespace {

TEST(Registry, KernelsAndVariablesBelongToTheirFatbin) {
  Registry r;
  int wrapper_a = 0, wrapper_b = 0;
  char stub_a = 0, stub_b = 0, shadow = 0;
  void** a = r.add_fatbin(&wrapper_a);
  void** b = r.add_fatbin(&wrapper_b);
  EXPECT_NE(a, b);
  r.add_kernel(a, &stub_a, "_Z1av");
  r.add_kernel(b, &stub_b, "_Z1bv");
  r.add_variable(b, &shadow, "coeff", 16, true);
  ASSERT_NE(r.kernel(&stub_a), nullptr);
  EXPECT_EQ(r.kernel(&stub_a)->name, "_Z1av");
  EXPECT_EQ(r.kernel(&stub_a)->fatbin, 1);
  EXPECT_EQ(r.kernel(&stub_b)->fatbin, 2);
  EXPECT_EQ(r.kernel(&shadow), nullptr);
  ASSERT_NE(r.variable(&shadow), nullptr);
  EXPECT_EQ(r.variable(&shadow)->name, "coeff");
  EXPECT_EQ(r.variable(&shadow)->size, 16u);
  EXPECT_TRUE(r.variable(&shadow)->constant);
  EXPECT_EQ(r.fatbin(b)->wrapper, &wrapper_b);
  r.remove_fatbin(a);
  EXPECT_FALSE(r.fatbin(a)->registered);
  int stray = 0;
  EXPECT_EQ(r.fatbin(reinterpret_cast<void**>(&stray)), nullptr);
  EXPECT_THROW(r.add_kernel(reinterpret_cast<void**>(&stray), &stub_a, "x"), Error);
}

ptx::Param param(uint64_t size, uint64_t offset) {
  ptx::Param p;
  p.size = size;
  p.offset = offset;
  p.align = static_cast<uint32_t>(size);
  return p;
}

TEST(KernelParams, ArgumentsLandAtTheirPtxOffsets) {
  // (double* x, double s, char c, int n): offsets 0, 8, 16, 20 as nvcc lays them out.
  ptx::Function f;
  f.name = "_Z5scalePddci";
  f.params = {param(8, 0), param(8, 8), param(1, 16), param(4, 20)};
  f.param_bytes = 24;
  uint64_t ptr = 0x7f0000001000;
  double s = 2.5;
  char c = 'a';
  int n = 42;
  void* args[] = {&ptr, &s, &c, &n};
  std::vector<uint8_t> buf = pack_kernel_params(f, args);
  ASSERT_EQ(buf.size(), 24u);
  uint64_t got_ptr;
  double got_s;
  int got_n;
  std::memcpy(&got_ptr, buf.data(), 8);
  std::memcpy(&got_s, buf.data() + 8, 8);
  std::memcpy(&got_n, buf.data() + 20, 4);
  EXPECT_EQ(got_ptr, ptr);
  EXPECT_EQ(got_s, s);
  EXPECT_EQ(buf[16], 'a');
  EXPECT_EQ(buf[17], 0);  // padding is zero
  EXPECT_EQ(got_n, 42);
}

TEST(KernelParams, ByValueStructsAndNoParameters) {
  ptx::Function f;
  f.name = "k";
  EXPECT_TRUE(pack_kernel_params(f, nullptr).empty());
  struct { float v[3]; int tag; } s{{1, 2, 3}, 7};
  f.params = {param(16, 0)};
  f.params[0].is_array = true;
  f.param_bytes = 16;
  void* args[] = {&s};
  auto buf = pack_kernel_params(f, args);
  EXPECT_EQ(std::memcmp(buf.data(), &s, 16), 0);
  EXPECT_THROW(pack_kernel_params(f, nullptr), Error);
}

TEST(Streams, DefaultStreamsAreAlwaysValid) {
  StreamTable t;
  EXPECT_TRUE(t.valid(nullptr));
  EXPECT_TRUE(t.valid(reinterpret_cast<void*>(1)));
  EXPECT_TRUE(t.valid(reinterpret_cast<void*>(2)));
  void* s = t.create(0);
  EXPECT_GT(reinterpret_cast<uintptr_t>(s), 2u);
  EXPECT_TRUE(t.valid(s));
  EXPECT_TRUE(t.destroy(s));
  EXPECT_FALSE(t.valid(s));
  EXPECT_FALSE(t.destroy(s));
}

TEST(Events, ElapsedTimeNeedsTwoRecordedTimingEvents) {
  EventTable t;
  void* a = t.create(0);
  void* b = t.create(0);
  EXPECT_FALSE(t.elapsed_ms(a, b).has_value());  // not recorded
  EXPECT_TRUE(t.record(a, 1000.0));
  EXPECT_TRUE(t.record(b, 2'501'000.0));
  ASSERT_TRUE(t.elapsed_ms(a, b).has_value());
  EXPECT_FLOAT_EQ(*t.elapsed_ms(a, b), 2.5f);
  void* untimed = t.create(EventTable::kDisableTiming);
  t.record(untimed, 3e6);
  EXPECT_FALSE(t.elapsed_ms(a, untimed).has_value());
  EXPECT_TRUE(t.destroy(a));
  EXPECT_FALSE(t.record(a, 0));
  EXPECT_FALSE(t.elapsed_ms(a, b).has_value());
}

TEST(EnvOptions, ReadsEveryVariable) {
  std::map<std::string, std::string> env{{"WARPSIM_GPU", "a100"},
                                         {"WARPSIM_SET", "l2.size_kb=8192;;core.warp_scheduler=lrr;"},
                                         {"WARPSIM_TIMING", "1"},
                                         {"WARPSIM_OUT", "/tmp/o"},
                                         {"WARPSIM_TRACE_OUT", "/tmp/t"},
                                         {"WARPSIM_VERBOSE", "1"}};
  auto get = [&](const char* k) -> const char* {
    auto it = env.find(k);
    return it == env.end() ? nullptr : it->second.c_str();
  };
  RuntimeOptions o = options_from_env(get);
  EXPECT_EQ(o.device.preset, "a100");
  EXPECT_EQ(o.device.sets, (std::vector<std::string>{"l2.size_kb=8192", "core.warp_scheduler=lrr"}));
  EXPECT_TRUE(o.device.timing);
  EXPECT_EQ(o.device.out_dir, "/tmp/o");
  EXPECT_EQ(o.device.trace_out, "/tmp/t");
  EXPECT_TRUE(o.verbose);
  env.clear();
  o = options_from_env(get);
  EXPECT_EQ(o.device.preset, "qv100");
  EXPECT_FALSE(o.device.timing);
  env["WARPSIM_SET"] = "novalue";
  EXPECT_THROW(options_from_env(get), InputError);
  env["WARPSIM_SET"] = "";
  env["WARPSIM_TIMING"] = "maybe";
  EXPECT_THROW(options_from_env(get), InputError);
}

}  // namespace
}  // namespace ws::runtime
