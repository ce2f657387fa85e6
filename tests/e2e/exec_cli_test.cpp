// `warpsim exec` as a launcher: the environment it hands the program, the
// library path, and the program's exit status. Needs build/lib/libcudart.so.13
// (skipped without the CUDA headers); runs no CUDA code.
#include <gtest/gtest.h>

#include "e2e/cli_util.h"

#include <cstdio>
#include <filesystem>
#include <string>

namespace {

namespace fs = std::filesystem;

using Result = ws::test::CliResult;
Result run(const std::string& args) { return ws::test::run_cli(args); }

bool have_library() {
  return fs::exists(fs::path(WARPSIM_BIN).parent_path().parent_path() / "lib" / "libcudart.so.13");
}

TEST(ExecCli, PassesOptionsInTheEnvironmentAndReturnsTheProgramsStatus) {
  if (!have_library()) GTEST_SKIP() << "libcudart.so.13 not built (no CUDA headers)";
  Result r = run("exec --gpu a100 --set l2.size_kb=8192 --set core.warp_scheduler=lrr --timing --out /tmp/o -v -- "
                 "sh -c 'echo \"[$WARPSIM_GPU|$WARPSIM_SET|$WARPSIM_TIMING|$WARPSIM_OUT|$WARPSIM_VERBOSE]\"; "
                 "echo \"lib=$LD_LIBRARY_PATH\"; exit 3'");
  EXPECT_EQ(r.rc, 3) << r.out;
  EXPECT_NE(r.out.find("[a100|l2.size_kb=8192;core.warp_scheduler=lrr|1|/tmp/o|1]"), std::string::npos) << r.out;
  fs::path lib = fs::weakly_canonical(fs::path(WARPSIM_BIN).parent_path().parent_path() / "lib");
  EXPECT_NE(r.out.find("lib=" + lib.string()), std::string::npos) << r.out;
}

TEST(ExecCli, DefaultsAndArgumentsAfterTheSeparator) {
  if (!have_library()) GTEST_SKIP() << "libcudart.so.13 not built (no CUDA headers)";
  Result r = run("exec -- sh -c 'echo \"[$WARPSIM_GPU|${WARPSIM_TIMING-unset}] $0 $1\"' zero --one");
  EXPECT_EQ(r.rc, 0) << r.out;
  EXPECT_NE(r.out.find("[qv100|unset] zero --one"), std::string::npos) << r.out;
}

TEST(ExecCli, MissingProgramAndBadSet) {
  if (!have_library()) GTEST_SKIP() << "libcudart.so.13 not built (no CUDA headers)";
  Result missing = run("exec -- ./no-such-program-here");
  EXPECT_EQ(missing.rc, 127);
  EXPECT_NE(missing.out.find("warpsim: cannot run ./no-such-program-here"), std::string::npos) << missing.out;
  Result bad = run("exec --set nonsense -- true");
  EXPECT_NE(bad.rc, 0);
  EXPECT_NE(bad.out.find("expected key=value"), std::string::npos) << bad.out;
}

}  // namespace
