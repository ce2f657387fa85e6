// `warpsim correlate` hands over to the Python package: where it looks for the
// package and the interpreter, and what it says when either is missing. The
// correlator itself is tested by pytest (python/tests).
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "e2e/cli_util.h"
#include "tools/commands.h"

namespace {

namespace fs = std::filesystem;

// Sets an environment variable for one test and puts the old value back.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const std::string& value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    setenv(name, value.c_str(), 1);
  }
  ~ScopedEnv() {
    if (old_.empty())
      unsetenv(name_);
    else
      setenv(name_, old_.c_str(), 1);
  }

 private:
  const char* name_;
  std::string old_;
};

TEST(CorrelateCli, FindsThePackageBesideTheConfigs) {
  fs::path dir = ws::tools::python_package_dir();
  EXPECT_TRUE(fs::is_regular_file(dir / "warpsim" / "__main__.py")) << dir;
  EXPECT_TRUE(fs::is_directory(dir.parent_path() / "configs")) << dir;
}

TEST(CorrelateCli, EnvironmentOverridesPackageAndInterpreter) {
  ScopedEnv package("WARPSIM_PYTHONPATH", "/opt/elsewhere");
  ScopedEnv python("WARPSIM_PYTHON", "/opt/python9");
  EXPECT_EQ(ws::tools::python_package_dir(), "/opt/elsewhere");
  EXPECT_EQ(ws::tools::choose_python(), "/opt/python9");
}

TEST(CorrelateCli, MissingPackageIsNamed) {
  ScopedEnv package("WARPSIM_PYTHONPATH", "/nonexistent-warpsim-python");
  auto r = ws::test::run_cli("correlate --sim runs --hw hw.csv");
  EXPECT_EQ(r.rc, 1);
  EXPECT_NE(r.out.find("Python package is not in /nonexistent-warpsim-python"), std::string::npos) << r.out;
}

TEST(CorrelateCli, ArgumentsReachPythonUntouched) {
  if (ws::tools::choose_python().empty()) GTEST_SKIP() << "no python3 with pandas, numpy and matplotlib";
  auto r = ws::test::run_cli("correlate --help");
  EXPECT_EQ(r.rc, 0) << r.out;
  EXPECT_NE(r.out.find("usage: warpsim correlate"), std::string::npos) << r.out;
  r = ws::test::run_cli("correlate --sim /nonexistent-runs --hw x.csv --out /tmp/never.html");
  EXPECT_EQ(r.rc, 1);
  EXPECT_NE(r.out.find("/nonexistent-runs: no such folder"), std::string::npos) << r.out;
}

TEST(TuneCli, ArgumentsReachPythonUntouched) {
  if (ws::tools::choose_python({"tomllib"}).empty()) GTEST_SKIP() << "no python3 with tomllib (3.11 or newer)";
  auto r = ws::test::run_cli("tune --help");
  EXPECT_EQ(r.rc, 0) << r.out;
  EXPECT_NE(r.out.find("usage: warpsim tune"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("--measured"), std::string::npos) << r.out;
  r = ws::test::run_cli("tune --measured /nonexistent-results.txt --out /tmp/never-tuned.toml");
  EXPECT_EQ(r.rc, 1);
  EXPECT_NE(r.out.find("warpsim tune: error: /nonexistent-results.txt: cannot read"), std::string::npos) << r.out;
  EXPECT_FALSE(fs::exists("/tmp/never-tuned.toml"));
}

// `warpsim sweep` is handed over the same way, with the simulator's own path in WARPSIM_BIN.
TEST(SweepCli, ArgumentsReachPythonUntouched) {
  if (ws::tools::choose_python({"tomllib", "sqlite3"}).empty()) GTEST_SKIP() << "no python3 with tomllib and sqlite3";
  auto r = ws::test::run_cli("sweep run --help");
  EXPECT_EQ(r.rc, 0) << r.out;
  EXPECT_NE(r.out.find("--retry-failed"), std::string::npos) << r.out;
  r = ws::test::run_cli("sweep status /nonexistent-study");
  EXPECT_EQ(r.rc, 1);
  EXPECT_NE(r.out.find("warpsim sweep: error: /nonexistent-study: not a sweep study"), std::string::npos) << r.out;
}

}  // namespace
