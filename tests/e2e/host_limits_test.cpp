// Inputs that ask the host for more than it has (issue 17 items 7 and 8):
// the model's memory is estimated and checked before it is built, and a huge
// host-to-device copy warms the L2 in time bounded by the L2, not the copy.
#include <gtest/gtest.h>

#include <chrono>
#include <string>

#include "common/error.h"
#include "e2e/sim_util.h"
#include "timing/gpu/host_memory.h"

namespace ws::test {
namespace {

// The message of the ws::Error `f` throws ("" if none).
template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(HostMemory, EstimateFollowsTheCacheParameters) {
  config::Config cfg = preset("qv100");
  timing::HostMemoryEstimate base = timing::estimate_host_memory(cfg);
  // 80 SMs of caches, warps and queues plus a 6 MiB L2's tags: tens of MB.
  EXPECT_GT(base.bytes, uint64_t{8} << 20);
  EXPECT_LT(base.bytes, uint64_t{1} << 30);
  // 1024 SMs with 64 MiB L1Ds: 2^19 lines per SM, 2^29 lines in all; at
  // least 16 bytes of tag state each is 8 GiB before anything else.
  cfg.set_assignment("gpu.sms=1024");
  cfg.set_assignment("l1d.size_kb=65536");
  timing::HostMemoryEstimate huge = timing::estimate_host_memory(cfg);
  EXPECT_GT(huge.bytes, uint64_t{8} << 30);
  ASSERT_FALSE(huge.parts.empty());
  EXPECT_NE(huge.parts.front().what.find("l1d.size_kb=65536"), std::string::npos) << huge.parts.front().what;
}

TEST(HostMemory, RefusesAModelOverTheLimitNamingTheParameters) {
  config::Config cfg = preset("qv100", {"gpu.sms=1024", "l1d.size_kb=65536", "sim.max_host_memory_gb=4"});
  std::string m = error_of([&] { timing::Gpu gpu(cfg); });
  EXPECT_NE(m.find("sim.max_host_memory_gb"), std::string::npos) << m;
  EXPECT_NE(m.find("gpu.sms=1024"), std::string::npos) << m;
  EXPECT_NE(m.find("l1d.size_kb=65536"), std::string::npos) << m;
  // The same limit leaves the preset as it is alone.
  config::Config ok = preset("qv100", {"sim.max_host_memory_gb=4"});
  EXPECT_NO_THROW(timing::check_host_memory(ok));
}

TEST(HostMemory, ReadsMemAvailable) {
  // Linux has /proc/meminfo; a machine running the tests has some memory free.
  EXPECT_GT(timing::host_available_bytes(), uint64_t{1} << 20);
}

// Before: one loop step per 32 B sector of the copy, 2^35 steps for 1 TB.
TEST(HugeCopy, WarmsTheL2InTimeBoundedByItsSize) {
  timing::Gpu gpu(preset("qv100", {"gpu.sms=2"}));
  auto start = std::chrono::steady_clock::now();
  gpu.memcpy_htod(ir::MemcpyHtoD{0x10000000, uint64_t{1} << 40});
  gpu.memcpy_htod(ir::MemcpyHtoD{0xffffffffffff0000ull, ~uint64_t{0}});  // stops at the end of the address space
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_LT(s, 20.0);  // 4 x 6 MiB warmed twice: well under a second on any host
}

}  // namespace
}  // namespace ws::test
