// `warpsim run` given inputs that ask the host for more than it has, or
// traces that contradict their own header (issue 17 items 7, 8 and 13):
// each is refused at once with a message naming what to change.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>

#include "e2e/cli_util.h"

namespace {

namespace fs = std::filesystem;
using ws::test::CliResult;
using ws::test::run_cli;

fs::path vectoradd() { return fs::path(WARPSIM_SOURCE_DIR) / "examples" / "traces" / "vectoradd-100-32-trace"; }

fs::path temp(const std::string& name) {
  fs::path p = fs::temp_directory_path() / ("warpsim-huge-" + name + "-" + std::to_string(::getpid()));
  fs::remove_all(p);
  return p;
}

// Item 7: 1024 SMs with 64 MiB L1Ds (both in range) need ~30 GiB of tags.
TEST(CliHugeInput, ModelOverTheHostMemoryLimitIsRefused) {
  CliResult r = run_cli("run " + vectoradd().string() +
                        " --format none --set gpu.sms=1024 --set l1d.size_kb=65536 --set sim.max_host_memory_gb=8");
  EXPECT_EQ(r.rc, 1) << r.out;
  EXPECT_NE(r.out.find("more than sim.max_host_memory_gb = 8"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("gpu.sms=1024 x l1d.size_kb=65536"), std::string::npos) << r.out;
  // A limit above the estimate builds it (a small one here: 2 SMs).
  r = run_cli("run " + vectoradd().string() + " --format none --set gpu.sms=2 --set sim.max_host_memory_gb=8");
  EXPECT_EQ(r.rc, 0) << r.out;
}

// Item 8: a 1 TB copy, and one of 2^64-1 bytes, spun silently.
TEST(CliHugeInput, CopyLargerThanTheDeviceMemoryIsRefused) {
  fs::path dir = temp("copy");
  fs::copy(vectoradd(), dir, fs::copy_options::recursive);
  for (const char* bytes : {"1099511627776", "18446744073709551615"}) {
    std::ofstream(dir / "kernelslist.g") << "MemcpyHtoD,0x00007f2b2d500000,400\nMemcpyHtoD,0x0," << bytes
                                         << "\nkernel-1.traceg\n";
    auto start = std::chrono::steady_clock::now();
    CliResult r = run_cli("run " + dir.string() + " --format none");
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    EXPECT_EQ(r.rc, 1) << r.out;
    EXPECT_NE(r.out.find("kernelslist.g:2: field 'memcpy'"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("gpu.memory_gb"), std::string::npos) << r.out;
    EXPECT_LT(s, 30.0);
  }
  // The preset's memory decides: 32 GiB on QV100, so 40 GiB fits a 48 GiB GPU.
  std::ofstream(dir / "kernelslist.g") << "MemcpyHtoD,0x0,42949672960\nkernel-1.traceg\n";
  EXPECT_EQ(run_cli("run " + dir.string() + " --format none").rc, 1);
  CliResult big = run_cli("run " + dir.string() + " --format none --set gpu.memory_gb=48");
  EXPECT_EQ(big.rc, 0) << big.out;
}

// Item 13 through the whole command: the line and field reach the user.
TEST(CliHugeInput, TraceContradictingItsHeaderNamesLineAndField) {
  fs::path dir = temp("tb");
  ws::test::copy_trace_replacing_line(vectoradd(), dir, 21, "thread block = 0,1,0");  // the grid is (1,1,1)
  CliResult r = run_cli("run " + dir.string() + " --format none");
  EXPECT_EQ(r.rc, 1) << r.out;
  EXPECT_NE(r.out.find("kernel-1.traceg:21: field 'thread block'"), std::string::npos) << r.out;
  ws::test::copy_trace_replacing_line(vectoradd(), dir, 12, "-accelsim tracer version = 99");
  r = run_cli("run " + dir.string() + " --format none");
  EXPECT_EQ(r.rc, 1) << r.out;
  EXPECT_NE(r.out.find("kernel-1.traceg:12: field 'accelsim tracer version'"), std::string::npos) << r.out;
}

}  // namespace
