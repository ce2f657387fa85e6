// `warpsim convert` and `warpsim run` on binary traces (.wst): a converted
// folder simulates to the same stats.json as its text (but for the workload
// path and the host's timing), and damaged files are refused by name.
#include <gtest/gtest.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "e2e/cli_util.h"
#include "e2e/sim_util.h"

namespace ws::test {
namespace {

namespace fs = std::filesystem;

fs::path scratch(const std::string& name) {
  auto d = fs::temp_directory_path() / ("warpsim-wst-cli-" + name + "-" + std::to_string(::getpid()));
  fs::remove_all(d);
  return d;
}

// stats.json without what legitimately differs between two runs of the
// same workload from different folders.
nlohmann::json stats_of(const fs::path& out) {
  nlohmann::json j = nlohmann::json::parse(std::ifstream(out / "stats.json"));
  j.erase("workload");
  j.erase("sim");
  return j;
}

void expect_same_stats(const std::string& text_dir, const std::string& name, const char* gpu) {
  fs::path d = scratch(name);
  CliResult c = run_cli("convert " + text_dir + " " + (d / "wst").string());
  ASSERT_EQ(c.rc, 0) << c.out;
  EXPECT_NE(c.out.find("to binary (.wst)"), std::string::npos) << c.out;
  for (const char* form : {"text", "wst"}) {
    std::string in = std::string(form) == "text" ? text_dir : (d / "wst").string();
    CliResult r = run_cli("run " + in + " --gpu " + gpu + " --out " + (d / form).string() + " --format none --no-progress");
    ASSERT_EQ(r.rc, 0) << form << ": " << r.out;
  }
  nlohmann::json a = stats_of(d / "text"), b = stats_of(d / "wst");
  EXPECT_GT(a["total"]["warp_insts"].get<uint64_t>(), 0u);
  EXPECT_EQ(a, b) << name << " on " << gpu;
  fs::remove_all(d);
}

TEST(E2eWst, RealTracesSimulateIdenticallyFromBinary) {
  expect_same_stats(example_trace("vectoradd-100-32-trace"), "vectoradd", "qv100");
  expect_same_stats(example_trace("matrixmul-32-32-trace"), "matrixmul", "a100");
}

// Dependent loads (a pointer chase) and many CTAs (a stream over several
// zstd chunks).
TEST(E2eWst, SyntheticTracesSimulateIdenticallyFromBinary) {
  frontend::SynthSpec chase{.kind = "chase", .ctas = 8, .threads_per_cta = 64, .iterations = 20, .stride_bytes = 264};
  std::string c = synth(chase, "wst-chase");
  expect_same_stats(c, "chase", "qv100");
  frontend::SynthSpec stream{.kind = "stream", .ctas = 320, .threads_per_cta = 128, .iterations = 8};
  std::string s = synth(stream, "wst-stream");
  expect_same_stats(s, "stream", "qv100");
  fs::remove_all(c);
  fs::remove_all(s);
}

TEST(E2eWst, ConvertBackAndTruncatedFileError) {
  fs::path d = scratch("back");
  ASSERT_EQ(run_cli("convert " + example_trace("vectoradd-100-32-trace") + " " + (d / "wst").string()).rc, 0);
  CliResult back = run_cli("convert " + (d / "wst").string() + " " + (d / "text").string());
  ASSERT_EQ(back.rc, 0) << back.out;
  EXPECT_NE(back.out.find("to text"), std::string::npos) << back.out;
  EXPECT_TRUE(fs::exists(d / "text" / "kernel-1.traceg"));
  fs::resize_file(d / "wst" / "kernel-1.wst", fs::file_size(d / "wst" / "kernel-1.wst") - 10);
  CliResult r = run_cli("run " + (d / "wst").string() + " --format none --no-progress");
  EXPECT_EQ(r.rc, 1) << r.out;
  EXPECT_NE(r.out.find("kernel-1.wst: offset"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("truncated"), std::string::npos) << r.out;
  fs::remove_all(d);
}

}  // namespace
}  // namespace ws::test
